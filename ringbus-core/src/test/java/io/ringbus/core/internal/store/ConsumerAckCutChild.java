package io.ringbus.core.internal.store;

import io.ringbus.core.ConsumerConfig;
import io.ringbus.core.Storage;
import io.ringbus.core.StoredMessage;
import io.ringbus.core.StoredStream;
import io.ringbus.core.StreamConfig;
import io.ringbus.core.StreamConsumer;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The process {@link ConsumerAckPowerCutTest} kills before each power cut: the durable consumer
 * {@value #CONSUMER} of the stream {@value #PATTERN} on a local store ({@code ALWAYS}), fetching
 * and acknowledging one message at a time, printing {@code d <sequence> <deliveries>} when it got a
 * message and {@code a <sequence>} once {@code ack} returned. Runs in a JVM of its own.
 *
 * <p>Arguments: {@code <dir> ACK <quiet>}: acknowledges {@code quiet} messages, closes the store
 * (which saves the consumer's state), prints {@code closed}, opens it again, prints {@code reopened}
 * and acknowledges on, pausing 1 ms after each (so that a cut comes before the stream runs out),
 * until killed. {@code <dir> DRAIN}: acknowledges until nothing came for 2 s,
 * closes the store, prints {@code drained} and exits.
 */
final class ConsumerAckCutChild {
    static final String PATTERN = "orders.>";
    static final String CONSUMER = "billing";

    private ConsumerAckCutChild() {
    }

    public static void main(String[] args) throws InterruptedException {
        Path dir = Path.of(args[0]);
        if (args[1].equals("DRAIN")) {
            try (Storage storage = Storage.local(dir)) {
                ackUntilIdle(consumer(storage), Long.MAX_VALUE, Duration.ofSeconds(2), 0);
            }
            ChildLines.print("drained");
            return;
        }
        try (Storage storage = Storage.local(dir)) {
            ackUntilIdle(consumer(storage), Long.parseLong(args[2]), Duration.ofSeconds(5), 0);
        }
        ChildLines.print("closed");
        Storage storage = Storage.local(dir); // never closed: the test kills the process
        ChildLines.print("reopened");
        StreamConsumer consumer = consumer(storage);
        while (true) {
            ackUntilIdle(consumer, Long.MAX_VALUE, Duration.ofSeconds(5), 1);
        }
    }

    private static StreamConsumer consumer(Storage storage) {
        StoredStream stream = storage.stream(StreamConfig.of(PATTERN));
        return stream.consumer(ConsumerConfig.of(CONSUMER, PATTERN));
    }

    private static void ackUntilIdle(StreamConsumer consumer, long max, Duration idle,
                                     long pauseMillis) throws InterruptedException {
        for (long acked = 0; acked < max; ) {
            List<StoredMessage> batch = consumer.fetch(1, idle);
            if (batch.isEmpty()) {
                return;
            }
            StoredMessage m = batch.get(0);
            ChildLines.print("d " + m.sequence() + " " + m.deliveries());
            consumer.ack(m);
            ChildLines.print("a " + m.sequence());
            acked++;
            Thread.sleep(pauseMillis);
        }
    }
}
