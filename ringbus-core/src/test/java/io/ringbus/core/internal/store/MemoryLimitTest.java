package io.ringbus.core.internal.store;

import io.ringbus.core.FsyncPolicy;
import io.ringbus.core.PublishRejectedException;
import io.ringbus.core.Storage;
import io.ringbus.core.StoredStream;
import io.ringbus.core.StreamConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletionException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Memory streams' limit ({@code storage.max_memory}, nats-server's {@code max_memory_store}) and the
 * store's ({@code storage.max_bytes}): a memory stream's log is a file of the store, so its bytes
 * count against both. Before, memory streams counted against three quarters of the machine's memory
 * only, and a client filled the store's disk past {@code storage.max_bytes} with them (issue 26's
 * hostile {@code memory-full}: 1.7 GB in 10 s past a 256 MB store limit).
 */
class MemoryLimitTest {
    private static final long STORE = 256 * 1024;
    private static final long MEMORY = 64 * 1024;

    @TempDir
    Path dir;

    /** @return bytes of 1 KiB messages stored before the first refusal, which must be "insufficient resources" */
    private static long fill(StoredStream stream, String subject) {
        long stored = 0;
        for (int i = 0; i < 10_000; i++) {
            try {
                stream.append(subject, null, new byte[1024], null).join();
                stored += 1024;
            } catch (CompletionException e) {
                assertThat(e.getCause()).isInstanceOf(PublishRejectedException.class);
                PublishRejectedException refused = (PublishRejectedException) e.getCause();
                assertThat(refused.errorCode()).isEqualTo(LocalStream.INSUFFICIENT_RESOURCES);
                return stored;
            }
        }
        throw new AssertionError(subject + ": 10,000 messages of 1 KiB stored, never refused");
    }

    @Test
    void memoryStreamsStopAtTheirLimitAndTheirFilesCountAgainstTheStore() {
        try (Storage storage = Storage.local(dir, FsyncPolicy.ALWAYS, Duration.ofMillis(100), STORE, MEMORY)) {
            assertThat(storage.maxMemoryBytes()).isEqualTo(MEMORY);
            StoredStream memory = storage.stream(StreamConfig.of("mem.>").withName("MEM")
                    .withMedium(StreamConfig.Medium.MEMORY));
            long inMemory = fill(memory, "mem.x");
            assertThat(inMemory).as("memory streams stop at their limit").isBetween(MEMORY - 2048, MEMORY + 2048);
            assertThat(storage.usedMemoryBytes()).isGreaterThanOrEqualTo(inMemory);

            StoredStream file = storage.stream(StreamConfig.of("file.>").withName("FILE"));
            long onDisk = fill(file, "file.x");
            assertThat(onDisk).as("the store's limit counts the memory stream's files")
                    .isBetween(STORE - MEMORY - 8192, STORE - MEMORY + 2048);
        }
    }

    @Test
    void aLimitMustBePositive() {
        assertThatThrownBy(() -> Storage.local(dir, FsyncPolicy.ALWAYS, Duration.ofMillis(100), STORE, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxMemory=0");
    }
}
