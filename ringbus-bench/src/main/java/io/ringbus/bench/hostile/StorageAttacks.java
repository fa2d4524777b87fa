package io.ringbus.bench.hostile;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;

/**
 * Attacks on durable subjects: ringbus-server's {@code orders.>} and, with the same bytes, a
 * JetStream stream on nats-server (made before the probes start).
 */
final class StorageAttacks {
    private StorageAttacks() {
    }

    /** @return the attacks */
    static List<Attack> all() {
        return List.of(
                new Attack("msg-id-flood", "HPUBs to a durable subject, each with a new 256 KB Nats-Msg-Id",
                        Set.of("HPUB"), true, false, StorageAttacks::stream, StorageAttacks::msgIdFlood),
                new Attack("durable-flood", "512 KB publishes with PubAck replies never read, to a stream of 4 MB",
                        Set.of("PUB"), true, false, StorageAttacks::stream, StorageAttacks::durableFlood));
    }

    /** nats-server: creates the stream ringbus-server has from its configuration. */
    private static void stream(Target target, long deadline) throws Exception {
        if (target.ringbus()) {
            return;
        }
        try (Wire root = target.login("root")) {
            root.send("SUB _INBOX.create 1\r\n");
            root.send(ProtocolAttacks.pub("$JS.API.STREAM.CREATE." + HostileConfig.STREAM, "_INBOX.create",
                    HostileConfig.streamCreateRequest().getBytes(StandardCharsets.US_ASCII)));
            String reply = root.readLine();
            if (!reply.startsWith("MSG _INBOX.create")) {
                throw new IOException("stream not created: " + reply);
            }
            String answer = root.readLine();
            if (answer.contains("\"error\"")) {
                throw new IOException("stream not created: " + answer);
            }
        }
    }

    private static void msgIdFlood(Target target, long deadline) throws Exception {
        byte[] payload = "a durable order".getBytes(StandardCharsets.US_ASCII);
        String id = "i".repeat(256 * 1024 - 16);
        try (Held held = new Held(deadline)) {
            for (long n = 0; !Attack.over(deadline); ) {
                try {
                    Wire wire = held.add(target.login("alice"));
                    wire.send("SUB _INBOX.acks 1\r\n");
                    wire.discardInput();
                    while (!Attack.over(deadline)) {
                        byte[] headers = ("NATS/1.0\r\nNats-Msg-Id: " + id + (n++) + "\r\n\r\n")
                                .getBytes(StandardCharsets.US_ASCII);
                        wire.send(ProtocolAttacks.hpub("orders.ids", "_INBOX.acks", headers, payload));
                    }
                } catch (IOException closed) {
                    held.dropClosed();
                }
            }
        }
    }

    private static void durableFlood(Target target, long deadline) throws Exception {
        byte[] message = ProtocolAttacks.pub("orders.bulk", "_INBOX.never", new byte[512 * 1024]);
        try (Held held = new Held(deadline)) {
            while (!Attack.over(deadline)) {
                try {
                    Wire wire = held.add(Wire.open(target.port(), null, 4096));
                    wire.readLine();
                    wire.send(Wire.connectLine(HostileConfig.login("alice")) + "SUB _INBOX.never 1\r\n");
                    while (!Attack.over(deadline)) {
                        wire.send(message);
                    }
                } catch (IOException closed) {
                    held.dropClosed();
                }
            }
        }
    }
}
