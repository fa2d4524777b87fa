package io.ringbus.core.internal.store;

import io.ringbus.core.Broker;
import io.ringbus.core.ConsumerStats;
import io.ringbus.core.Durability;
import io.ringbus.core.ExecutionMode;
import io.ringbus.core.Scope;
import io.ringbus.core.Storage;
import io.ringbus.core.StoredMessage;
import io.ringbus.core.SubscribeOptions;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * The process {@link DurableCrashTest} kills: a broker on a local store with the durable subject
 * {@value #PATTERN} and the durable subscription {@value #CONSUMER} on it, printing
 * {@code d <sequence> <deliveries> <key>} in its handler (which then returns: the ack). Runs in a
 * JVM of its own, unnamed on the class path.
 *
 * <p>Arguments: {@code <dir> <mode> <round> <publishers>}. Mode {@code RUN}: publisher threads
 * publish {@code r<round>p<thread>-<n>} payloads one after another, printing {@code a <key>} once
 * {@code publish} returned (the message is durable), until the process is killed. Mode
 * {@code DRAIN}: publishes nothing, prints {@code caught-up} once the consumer has nothing pending
 * or unacknowledged, closes the broker, prints {@code closed} and exits.
 *
 * <p>Each line is one {@code write} to the stdout pipe (atomic under 4 KiB), so the test reads
 * whole lines only, and an ack it reads was printed after {@code publish} returned.
 */
final class DurableCrashBroker {
    static final String PATTERN = "orders.>";
    static final String STREAM = "orders_all";
    static final String CONSUMER = "billing";
    /** Every payload starts with its key; the rest is filler derived from it, checked byte for byte. */
    private static final int MAX_FILLER = 300;

    private DurableCrashBroker() {
    }

    public static void main(String[] args) throws InterruptedException {
        Path dir = Path.of(args[0]);
        boolean drain = args[1].equals("DRAIN");
        int round = Integer.parseInt(args[2]);
        int publishers = Integer.parseInt(args[3]);
        FileOutputStream out = new FileOutputStream(FileDescriptor.out);
        Broker broker = Broker.builder().storage(Storage.local(dir)).build();
        broker.registerSubject(PATTERN, Scope.PUBLIC, Durability.DURABLE);
        broker.subscribe(PATTERN, message -> {
            StoredMessage stored = (StoredMessage) message;
            print(out, "d " + stored.sequence() + " " + stored.deliveries() + " " + key(stored.payload()));
        }, SubscribeOptions.defaults().mode(ExecutionMode.VIRTUAL).durable(CONSUMER));
        print(out, "ready");
        if (drain) {
            awaitCaughtUp(broker);
            print(out, "caught-up");
            broker.close();
            print(out, "closed");
            return;
        }
        for (int t = 0; t < publishers; t++) {
            int thread = t;
            Thread.ofPlatform().name("publisher-" + t).start(() -> {
                String subject = "orders.t" + thread;
                for (long n = 0; ; n++) {
                    byte[] payload = payload(round, thread, n);
                    broker.publish(subject, payload);
                    print(out, "a " + key(payload));
                }
            });
        }
    }

    /** Waits until the consumer has read to the end of the stream and every delivery was acknowledged. */
    private static void awaitCaughtUp(Broker broker) throws InterruptedException {
        int quiet = 0;
        while (quiet < 3) {
            Thread.sleep(20);
            ConsumerStats stats = broker.stats().consumers().stream()
                    .filter(c -> c.name().equals(CONSUMER)).findFirst().orElseThrow();
            quiet = stats.pending() == 0 && stats.ackPending() == 0 ? quiet + 1 : 0;
        }
    }

    /** One {@code write} per line: a pipe write of under 4 KiB is atomic. */
    private static void print(FileOutputStream out, String line) {
        try {
            out.write((line + "\n").getBytes(StandardCharsets.US_ASCII));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return the payload of message {@code n} of publisher {@code thread} in {@code round} */
    static byte[] payload(int round, int thread, long n) {
        String key = "r" + round + "p" + thread + "-" + n;
        int filler = (int) ((n * 31 + thread) % MAX_FILLER);
        StringBuilder payload = new StringBuilder(key.length() + 1 + filler).append(key).append(' ');
        for (int i = 0; i < filler; i++) {
            payload.append((char) ('a' + (n + i) % 26));
        }
        return payload.toString().getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * Reads the key back from a payload and checks the rest of it.
     *
     * @return {@code r<round>p<thread>-<n>}
     * @throws AssertionError if the payload is not one {@link #payload} made
     */
    static String key(byte[] payload) {
        String text = new String(payload, StandardCharsets.US_ASCII);
        int space = text.indexOf(' ');
        int p = text.indexOf('p');
        int dash = text.indexOf('-');
        if (space < 0 || !text.startsWith("r") || p < 0 || dash < p) {
            throw new AssertionError("not a crash-test payload: " + text);
        }
        String key = text.substring(0, space);
        byte[] expected = payload(Integer.parseInt(key.substring(1, p)), Integer.parseInt(key.substring(p + 1, dash)),
                Long.parseLong(key.substring(dash + 1)));
        if (!Arrays.equals(payload, expected)) {
            throw new AssertionError("payload damaged: " + text);
        }
        return key;
    }
}
