package io.ringbus.core.internal.store;

import io.ringbus.core.FsyncPolicy;
import io.ringbus.core.Headers;
import io.ringbus.core.PublishAck;
import io.ringbus.core.StoredStream;
import io.ringbus.core.StreamConfig;
import io.ringbus.core.StreamInfo;
import io.ringbus.core.internal.log.LogConfig;
import io.ringbus.core.wire.HeaderNames;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Per-key outbox ids in a local stream ({@link StreamConfig#keyDedupBytes()}): a redelivered outbox
 * row is acknowledged as a duplicate with no time window, across restarts and after retention
 * removed the first copy; everything else is stored as before.
 */
class KeyedDedupStreamTest {
    @TempDir
    Path dir;

    private LocalStorage open(FsyncPolicy policy) {
        return new LocalStorage(dir, policy, Duration.ofMillis(20), 64L << 20, LogConfig.DEFAULT_SEGMENT_BYTES);
    }

    /** No Nats-Msg-Id window at all: only the per-key ids can catch a redelivery. */
    private static StreamConfig config() {
        return StreamConfig.of("orders.>").withDuplicateWindow(Duration.ZERO)
                .withKeyDedupBytes(StreamConfig.DEFAULT_KEY_DEDUP_BYTES);
    }

    private static Headers outbox(String eventId, String key) {
        return Headers.builder().add(HeaderNames.EVENT_ID, eventId).add(HeaderNames.KEY, key)
                .add(HeaderNames.MSG_ID, eventId).build();
    }

    private static PublishAck publish(StoredStream stream, String eventId, String key) {
        return stream.append("orders.created", outbox(eventId, key), new byte[8], null).join();
    }

    @Test
    void aRedeliveryAfterTheDuplicateWindowIsAcknowledgedAsADuplicateOfTheStoredMessage() {
        try (LocalStorage storage = open(FsyncPolicy.ALWAYS)) {
            StoredStream stream = storage.stream(config());
            assertThat(publish(stream, "ob-1", "cust-1")).isEqualTo(new PublishAck("orders_all", 1, false));
            assertThat(publish(stream, "ob-2", "cust-1").sequence()).isEqualTo(2);
            assertThat(publish(stream, "ob-3", "cust-2").sequence()).isEqualTo(3);

            assertThat(publish(stream, "ob-2", "cust-1")).isEqualTo(new PublishAck("orders_all", 2, true));
            assertThat(publish(stream, "ob-1", "cust-1")).as("an older row of the key: a duplicate of its last")
                    .isEqualTo(new PublishAck("orders_all", 2, true));
            assertThat(publish(stream, "other-2", "cust-1").duplicate()).as("another outbox, same key").isFalse();
            assertThat(publish(stream, "ob-4", "cust-1").sequence()).isEqualTo(5);

            StreamInfo info = stream.info();
            assertThat(info.messages()).isEqualTo(5);
            assertThat(info.keyedIds()).isEqualTo(new StreamInfo.KeyedIds(3, info.keyedIds().bytes(), 0, 2));
            assertThat(info.keyedIds().bytes()).isPositive();
        }
    }

    @Test
    void messagesWithoutBothHeadersAreUntouchedAndTheMessageIdWindowStillApplies() {
        try (LocalStorage storage = open(FsyncPolicy.OS)) {
            StoredStream stream = storage.stream(StreamConfig.of("orders.>")
                    .withKeyDedupBytes(StreamConfig.DEFAULT_KEY_DEDUP_BYTES));
            Headers noKey = Headers.of(HeaderNames.EVENT_ID, "ob-1");
            assertThat(stream.append("orders.x", noKey, new byte[1], null).join().duplicate()).isFalse();
            assertThat(stream.append("orders.x", noKey, new byte[1], null).join().duplicate()).isFalse();
            Headers wordy = Headers.builder().add(HeaderNames.EVENT_ID, "ob-one").add(HeaderNames.KEY, "k").build();
            assertThat(stream.append("orders.x", wordy, new byte[1], null).join().duplicate()).isFalse();
            assertThat(stream.append("orders.x", wordy, new byte[1], null).join().duplicate()).isFalse();
            assertThat(stream.append("orders.x", null, new byte[1], null).join().duplicate()).isFalse();
            assertThat(stream.append("orders.x", null, new byte[1], "id-1").join().duplicate()).isFalse();
            assertThat(stream.append("orders.x", null, new byte[1], "id-1").join())
                    .as("Nats-Msg-Id within the window").isEqualTo(new PublishAck("orders_all", 6, true));
            assertThat(stream.info().keyedIds()).isEqualTo(StreamInfo.KeyedIds.NONE);
        }
    }

    @Test
    void aStreamWithoutTheSettingStoresRedeliveriesOutsideTheWindow() {
        try (LocalStorage storage = open(FsyncPolicy.OS)) {
            StoredStream stream = storage.stream(StreamConfig.of("orders.>").withDuplicateWindow(Duration.ZERO));
            assertThat(publish(stream, "ob-1", "cust-1").duplicate()).isFalse();
            assertThat(publish(stream, "ob-1", "cust-1").duplicate()).as("opt-in: off by default").isFalse();
            assertThat(Files.exists(dir.resolve("streams/orders_all").resolve(KeyedIdsFile.NAME))).isFalse();
        }
    }

    @ParameterizedTest
    @EnumSource(value = FsyncPolicy.class, names = {"ALWAYS", "OS"})
    void theIdsOutliveARestartAndTheRetentionOfTheirMessages(FsyncPolicy policy) {
        StreamConfig limited = config().withMaxMessages(16); // segments of 2 records: many rolls
        try (LocalStorage storage = open(policy)) {
            StoredStream stream = storage.stream(limited);
            for (int row = 1; row <= 200; row++) {
                assertThat(publish(stream, "ob-" + row, key(row)).duplicate()).isFalse();
            }
            assertThat(stream.info().firstSequence()).as("retention removed the first rows").isGreaterThan(150);
            assertThat(publish(stream, "ob-1", "cust-1").duplicate()).isTrue();
            assertThat(stream.info().keyedIds().keys()).isEqualTo(101);
        }
        try (LocalStorage storage = open(policy)) {
            StoredStream stream = storage.stream(limited);
            for (int row = 1; row <= 200; row++) {
                PublishAck ack = publish(stream, "ob-" + row, key(row));
                assertThat(ack.duplicate()).as("row %d after a restart", row).isTrue();
            }
            assertThat(stream.info().lastSequence()).isEqualTo(200);
            assertThat(publish(stream, "ob-201", "busy")).isEqualTo(new PublishAck("orders_all", 201, false));
            assertThat(stream.info().keyedIds().keys()).isEqualTo(101);
        }
    }

    /** Rows 1..100 each have a key of their own, whose only message retention removes; then one busy key. */
    private static String key(int row) {
        return row <= 100 ? "cust-" + row : "busy";
    }

    @Test
    void theIdsAreRebuiltFromTheLogWhenTheSnapshotIsDamaged() throws Exception {
        try (LocalStorage storage = open(FsyncPolicy.ALWAYS)) {
            StoredStream stream = storage.stream(config());
            for (int row = 1; row <= 10; row++) {
                publish(stream, "ob-" + row, "k");
            }
        }
        Path snapshot = dir.resolve("streams/orders_all").resolve(KeyedIdsFile.NAME);
        assertThat(snapshot).as("written at open when the log held more than it").exists();
        Files.write(snapshot, new byte[] {1, 2, 3, 4, 5});
        try (LocalStorage storage = open(FsyncPolicy.ALWAYS)) {
            StoredStream stream = storage.stream(config());
            assertThat(publish(stream, "ob-10", "k")).isEqualTo(new PublishAck("orders_all", 10, true));
        }
    }

    @Test
    void aMemoryStreamForgetsItsIdsWithItsMessages() {
        StreamConfig memory = config().withMedium(StreamConfig.Medium.MEMORY);
        try (LocalStorage storage = open(FsyncPolicy.OS)) {
            StoredStream stream = storage.stream(memory);
            publish(stream, "ob-1", "k");
            assertThat(publish(stream, "ob-1", "k").duplicate()).isTrue();
        }
        try (LocalStorage storage = open(FsyncPolicy.OS)) {
            assertThat(publish(storage.stream(memory), "ob-1", "k")).isEqualTo(new PublishAck("orders_all", 1, false));
        }
    }
}
