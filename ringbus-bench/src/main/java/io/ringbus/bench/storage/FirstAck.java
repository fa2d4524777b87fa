package io.ringbus.bench.storage;

import io.nats.client.Connection;
import io.nats.client.ErrorListener;
import io.nats.client.JetStream;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamOptions;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.PublishAck;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * When a restarted server serves again: jnats connects over loopback (retrying while the port is
 * closed), publishes one message to the durable stream and waits for its PubAck, which must carry
 * the sequence after the last one stored, proving the whole log was recovered. The same client
 * code for ringbus-server and nats-server.
 */
final class FirstAck {
    /** The subject of the probe messages: inside the stream's {@code recovery.>}. */
    static final String SUBJECT = "recovery.probe";
    private static final ErrorListener QUIET = new ErrorListener() {
    };
    private static final Duration ATTEMPT = Duration.ofSeconds(2);

    private FirstAck() {
    }

    /**
     * Publishes until the first PubAck, retrying while the server does not accept connections or
     * does not answer the stream yet.
     *
     * @param url              {@code nats://127.0.0.1:<port>}
     * @param expectedSequence the sequence the PubAck must carry
     * @param deadlineNanos    {@link System#nanoTime()} after which it gives up
     * @return {@link System#nanoTime()} when the PubAck came
     * @throws IOException when no PubAck came in time, or it carried another sequence
     */
    static long await(String url, long expectedSequence, long deadlineNanos) throws IOException, InterruptedException {
        Options options = Options.builder().server(url).noReconnect().connectionTimeout(ATTEMPT).errorListener(QUIET)
                .build();
        byte[] payload = ("probe " + expectedSequence).getBytes(StandardCharsets.US_ASCII);
        Exception last = null;
        while (System.nanoTime() - deadlineNanos < 0) {
            Connection nc;
            try {
                nc = Nats.connect(options);
            } catch (IOException e) {
                last = e;
                Thread.sleep(5);
                continue;
            }
            try (nc) {
                JetStream js = nc.jetStream(JetStreamOptions.builder().requestTimeout(ATTEMPT).build());
                while (System.nanoTime() - deadlineNanos < 0 && nc.getStatus() == Connection.Status.CONNECTED) {
                    PublishAck ack;
                    try {
                        ack = js.publish(SUBJECT, payload);
                    } catch (JetStreamApiException | IOException | IllegalStateException e) {
                        last = e; // no responders, or a timeout, while the stream is not open yet
                        Thread.sleep(5);
                        continue;
                    }
                    long at = System.nanoTime();
                    if (ack.getSeqno() != expectedSequence) {
                        throw new IOException("PubAck for sequence " + ack.getSeqno() + ", expected " + expectedSequence
                                + ": the restarted server did not recover the whole log");
                    }
                    return at;
                }
            }
        }
        throw new IOException("no PubAck from " + url + " in time; last error: " + last);
    }
}
