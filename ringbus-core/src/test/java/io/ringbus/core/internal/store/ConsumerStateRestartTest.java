package io.ringbus.core.internal.store;

import io.ringbus.core.ConsumerConfig;
import io.ringbus.core.Storage;
import io.ringbus.core.StoredMessage;
import io.ringbus.core.StoredStream;
import io.ringbus.core.StreamConfig;
import io.ringbus.core.StreamConsumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/** What a local durable consumer's saved state gives back after a restart (both found by {@link DurableCrashTest}). */
class ConsumerStateRestartTest {
    private static final StreamConfig STREAM = StreamConfig.of("orders.>");
    private static final ConsumerConfig BILLING = ConsumerConfig.of("billing", "orders.>");

    @TempDir
    Path dir;

    @Test
    void redeliversWhatWasUnacknowledgedInStreamOrderAfterARestart() throws Exception {
        try (Storage storage = Storage.local(dir)) {
            StoredStream stream = storage.stream(STREAM);
            publish(stream, 1, 300);
            try (StreamConsumer consumer = stream.consumer(BILLING)) {
                assertThat(fetch(consumer, 300)).hasSize(300); // out, never acknowledged
            }
        }
        try (Storage storage = Storage.local(dir)) {
            try (StreamConsumer consumer = storage.stream(STREAM).consumer(BILLING)) {
                List<StoredMessage> again = fetch(consumer, 300);
                assertThat(again).extracting(StoredMessage::sequence)
                        .containsExactlyElementsOf(LongStream.rangeClosed(1, 300).boxed().toList());
                assertThat(again).allSatisfy(m -> assertThat(m.deliveries()).isEqualTo(2));
            }
        }
    }

    @Test
    void resumesAtTheLogsEndWhenTheSavedPositionIsPastIt() throws Exception {
        try (Storage storage = Storage.local(dir)) {
            StoredStream stream = storage.stream(STREAM);
            publish(stream, 1, 5);
            try (StreamConsumer consumer = stream.consumer(BILLING)) {
                fetch(consumer, 5).forEach(consumer::ack);
            }
        }
        // As a power loss leaves it: the consumer had read (and saved) records 6 to 8, the log lost them.
        Path state = dir.resolve("streams").resolve(STREAM.name()).resolve("consumers").resolve("billing.state");
        new ConsumerStateFile(state, false).save("orders.>", 8, Map.of(7L, 1));
        try (Storage storage = Storage.local(dir)) {
            StoredStream stream = storage.stream(STREAM);
            publish(stream, 6, 3); // sequences 6 to 8 again
            try (StreamConsumer consumer = stream.consumer(BILLING)) {
                List<StoredMessage> got = fetch(consumer, 3);
                assertThat(got).extracting(StoredMessage::payloadAsString).containsExactly("m6", "m7", "m8");
                assertThat(got).extracting(StoredMessage::sequence).containsExactly(6L, 7L, 8L);
                assertThat(got).allSatisfy(m -> assertThat(m.deliveries()).isEqualTo(1));
            }
        }
    }

    private static void publish(StoredStream stream, int first, int count) {
        for (int i = first; i < first + count; i++) {
            stream.append("orders.eu", null, ("m" + i).getBytes(StandardCharsets.UTF_8), null).join();
        }
    }

    private static List<StoredMessage> fetch(StreamConsumer consumer, int expected) throws InterruptedException {
        List<StoredMessage> got = new ArrayList<>();
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (got.size() < expected && System.nanoTime() < deadline) {
            got.addAll(consumer.fetch(expected - got.size(), Duration.ofMillis(100)));
        }
        return got;
    }
}
