package io.ringbus.bench.hostile;

import java.io.IOException;
import java.net.InetAddress;

/**
 * The healthy clients measured during every attack: {@link #roundTrip} (a logged-in client's
 * PING/PONG, every 10 ms), {@link #login} (a new connection logs in with a valid bcrypt
 * password and gets its first PONG, every 250 ms, from the second loopback address 127.0.0.2 so
 * that it is another source than the attacker's 127.0.0.1) and {@link #healthz} (an
 * unauthenticated {@code GET /healthz}, every 100 ms); for attacks on JetStream, {@link #jetStream}
 * (a publish to a stream of its own, a pull of that message and that stream's INFO, each awaited).
 */
final class Probes {
    /** The JetStream probe's name. */
    static final String JETSTREAM = "js bystander";
    /** The JetStream probe's stream, on {@link #BYSTANDER_SUBJECTS}. */
    static final String BYSTANDER = "BYSTANDER";
    static final String BYSTANDER_SUBJECTS = "bystander.>";
    /** The JetStream probe's pull consumer. */
    static final String BYSTANDER_CONSUMER = "probe";

    private Probes() {
    }

    /** @return a probe of alice's round trip on one long-lived connection */
    static Probe roundTrip(Target target) {
        return new Probe("round trip", 10) {
            private Wire wire;

            @Override
            void ask() throws IOException {
                if (wire == null) {
                    wire = target.login("alice");
                }
                wire.send("PING\r\n");
                wire.expectPong();
            }

            @Override
            void reset() {
                if (wire != null) {
                    wire.close();
                    wire = null;
                }
            }
        };
    }

    /** @return a probe of carol's login, a new connection each time */
    static Probe login(Target target) {
        InetAddress second = secondLoopback();
        return new Probe("valid login", 250) {
            @Override
            void ask() throws IOException {
                try (Wire wire = Wire.open(target.port(), second, 0)) {
                    wire.readLine();
                    wire.send(Wire.connectLine(HostileConfig.login("carol")) + "PING\r\n");
                    wire.expectPong();
                }
            }
        };
    }

    /**
     * @return a probe of {@code GET /healthz} without credentials, a new connection each time (as
     *         a liveness probe asks)
     */
    static Probe healthz(Target target) {
        return new Probe("/healthz", 100) {
            @Override
            void ask() throws IOException {
                try (Wire wire = Wire.open(target.monitorPort())) {
                    wire.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
                    String status = wire.readLine();
                    if (!status.startsWith("HTTP/1.1 200")) {
                        throw new IOException("/healthz answered " + status);
                    }
                }
            }
        };
    }

    /** Creates {@link #BYSTANDER} (at most 10,000 messages) as alice, before the probes start. */
    static void createBystander(Target target) throws IOException {
        try (JsClient js = JsClient.login(target, "alice")) {
            String answer = js.request("$JS.API.STREAM.CREATE." + BYSTANDER, "{\"name\":\"" + BYSTANDER
                    + "\",\"subjects\":[\"" + BYSTANDER_SUBJECTS + "\"],\"storage\":\"file\",\"max_msgs\":10000}");
            if (answer.contains("\"error\"")) {
                throw new IOException("stream " + BYSTANDER + " not created: " + answer);
            }
            answer = js.request("$JS.API.CONSUMER.DURABLE.CREATE." + BYSTANDER + "." + BYSTANDER_CONSUMER,
                    "{\"stream_name\":\"" + BYSTANDER + "\",\"config\":{\"durable_name\":\"" + BYSTANDER_CONSUMER
                            + "\",\"ack_policy\":\"none\",\"deliver_policy\":\"all\"}}");
            if (answer.contains("\"error\"")) {
                throw new IOException("consumer " + BYSTANDER_CONSUMER + " not created: " + answer);
            }
        }
    }

    /**
     * @return a probe of a JetStream user on one long-lived connection: a publish to
     *         {@link #BYSTANDER} with its PubAck awaited, a pull of it (the consumers' thread), then
     *         that stream's INFO (the API's thread), every 20 ms; an error answer is a failure
     */
    static Probe jetStream(Target target) {
        byte[] payload = "a bystander's message".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        return new Probe(JETSTREAM, 20) {
            private JsClient js;

            @Override
            void ask() throws IOException {
                if (js == null) {
                    js = JsClient.login(target, "alice");
                }
                String ack = js.publish("bystander.probe", null, payload);
                if (!ack.contains("\"seq\"") || ack.contains("\"error\"")) {
                    throw new IOException("PubAck: " + ack);
                }
                String pulled = js.pull(BYSTANDER, BYSTANDER_CONSUMER, "{\"batch\":1,\"expires\":5000000000}");
                if (!pulled.startsWith("bystander.probe ")) {
                    throw new IOException("pull: " + pulled);
                }
                String info = js.request("$JS.API.STREAM.INFO." + BYSTANDER, "");
                if (!info.contains("\"state\"")) {
                    throw new IOException("stream info: " + info);
                }
            }

            @Override
            void reset() {
                if (js != null) {
                    js.close();
                    js = null;
                }
            }
        };
    }

    private static InetAddress secondLoopback() {
        try {
            return InetAddress.getByAddress(new byte[] {127, 0, 0, 2});
        } catch (IOException e) {
            throw new IllegalStateException("127.0.0.2 is not an address", e);
        }
    }
}
