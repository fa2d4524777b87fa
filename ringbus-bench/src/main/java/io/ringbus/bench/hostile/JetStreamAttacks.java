package io.ringbus.bench.hostile;

import io.ringbus.server.ServerRequests;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Attacks on JetStream's API ({@code $JS.API.>}): malformed and huge requests, and thousands of
 * streams (ringbus-server only: the harness starts nats-server without JetStream).
 */
final class JetStreamAttacks {
    private JetStreamAttacks() {
    }

    /** @return the attacks */
    static List<Attack> all() {
        Set<String> api = new HashSet<>(ServerRequests.JETSTREAM_API_SUBJECTS);
        return List.of(
                Attack.of("jetstream-malformed", "malformed JSON, wrong types, 1 MB configurations and names of "
                        + "streams that do not exist, to every JetStream API request", api, false,
                        JetStreamAttacks::malformed),
                Attack.of("jetstream-streams", "creates streams until the server refuses (max_streams), lists "
                        + "them, reads and deletes them", api, false, JetStreamAttacks::manyStreams),
                Attack.of("jetstream-removals", "publishes to a stream and floods it with scattered message deletes, "
                        + "filtered purges and direct gets by wildcard (each removal an fsync'd file)",
                        Set.of("$JS.API.STREAM.PURGE", "$JS.API.STREAM.MSG.DELETE", "$JS.API.DIRECT.GET"), false,
                        JetStreamAttacks::removals));
    }

    private static void malformed(Target target, long deadline) throws Exception {
        byte[] huge = ("{\"name\":\"H\",\"subjects\":[\"" + "h.".repeat(ProtocolAttacks.MAX_PAYLOAD / 2) + "x\"]}")
                .substring(0, ProtocolAttacks.MAX_PAYLOAD - 256).getBytes(StandardCharsets.US_ASCII);
        byte[][] bodies = {"{bad".getBytes(StandardCharsets.US_ASCII),
                "{\"name\":7,\"max_msgs\":\"x\"}".getBytes(StandardCharsets.US_ASCII), huge, new byte[0],
                "{\"seq\":-1,\"last_by_subj\":\"a.>\"}".getBytes(StandardCharsets.US_ASCII)};
        try (Held held = new Held(deadline)) {
            Wire wire = held.add(target.login("alice"));
            wire.send("SUB _INBOX.js.> 1\r\n");
            wire.discardInput();
            for (int i = 0; !Attack.over(deadline); i++) {
                String kind = ServerRequests.JETSTREAM_API_SUBJECTS.get(i % ServerRequests.JETSTREAM_API_SUBJECTS.size());
                String subject = kind.endsWith("INFO") && kind.length() < 14 || kind.endsWith("NAMES")
                        || kind.endsWith("LIST") ? kind : kind + ".S" + (i % 7);
                wire.send(ProtocolAttacks.pub(subject, "_INBOX.js." + i, bodies[i % bodies.length]));
            }
        } catch (IOException closed) {
            // the server may close a client past its limits
        }
    }

    private static void manyStreams(Target target, long deadline) throws Exception {
        try (Held held = new Held(deadline)) {
            Wire wire = held.add(target.login("alice"));
            wire.send("SUB _INBOX.js.> 1\r\n");
            wire.discardInput();
            for (int i = 0; !Attack.over(deadline); i++) {
                String name = "HOSTILE" + (i % 5_000);
                wire.send(ProtocolAttacks.pub("$JS.API.STREAM.CREATE." + name, "_INBOX.js.c" + i,
                        ("{\"name\":\"" + name + "\",\"subjects\":[\"hostile." + name + ".>\"]}")
                                .getBytes(StandardCharsets.US_ASCII)));
                if (i % 100 == 99) {
                    wire.send(ProtocolAttacks.pub("$JS.API.STREAM.LIST", "_INBOX.js.l" + i, new byte[0]));
                    wire.send(ProtocolAttacks.pub("$JS.API.STREAM.MSG.GET." + name, "_INBOX.js.g" + i,
                            "{\"last_by_subj\":\">\"}".getBytes(StandardCharsets.US_ASCII)));
                    wire.send(ProtocolAttacks.pub("$JS.API.STREAM.DELETE.HOSTILE" + (i % 5_000 / 2), "_INBOX.js.d" + i,
                            new byte[0]));
                    wire.send("PING\r\n");
                    wire.expectPong();
                }
            }
        } catch (IOException closed) {
            // the server may close a client past its limits
        }
    }

    private static void removals(Target target, long deadline) throws Exception {
        try (Held held = new Held(deadline)) {
            Wire wire = held.add(target.login("alice"));
            wire.send("SUB _INBOX.js.> 1\r\n");
            wire.discardInput();
            wire.send(ProtocolAttacks.pub("$JS.API.STREAM.CREATE.REMOVALS", "_INBOX.js.create",
                    "{\"name\":\"REMOVALS\",\"subjects\":[\"removals.>\"],\"allow_direct\":true}"
                            .getBytes(StandardCharsets.US_ASCII)));
            for (int i = 0; !Attack.over(deadline); i++) {
                wire.send(ProtocolAttacks.pub("removals.k" + (i % 1_000), "_INBOX.js.p" + i, new byte[64]));
                String request = switch (i % 4) {
                    case 0 -> "$JS.API.STREAM.MSG.DELETE.REMOVALS";
                    case 1 -> "$JS.API.STREAM.PURGE.REMOVALS";
                    case 2 -> "$JS.API.DIRECT.GET.REMOVALS";
                    default -> "$JS.API.DIRECT.GET.REMOVALS.removals.k" + (i % 1_000);
                };
                String body = switch (i % 4) {
                    case 0 -> "{\"seq\":" + (i * 7919L % (i + 1) + 1) + "}";
                    case 1 -> "{\"filter\":\"removals.k" + (i % 13) + "\",\"keep\":1}";
                    case 2 -> "{\"last_by_subj\":\"removals.>\"}";
                    default -> "";
                };
                wire.send(ProtocolAttacks.pub(request, "_INBOX.js.r" + i, body.getBytes(StandardCharsets.US_ASCII)));
                if (i % 100 == 99) {
                    wire.send("PING\r\n");
                    wire.expectPong();
                }
            }
        } catch (IOException closed) {
            // the server may close a client past its limits
        }
    }
}
