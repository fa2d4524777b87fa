package io.ringbus.core.internal.store;

import io.ringbus.core.ConsumerConfig;
import io.ringbus.core.FsyncPolicy;
import io.ringbus.core.StorageException;
import io.ringbus.core.StoredMessage;
import io.ringbus.core.StoredStream;
import io.ringbus.core.StreamConfig;
import io.ringbus.core.StreamConsumer;
import io.ringbus.testkit.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What only the local store does: its directory lock, work-queue compaction, its pending budget. */
class LocalStorageTest {
    private static final Duration INTERVAL = Duration.ofMillis(100);

    @TempDir
    Path dir;

    private LocalStorage open(long maxPendingBytes) {
        return new LocalStorage(dir, FsyncPolicy.ALWAYS, INTERVAL, maxPendingBytes, 1024);
    }

    private static void fill(StoredStream stream, int count) {
        for (int i = 0; i < count; i++) {
            stream.append("jobs.a", null, new byte[100], null).join();
        }
    }

    private static void consumeAll(StreamConsumer consumer, int count) throws InterruptedException {
        int done = 0;
        while (done < count) {
            for (StoredMessage message : consumer.fetch(count - done, Duration.ofSeconds(1))) {
                consumer.ack(message);
                done++;
            }
        }
    }

    @Test
    void aSecondBrokerCannotOpenTheSameDirectory() {
        LocalStorage first = open(1 << 20);
        try {
            assertThatThrownBy(() -> open(1 << 20)).isInstanceOf(StorageException.class)
                    .hasMessageContaining("in use");
        } finally {
            first.close();
        }
    }

    @Test
    void aWorkQueueDeletesTheSegmentsItsConsumersAcknowledged() throws Exception {
        try (LocalStorage storage = open(1 << 20)) {
            StoredStream queue = storage.stream(StreamConfig.of("jobs.>")
                    .withRetention(StreamConfig.Retention.WORK_QUEUE));
            StoredStream kept = storage.stream(StreamConfig.of("jobs.a").withName("kept"));
            fill(queue, 100);
            fill(kept, 100);
            try (StreamConsumer a = queue.consumer(ConsumerConfig.of("worker", "jobs.>"));
                 StreamConsumer b = kept.consumer(ConsumerConfig.of("reader", "jobs.a"))) {
                consumeAll(a, 100);
                consumeAll(b, 100);
                Await.until("work queue compacted", () -> queue.info().firstSequence() > 50);
                Thread.sleep(3 * LocalStorage.STATE_SAVE_MILLIS);
                assertThat(kept.info().firstSequence()).isEqualTo(1);
                assertThat(kept.info().messages()).isEqualTo(100);
            }
        }
    }

    @Test
    void aWorkQueueKeepsWhatAConsumerNotOpenedYetMayNeed() throws Exception {
        StreamConfig config = StreamConfig.of("jobs.>").withRetention(StreamConfig.Retention.WORK_QUEUE);
        try (LocalStorage storage = open(1 << 20)) {
            StoredStream queue = storage.stream(config);
            queue.consumer(ConsumerConfig.of("slow", "jobs.>")).close();
            Thread.sleep(3 * LocalStorage.STATE_SAVE_MILLIS); // its state file exists now
        }
        try (LocalStorage storage = open(1 << 20)) {
            StoredStream queue = storage.stream(config);
            fill(queue, 100);
            try (StreamConsumer fast = queue.consumer(ConsumerConfig.of("fast", "jobs.>"))) {
                consumeAll(fast, 100);
                Thread.sleep(4 * LocalStorage.STATE_SAVE_MILLIS);
                assertThat(queue.info().firstSequence()).isEqualTo(1);
            }
        }
    }

    @Test
    void intervalAcknowledgesOnceWrittenBeforeItsPeriodicForce() throws Exception {
        try (LocalStorage storage = new LocalStorage(dir, FsyncPolicy.INTERVAL, Duration.ofSeconds(60), 1 << 20,
                1 << 20)) {
            StoredStream stream = storage.stream(StreamConfig.of("jobs.>"));
            CompletableFuture<?> ack = stream.append("jobs.a", null, new byte[600], null);
            assertThat(ack.get(5, TimeUnit.SECONDS)).isNotNull(); // the force is a minute away
            assertThat(((LocalStream) stream).log().stats().fsyncs()).isZero();
        }
    }

    @Test
    void closingCompletesWhatWasAppended() {
        CompletableFuture<?> pending;
        try (LocalStorage storage = new LocalStorage(dir, FsyncPolicy.INTERVAL, Duration.ofSeconds(60), 1 << 20,
                1 << 20)) {
            pending = storage.stream(StreamConfig.of("jobs.>")).append("jobs.a", null, new byte[1], null);
        }
        assertThat(pending).isCompleted();
        assertThat(List.of(pending.join())).hasSize(1);
    }
}
