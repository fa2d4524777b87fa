package io.ringbus.core.internal.store;

import io.ringbus.core.ConsumerConfig;
import io.ringbus.core.FsyncPolicy;
import io.ringbus.core.StartPosition;
import io.ringbus.core.Storage;
import io.ringbus.core.StoredMessage;
import io.ringbus.core.StoredStream;
import io.ringbus.core.StreamConfig;
import io.ringbus.core.StreamConsumer;
import io.ringbus.core.internal.log.DurableFiles;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What a power loss leaves of the store's metadata, and how the store opens on it: a damaged
 * {@code subjects} file is rewritten from the configuration, a damaged consumer state falls back
 * to a whole copy or to a start that skips nothing; and how the metadata is written so that it is
 * not damaged in the first place.
 */
class LocalStorageRecoveryTest {
    private static final StreamConfig STREAM = StreamConfig.of("orders.>");
    private static final ConsumerConfig BILLING = ConsumerConfig.of("billing", "orders.>");

    @TempDir
    Path dir;

    private Path streamDir() {
        return dir.resolve("streams").resolve(STREAM.name());
    }

    private Path subjectsFile() {
        return streamDir().resolve("subjects");
    }

    private Path stateFile() {
        return streamDir().resolve("consumers").resolve("billing.state");
    }

    private static LocalStorage open(Path dir) {
        return new LocalStorage(dir, FsyncPolicy.ALWAYS, Duration.ofMillis(100), Storage.DEFAULT_MAX_PENDING_BYTES);
    }

    @Test
    void anEmptySubjectsFileIsRewrittenFromTheConfigurationAndTheRecordsKept() throws IOException {
        try (Storage storage = open(dir)) {
            publish(storage.stream(STREAM), 1, 3);
        }
        Files.write(subjectsFile(), new byte[0]); // what a cut left of a file written without fsync
        try (LocalStorage storage = open(dir)) {
            StoredStream stream = storage.stream(STREAM);
            assertThat(stream.info().lastSequence()).isEqualTo(3);
            assertThat(storage.fileStats().repairs()).isEqualTo(1);
        }
        assertThat(Files.readString(subjectsFile())).isEqualTo("orders.>\n");
    }

    @Test
    void aTornOrZeroFilledSubjectsFileIsRewrittenToo() throws IOException {
        for (byte[] damaged : List.of("orders.".getBytes(StandardCharsets.UTF_8), new byte[9],
                new byte[] {(byte) 0xC3})) {
            try (Storage storage = open(dir)) {
                storage.stream(STREAM);
            }
            Files.write(subjectsFile(), damaged);
            try (LocalStorage storage = open(dir)) {
                storage.stream(STREAM);
                assertThat(storage.fileStats().repairs()).as("%s", Arrays.toString(damaged)).isEqualTo(1);
            }
            assertThat(Files.readString(subjectsFile())).isEqualTo("orders.>\n");
        }
    }

    @Test
    void aSubjectsFileHoldingAnotherPatternIsStillRefusedNamingTheFile() throws IOException {
        try (Storage storage = open(dir)) {
            storage.stream(STREAM);
        }
        Files.writeString(subjectsFile(), "audit.*\n");
        try (Storage storage = open(dir)) {
            assertThatThrownBy(() -> storage.stream(STREAM)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("stores 'audit.*', not 'orders.>'")
                    .hasMessageContaining(subjectsFile().toString());
        }
    }

    @Test
    void anEmptyConsumerStateStartsOverFromTheStreamStartSkippingNothing() throws Exception {
        ackFirst(6, 10, BILLING);
        Files.write(stateFile(), new byte[0]);
        try (LocalStorage storage = open(dir);
             StreamConsumer consumer = storage.stream(STREAM).consumer(BILLING)) {
            assertThat(fetch(consumer, 10)).extracting(StoredMessage::sequence)
                    .containsExactlyElementsOf(LongStream.rangeClosed(1, 10).boxed().toList());
            assertThat(storage.fileStats().repairs()).isEqualTo(1);
        }
    }

    @Test
    void aShortConsumerStateOfANewOnlyConsumerStartsAtTheStreamStartNotAtTheEnd() throws Exception {
        ConsumerConfig newOnly = new ConsumerConfig("billing", "orders.>", StartPosition.newOnly(),
                ConsumerConfig.DEFAULT_ACK_WAIT, ConsumerConfig.DEFAULT_MAX_DELIVER,
                ConsumerConfig.DEFAULT_MAX_ACK_PENDING);
        try (Storage storage = open(dir)) {
            StoredStream stream = storage.stream(STREAM);
            try (StreamConsumer consumer = stream.consumer(newOnly)) {
                publish(stream, 1, 8);
                List<StoredMessage> got = fetch(consumer, 8);
                got.subList(0, 4).forEach(consumer::ack);
            }
        }
        byte[] whole = Files.readAllBytes(stateFile());
        Files.write(stateFile(), Arrays.copyOf(whole, whole.length / 2));
        try (LocalStorage storage = open(dir);
             StreamConsumer consumer = storage.stream(STREAM).consumer(newOnly)) {
            // Records 5 to 8 were never acknowledged: starting at "new" (after 8) would skip them.
            assertThat(fetch(consumer, 8)).extracting(StoredMessage::sequence)
                    .containsExactlyElementsOf(LongStream.rangeClosed(1, 8).boxed().toList());
        }
    }

    @Test
    void aDamagedConsumerStateResumesFromAWholeTemporaryCopy() throws Exception {
        ackFirst(6, 10, BILLING);
        Files.copy(stateFile(), DurableFiles.temporary(stateFile())); // a save the cut interrupted
        Files.write(stateFile(), new byte[3]);
        try (LocalStorage storage = open(dir);
             StreamConsumer consumer = storage.stream(STREAM).consumer(BILLING)) {
            assertThat(fetch(consumer, 4)).extracting(StoredMessage::sequence).containsExactly(7L, 8L, 9L, 10L);
            assertThat(storage.fileStats().repairs()).isEqualTo(1);
        }
    }

    @Test
    void newStoreStreamAndConsumerNamesAreMadeDurableAndMetadataIsReplacedAtomically() throws Exception {
        Assumptions.assumeTrue(DurableFiles.directorySyncSupported());
        List<String> events = Collections.synchronizedList(new ArrayList<>());
        Path store = dir.resolve("data");
        try (LocalStorage storage = new LocalStorage(store, FsyncPolicy.ALWAYS, Duration.ofMillis(100),
                Storage.DEFAULT_MAX_PENDING_BYTES, 1 << 20,
                (operation, path) -> events.add(operation + " " + dir.relativize(path.toAbsolutePath())))) {
            StoredStream stream = storage.stream(STREAM);
            publish(stream, 1, 2);
            try (StreamConsumer consumer = stream.consumer(BILLING)) {
                fetch(consumer, 2).forEach(consumer::ack);
            }
        }
        String s = "data/streams/" + STREAM.name();
        assertThat(events).containsSubsequence(
                "CREATE data", "SYNC_DIRECTORY ",
                "CREATE data/streams", "SYNC_DIRECTORY data",
                "CREATE data/LOCK", "SYNC_DIRECTORY data",
                "CREATE " + s, "SYNC_DIRECTORY data/streams",
                "CREATE " + s + "/consumers", "SYNC_DIRECTORY " + s,
                "SYNC_FILE " + s + "/subjects.tmp", "RENAME " + s + "/subjects", "SYNC_DIRECTORY " + s,
                "CREATE " + s + "/log", "SYNC_DIRECTORY " + s,
                "CREATE " + s + "/log/00000000000000000001.log", "SYNC_DIRECTORY " + s + "/log",
                "SYNC_FILE " + s + "/consumers/billing.state.tmp", "RENAME " + s + "/consumers/billing.state",
                "SYNC_DIRECTORY " + s + "/consumers");
    }

    @Test
    void aConsumerIsDurableWhenItsCreationReturns() {
        Assumptions.assumeTrue(DurableFiles.directorySyncSupported());
        List<String> events = Collections.synchronizedList(new ArrayList<>());
        try (LocalStorage storage = observed(dir.resolve("data"), events)) {
            StoredStream stream = storage.stream(STREAM);
            events.clear();
            stream.consumer(new ConsumerConfig("late", "orders.>", StartPosition.newOnly(),
                    ConsumerConfig.DEFAULT_ACK_WAIT, 5, 10)).close();
            String consumers = "data/streams/" + STREAM.name() + "/consumers";
            assertThat(List.copyOf(events)).as("before consumer(...) returned").containsSubsequence(
                    "SYNC_FILE " + consumers + "/late.state.tmp", "RENAME " + consumers + "/late.state",
                    "SYNC_DIRECTORY " + consumers);
        }
    }

    @Test
    void namesACrashedProcessLeftUnsyncedAreForcedWhenTheStoreAndTheStreamOpen() throws IOException {
        Assumptions.assumeTrue(DurableFiles.directorySyncSupported());
        String s = "data/streams/" + STREAM.name();
        // What a process killed between its mkdirs and the directory fsyncs leaves: names, none durable.
        Files.createDirectories(dir.resolve(s).resolve("log"));
        Files.createDirectories(dir.resolve(s).resolve("consumers"));
        List<String> events = Collections.synchronizedList(new ArrayList<>());
        try (LocalStorage storage = observed(dir.resolve("data"), events)) {
            storage.stream(STREAM);
            assertThat(List.copyOf(events)).as("nothing created, every directory forced").containsSubsequence(
                    "SYNC_DIRECTORY ", "SYNC_DIRECTORY data", "SYNC_DIRECTORY data/streams", "SYNC_DIRECTORY " + s,
                    "SYNC_DIRECTORY " + s + "/log", "SYNC_DIRECTORY " + s + "/consumers")
                    .doesNotContain("CREATE " + s, "CREATE " + s + "/log");
        }
    }

    private LocalStorage observed(Path store, List<String> events) {
        return new LocalStorage(store, FsyncPolicy.ALWAYS, Duration.ofMillis(100), Storage.DEFAULT_MAX_PENDING_BYTES,
                1 << 20, (operation, path) -> events.add(operation + " " + dir.relativize(path.toAbsolutePath())));
    }

    /** Publishes {@code total} records, acknowledges the first {@code acked} with {@code consumer}, closes. */
    private void ackFirst(int acked, int total, ConsumerConfig config) throws InterruptedException {
        try (Storage storage = open(dir)) {
            StoredStream stream = storage.stream(STREAM);
            publish(stream, 1, total);
            try (StreamConsumer consumer = stream.consumer(config)) {
                List<StoredMessage> got = fetch(consumer, acked);
                assertThat(got).hasSize(acked);
                got.forEach(consumer::ack);
            }
        }
        assertThat(stateFile()).exists();
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
