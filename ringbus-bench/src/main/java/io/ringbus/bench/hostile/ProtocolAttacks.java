package io.ringbus.bench.hostile;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;

/** Attacks on the NATS protocol's own verbs; nats-server gets the same bytes. */
final class ProtocolAttacks {
    /** The largest payload both servers accept by default (max_payload 1 MiB). */
    static final int MAX_PAYLOAD = 1 << 20;

    private ProtocolAttacks() {
    }

    /** @return the attacks */
    static List<Attack> all() {
        return List.of(
                Attack.of("connect-flood", "up to 2,000 logged-in connections, each CONNECT carrying a 3 KB name",
                        Set.of("CONNECT"), true, ProtocolAttacks::connectFlood),
                Attack.of("publish-flood", "two publishers send max_payload messages to a subscriber that never reads",
                        Set.of("PUB"), true, ProtocolAttacks::publishFlood),
                Attack.of("header-flood", "HPUBs with 60 KB header blocks of 1,000 headers each",
                        Set.of("HPUB"), true, ProtocolAttacks::headerFlood),
                Attack.of("subscription-storm", "one connection SUBs 200-byte subjects until refused, then UNSUBs"
                        + " each with a limit", Set.of("SUB", "UNSUB"), true, ProtocolAttacks::subscriptionStorm),
                Attack.of("ping-flood", "PINGs and unsolicited PONGs by the megabyte, never reading an answer",
                        Set.of("PING", "PONG"), true, ProtocolAttacks::pingFlood),
                Attack.of("slowloris", "500 connections each stop halfway through a 1 MB PUB or a control line",
                        Set.of("PUB", "SUB"), true, ProtocolAttacks::slowloris),
                Attack.of("garbage", "random bytes, unknown verbs and over-long control lines, reconnecting",
                        Set.of("CONNECT"), true, ProtocolAttacks::garbage));
    }

    private static void connectFlood(Target target, long deadline) throws Exception {
        String name = "\"name\":\"" + "n".repeat(3_000) + "\"," + HostileConfig.login("alice");
        try (Held held = new Held(deadline)) {
            while (!Attack.over(deadline) && held.size() < 2_000) {
                try {
                    Wire wire = held.add(Wire.open(target.port()));
                    wire.send(Wire.connectLine(name));
                    wire.discardInput();
                } catch (IOException refused) {
                    held.dropClosed();
                }
            }
            Attack.hold(deadline);
        }
    }

    private static void publishFlood(Target target, long deadline) throws Exception {
        try (Held held = new Held(deadline)) {
            Wire sleeper = held.add(Wire.open(target.port(), null, 4096));
            sleeper.readLine();
            sleeper.send(Wire.connectLine(HostileConfig.login("alice")) + "SUB flood 1\r\nPING\r\n");
            byte[] message = pub("flood", null, new byte[MAX_PAYLOAD - 64]);
            List<Thread> publishers = new ArrayList<>();
            for (int p = 0; p < 2; p++) {
                publishers.add(Thread.ofVirtual().start(() -> publishUntil(target, deadline, held, message)));
            }
            for (Thread publisher : publishers) {
                publisher.join();
            }
        }
    }

    private static void headerFlood(Target target, long deadline) throws Exception {
        StringBuilder headers = new StringBuilder("NATS/1.0\r\n");
        for (int i = 0; i < 1_000; i++) {
            headers.append("X-Junk-").append(i).append(": ").append("h".repeat(45)).append("\r\n");
        }
        headers.append("\r\n");
        byte[] block = headers.toString().getBytes(StandardCharsets.US_ASCII);
        byte[] payload = "sixteen bytes!!!".getBytes(StandardCharsets.US_ASCII);
        byte[] message = hpub("flood", null, block, payload);
        try (Held held = new Held(deadline)) {
            Wire reader = held.add(target.login("alice"));
            reader.send("SUB flood 1\r\n");
            reader.discardInput();
            publishUntil(target, deadline, held, message);
        }
    }

    /** Publishes {@code message} as alice, as fast as the server reads, logging in again when closed. */
    private static void publishUntil(Target target, long deadline, Held held, byte[] message) {
        while (!Attack.over(deadline)) {
            try {
                Wire publisher = held.add(target.login("alice"));
                publisher.discardInput();
                while (!Attack.over(deadline)) {
                    publisher.send(message);
                }
            } catch (IOException closed) {
                held.dropClosed();
            }
        }
    }

    private static void subscriptionStorm(Target target, long deadline) throws Exception {
        String prefix = "storm." + "s".repeat(180) + ".";
        try (Held held = new Held(deadline)) {
            Wire wire = held.add(target.login("alice"));
            int sids = 0;
            try {
                StringBuilder batch = new StringBuilder();
                while (!Attack.over(deadline) && sids < 200_000) {
                    batch.setLength(0);
                    for (int i = 0; i < 1_000; i++) {
                        sids++;
                        batch.append("SUB ").append(prefix).append(sids).append(' ').append(sids).append("\r\n");
                    }
                    wire.send(batch.append("PING\r\n").toString());
                    wire.expectPong();
                }
                for (int sid = 1; sid <= sids && !Attack.over(deadline); sid++) {
                    wire.send("UNSUB " + sid + " 5\r\n");
                }
            } catch (IOException refused) {
                // past max_subscriptions: refused, as it should be
            }
            Attack.hold(deadline);
        }
    }

    private static void pingFlood(Target target, long deadline) throws Exception {
        byte[] pings = "PING\r\nPONG\r\n".repeat(10_000).getBytes(StandardCharsets.US_ASCII);
        try (Held held = new Held(deadline)) {
            while (!Attack.over(deadline)) {
                try {
                    Wire wire = held.add(Wire.open(target.port(), null, 4096));
                    wire.readLine();
                    wire.send(Wire.connectLine(HostileConfig.login("alice")));
                    while (!Attack.over(deadline)) {
                        wire.send(pings);
                    }
                } catch (IOException closed) {
                    held.dropClosed();
                }
            }
        }
    }

    private static void slowloris(Target target, long deadline) throws Exception {
        byte[] half = new byte[512 * 1024];
        String line = "SUB " + "l".repeat(3_000);
        try (Held held = new Held(deadline)) {
            for (int i = 0; i < 500 && !Attack.over(deadline); i++) {
                try {
                    Wire wire = held.add(Wire.open(target.port()));
                    wire.send(Wire.connectLine(HostileConfig.login("alice")));
                    if (i % 2 == 0) {
                        wire.send(("PUB slow " + (MAX_PAYLOAD - 64) + "\r\n").getBytes(StandardCharsets.US_ASCII));
                        wire.send(half);
                    } else {
                        wire.send(line);
                    }
                } catch (IOException closed) {
                    held.dropClosed();
                }
            }
            Attack.hold(deadline);
        }
    }

    private static void garbage(Target target, long deadline) throws Exception {
        Random random = new Random(25);
        byte[] noise = new byte[64 * 1024];
        String[] lines = {"FOO bar\r\n", "PUB\r\n", "PUB a b c d e f\r\n", "SUB " + "x".repeat(70_000) + "\r\n",
            "PUB a 99999999999999999999\r\n", "HPUB a 10 5\r\n", "UNSUB\r\n", "CONNECT {\"verbose\":\r\n"};
        try (Held held = new Held(deadline)) {
            for (int round = 0; !Attack.over(deadline); round++) {
                try (Wire wire = held.add(Wire.open(target.port()))) {
                    wire.discardInput();
                    wire.send(Wire.connectLine(HostileConfig.login("alice")));
                    if (round % 2 == 0) {
                        random.nextBytes(noise);
                        wire.send(noise);
                    } else {
                        wire.send(lines[round / 2 % lines.length]);
                    }
                } catch (IOException closed) {
                    // closed by the server: the expected answer
                }
                held.dropClosed();
            }
        }
    }

    /** @return a PUB of {@code payload} to {@code subject}, with a reply subject when not null */
    static byte[] pub(String subject, String reply, byte[] payload) {
        byte[] line = ("PUB " + subject + (reply == null ? "" : " " + reply) + " " + payload.length + "\r\n")
                .getBytes(StandardCharsets.US_ASCII);
        byte[] message = new byte[line.length + payload.length + 2];
        System.arraycopy(line, 0, message, 0, line.length);
        System.arraycopy(payload, 0, message, line.length, payload.length);
        message[message.length - 2] = '\r';
        message[message.length - 1] = '\n';
        return message;
    }

    /** @return an HPUB of a header block and payload to {@code subject}, with a reply when not null */
    static byte[] hpub(String subject, String reply, byte[] headers, byte[] payload) {
        byte[] line = ("HPUB " + subject + (reply == null ? "" : " " + reply) + " " + headers.length + " "
                + (headers.length + payload.length) + "\r\n").getBytes(StandardCharsets.US_ASCII);
        byte[] message = new byte[line.length + headers.length + payload.length + 2];
        System.arraycopy(line, 0, message, 0, line.length);
        System.arraycopy(headers, 0, message, line.length, headers.length);
        System.arraycopy(payload, 0, message, line.length + headers.length, payload.length);
        message[message.length - 2] = '\r';
        message[message.length - 1] = '\n';
        return message;
    }
}
