package io.ringbus.core.internal.store;

import io.ringbus.core.FsyncPolicy;
import io.ringbus.core.Headers;
import io.ringbus.core.PublishAck;
import io.ringbus.core.PublishRejectedException;
import io.ringbus.core.StoredStream;
import io.ringbus.core.StreamConfig;
import io.ringbus.core.StreamInfo;
import io.ringbus.core.internal.log.LogConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What a client can make a local stream keep is bounded (issue 25): its bytes and messages by the
 * stream's limits, whatever the store's segment size; its duplicate window's ids by bytes; a
 * message's headers by nats-server's 64k.
 */
class StreamLimitsTest {
    private static final Duration INTERVAL = Duration.ofMillis(100);

    @TempDir
    Path dir;

    private LocalStorage open() {
        // The store's default 64 MiB segments, as the server runs it.
        return new LocalStorage(dir, FsyncPolicy.OS, INTERVAL, 64L << 20, LogConfig.DEFAULT_SEGMENT_BYTES);
    }

    @Test
    void aSmallMaxBytesHoldsWithTheDefaultSegmentSize() {
        long maxBytes = 2L << 20;
        try (LocalStorage storage = open()) {
            StoredStream stream = storage.stream(StreamConfig.of("big.>").withMaxBytes(maxBytes));
            for (int i = 0; i < 301; i++) {
                stream.append("big.x", null, new byte[100_000], null).join();
                assertThat(stream.info().bytes()).as("after message %d", i + 1).isLessThanOrEqualTo(maxBytes);
            }
            StreamInfo info = stream.info();
            assertThat(info.lastSequence()).isEqualTo(301);
            assertThat(info.bytes()).as("retention keeps most of the limit").isGreaterThan(maxBytes / 2);
        }
        try (LocalStorage storage = open()) {
            StoredStream reopened = storage.stream(StreamConfig.of("big.>").withMaxBytes(maxBytes));
            assertThat(reopened.info().lastSequence()).isEqualTo(301);
            reopened.append("big.x", null, new byte[100_000], null).join();
            assertThat(reopened.info().bytes()).isLessThanOrEqualTo(maxBytes);
            assertThat(reopened.info().lastSequence()).isEqualTo(302);
        }
    }

    @Test
    void aStreamWrittenWithLargeSegmentsComesBackWithinItsNewLimit() {
        try (LocalStorage storage = open()) {
            StoredStream stream = storage.stream(StreamConfig.of("old.>"));
            for (int i = 0; i < 50; i++) {
                stream.append("old.x", null, new byte[100_000], null).join();
            }
            assertThat(stream.info().bytes()).isGreaterThan(4_000_000);
        }
        try (LocalStorage storage = open()) {
            StoredStream limited = storage.stream(StreamConfig.of("old.>").withMaxBytes(1L << 20));
            limited.append("old.x", null, new byte[100_000], null).join();
            limited.append("old.x", null, new byte[100_000], null).join();
            assertThat(limited.info().bytes()).isLessThanOrEqualTo(1L << 20);
            assertThat(limited.info().lastSequence()).isEqualTo(52);
        }
    }

    @Test
    void aSmallMaxMessagesHoldsWithTheDefaultSegmentSize() {
        try (LocalStorage storage = open()) {
            StoredStream stream = storage.stream(StreamConfig.of("few.>").withMaxMessages(100));
            for (int i = 0; i < 1_000; i++) {
                stream.append("few.x", null, new byte[10], null).join();
                assertThat(stream.info().messages()).as("after message %d", i + 1).isLessThanOrEqualTo(100);
            }
            assertThat(stream.info().messages()).isGreaterThanOrEqualTo(100 - 2 * 100 / LocalStream.SEGMENTS_PER_LIMIT);
        }
    }

    @Test
    void headersOverSixtyFourKAreRefusedAsJetStreamRefusesThem() {
        try (LocalStorage storage = open()) {
            StoredStream stream = storage.stream(StreamConfig.of("ids.>"));
            String longId = "x".repeat(PublishRejectedException.MAX_HEADER_BYTES);
            assertThatThrownBy(() -> stream.append("ids.a", null, new byte[1], longId))
                    .isInstanceOfSatisfying(PublishRejectedException.class, e -> {
                        assertThat(e.status()).isEqualTo(400);
                        assertThat(e.errorCode()).isEqualTo(10097);
                        assertThat(e).hasMessage("header size exceeds maximum allowed of 64k");
                    });
            Headers big = Headers.of("X-Big", "y".repeat(70_000));
            assertThatThrownBy(() -> stream.append("ids.a", big, new byte[1], null))
                    .isInstanceOf(PublishRejectedException.class);
            assertThat(stream.info().lastSequence()).as("nothing stored").isZero();
            PublishAck fits = stream.append("ids.a", null, new byte[1], "y".repeat(60_000)).join();
            assertThat(fits.sequence()).isEqualTo(1);
        }
    }

    @Test
    void theDuplicateWindowIsBoundedInBytesAndCountsWhatItForgets() {
        long bound = 1L << 20;
        try (LocalStorage storage = open()) {
            StoredStream stream = storage.stream(StreamConfig.of("dup.>").withDuplicateWindowBytes(bound));
            String pad = "p".repeat(60_000);
            for (int i = 0; i < 100; i++) {
                stream.append("dup.a", null, new byte[1], i + pad).join();
            }
            StreamInfo info = stream.info();
            assertThat(info.duplicateBytes()).isLessThanOrEqualTo(bound).isPositive();
            assertThat(info.duplicateIds()).isLessThan(100).isPositive();
            assertThat(info.duplicatesForgotten()).isEqualTo(100 - info.duplicateIds());
            assertThat(info.lastSequence()).as("every message stored").isEqualTo(100);
            PublishAck retry = stream.append("dup.a", null, new byte[1], 99 + pad).join();
            assertThat(retry.duplicate()).as("the newest ids are still remembered").isTrue();
            assertThat(retry.sequence()).isEqualTo(100);
        }
    }

    @Test
    void theDuplicateWindowBoundIsValidated() {
        assertThatThrownBy(() -> StreamConfig.of("a.>").withDuplicateWindowBytes(10))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("duplicateWindowBytes=10");
    }
}
