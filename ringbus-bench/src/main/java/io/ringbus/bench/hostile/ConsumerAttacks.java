package io.ringbus.bench.hostile;

import io.ringbus.server.ServerRequests;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Attacks on JetStream's consumers: thousands of consumers (ephemeral and durable, push and pull)
 * until the server refuses, pull requests asking for a billion messages with hour-long expiries,
 * and floods of acks and flow-control answers, real and forged (ringbus-server only).
 */
final class ConsumerAttacks {
    private ConsumerAttacks() {
    }

    /** @return the attacks */
    static List<Attack> all() {
        Set<String> covers = new HashSet<>(ServerRequests.JETSTREAM_API_SUBJECTS);
        covers.add(ServerRequests.JETSTREAM_ACK_PREFIX);
        covers.add(ServerRequests.JETSTREAM_FLOW_CONTROL_PREFIX);
        return List.of(Attack.of("jetstream-consumers", "creates consumers until the server refuses, sends pull "
                + "requests of batch 1e9 and 1 h expiry past max_waiting, floods real and forged acks, naks and "
                + "flow-control answers, lists and deletes consumers", covers, false, ConsumerAttacks::consumers));
    }

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    private static void consumers(Target target, long deadline) throws Exception {
        try (Held held = new Held(deadline)) {
            Wire wire = held.add(target.login("alice"));
            wire.send("SUB _INBOX.jc.> 1\r\n");
            wire.discardInput();
            wire.send(ProtocolAttacks.pub("$JS.API.STREAM.CREATE.HOSTILEC", "_INBOX.jc.s",
                    ascii("{\"name\":\"HOSTILEC\",\"subjects\":[\"hostilec.>\"]}")));
            for (int i = 0; i < 100; i++) {
                wire.send(ProtocolAttacks.pub("hostilec.x", "_INBOX.jc.p" + i, ascii("m" + i)));
            }
            for (int i = 0; !Attack.over(deadline); i++) {
                String name = "C" + (i % 3_000);
                switch (i % 6) {
                    case 0 -> wire.send(ProtocolAttacks.pub("$JS.API.CONSUMER.DURABLE.CREATE.HOSTILEC." + name,
                            "_INBOX.jc.c" + i, ascii("{\"stream_name\":\"HOSTILEC\",\"config\":{\"durable_name\":\""
                                    + name + "\",\"ack_policy\":\"explicit\",\"max_ack_pending\":65536}}")));
                    case 1 -> wire.send(ProtocolAttacks.pub("$JS.API.CONSUMER.CREATE.HOSTILEC", "_INBOX.jc.e" + i,
                            ascii("{\"stream_name\":\"HOSTILEC\",\"config\":{\"deliver_subject\":\"_INBOX.jc.d" + i
                                    + "\",\"idle_heartbeat\":100000000,\"flow_control\":true}}")));
                    case 2 -> wire.send(ProtocolAttacks.pub("$JS.API.CONSUMER.MSG.NEXT.HOSTILEC.C" + (i % 50),
                            "_INBOX.jc.n" + i, ascii("{\"batch\":1000000000,\"expires\":3600000000000,"
                                    + "\"idle_heartbeat\":1000000000}")));
                    case 3 -> wire.send(ProtocolAttacks.pub("$JS.ACK.HOSTILEC.C" + (i % 50) + ".1." + (i % 100)
                            + "." + i + ".0.0", i % 2 == 0 ? "_INBOX.jc.a" + i : null, ascii(i % 3 == 0 ? "-NAK"
                            : i % 3 == 1 ? "+NXT {\"batch\":1000000000}" : "+ACK")));
                    case 4 -> wire.send(ProtocolAttacks.pub("$JS.FC.HOSTILEC." + name + "." + i, null, new byte[0]));
                    default -> {
                        wire.send(ProtocolAttacks.pub("$JS.API.CONSUMER.LIST.HOSTILEC", "_INBOX.jc.l" + i,
                                new byte[0]));
                        wire.send(ProtocolAttacks.pub("$JS.API.CONSUMER.DELETE.HOSTILEC.C" + (i % 3_000 / 2),
                                "_INBOX.jc.x" + i, new byte[0]));
                        wire.send("PING\r\n");
                        wire.expectPong();
                    }
                }
            }
        } catch (IOException closed) {
            // the server may close a client past its limits
        }
    }
}
