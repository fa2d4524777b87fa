package io.ringbus.bench.hostile;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;

/** Attacks on the subjects ringbus-server answers itself ({@code $RB.API.>}); nats-server has none. */
final class ApiAttacks {
    /** The filter API. */
    static final String FILTER = "$RB.API.FILTER";

    private ApiAttacks() {
    }

    /** @return the attacks */
    static List<Attack> all() {
        return List.of(
                Attack.of("filter-flood", "3,000 filter requests, each a 16 KB policy on a subject never subscribed",
                        Set.of(FILTER), false, ApiAttacks::filterFlood),
                Attack.of("filter-cpu", "a body filter on 2,000 subscriptions that never read, 64 KB JSON bodies"
                        + " published through them", Set.of(FILTER), false, ApiAttacks::filterCpu),
                Attack.of("api-abuse", "API requests with forbidden and above-scope reply subjects, and 1 MB"
                        + " requests to unknown API subjects", Set.of(FILTER, "$RB.API.*"), false,
                        ApiAttacks::apiAbuse));
    }

    /** @return a filter request of about 16 KB on {@code subject}: 60 header keys, a long value each */
    static byte[] largeFilter(String subject) {
        StringBuilder policy = new StringBuilder("{\"subject\":\"").append(subject).append("\",\"headers\":{");
        for (int k = 0; k < 60; k++) {
            policy.append(k == 0 ? "" : ",").append("\"key").append(k).append("\":[\"")
                    .append("v".repeat(240)).append("\"]");
        }
        return policy.append("}}").toString().getBytes(StandardCharsets.US_ASCII);
    }

    private static void filterFlood(Target target, long deadline) throws Exception {
        try (Held held = new Held(deadline)) {
            Wire wire = held.add(target.login("alice"));
            wire.send("SUB _INBOX.filters 1\r\n");
            wire.discardInput();
            for (int i = 0; i < 3_000 && !Attack.over(deadline); i++) {
                wire.send(ProtocolAttacks.pub(FILTER, "_INBOX.filters", largeFilter("never." + i)));
            }
            Attack.hold(deadline);
        } catch (IOException closed) {
            // the server may close a client past its limits
        }
    }

    private static void filterCpu(Target target, long deadline) throws Exception {
        StringBuilder body = new StringBuilder("{\"kind\":\"small\",\"pad\":\"");
        body.append("p".repeat(64 * 1024 - 40)).append("\"}");
        byte[] message = ProtocolAttacks.pub("bulk.big", null, body.toString().getBytes(StandardCharsets.US_ASCII));
        try (Held held = new Held(deadline)) {
            Wire filtered = held.add(Wire.open(target.port(), null, 4096));
            filtered.readLine();
            filtered.send(Wire.connectLine(HostileConfig.login("alice")));
            filtered.send(ProtocolAttacks.pub(FILTER, null,
                    "{\"subject\":\"bulk.big\",\"body\":{\"kind\":[\"big\"]}}".getBytes(StandardCharsets.US_ASCII)));
            StringBuilder subs = new StringBuilder();
            for (int sid = 1; sid <= 2_000; sid++) {
                subs.append("SUB bulk.big ").append(sid).append("\r\n");
            }
            filtered.send(subs.append("PING\r\n").toString());
            filtered.expectPong();
            Wire producer = held.add(target.login("alice"));
            while (!Attack.over(deadline)) {
                for (int i = 0; i < 10; i++) {
                    producer.send(message);
                }
                producer.send("PING\r\n");
                producer.expectPong();
            }
        } catch (IOException closed) {
            // the server may refuse the filters or close the producer
        }
    }

    private static void apiAbuse(Target target, long deadline) throws Exception {
        byte[] filter = "{\"subject\":\"x\",\"headers\":{\"a\":[\"b\"]}}".getBytes(StandardCharsets.US_ASCII);
        byte[] large = new byte[ProtocolAttacks.MAX_PAYLOAD - 128];
        try (Held held = new Held(deadline)) {
            while (!Attack.over(deadline)) {
                try {
                    Wire mallory = held.add(target.login("mallory"));
                    mallory.discardInput();
                    Wire alice = held.add(target.login("alice"));
                    alice.discardInput();
                    for (int i = 0; i < 100 && !Attack.over(deadline); i++) {
                        mallory.send(ProtocolAttacks.pub(FILTER, "victim.subj", filter));
                        alice.send(ProtocolAttacks.pub(FILTER, "priv.feed", filter));
                        alice.send(ProtocolAttacks.pub("$RB.API.NOPE" + i, "_INBOX.nope", large));
                    }
                } catch (IOException closed) {
                    held.dropClosed();
                }
            }
        }
    }
}
