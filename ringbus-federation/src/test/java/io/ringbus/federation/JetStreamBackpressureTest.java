package io.ringbus.federation;

import io.ringbus.core.PublishAck;
import io.ringbus.core.StorageException;
import io.ringbus.core.StoredStream;
import io.ringbus.core.StreamConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A stream's appends awaiting their PubAck are bounded in bytes: on a server of the test's own,
 * paused with SIGSTOP so that no PubAck comes, {@code tryAppend} refuses and {@code append} waits;
 * nothing accepted is lost when it runs again.
 */
class JetStreamBackpressureTest {
    /** Two appends of 40 payload bytes (and a 4-byte subject) do not fit; one does. */
    private static final long MAX_PENDING = 64;

    @TempDir
    Path dir;
    private PrivateNatsServer server;

    @BeforeEach
    void start() throws Exception {
        server = PrivateNatsServer.start(dir);
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
    }

    private JetStreamStorage storage(Duration requestTimeout) {
        return JetStreamStorage.builder().servers(server.url()).maxPendingBytes(MAX_PENDING)
                .requestTimeout(requestTimeout).connect();
    }

    @Test
    void tryAppendRefusesAndAppendWaitsWhileThePendingBytesAreAtTheLimit() throws Exception {
        try (JetStreamStorage storage = storage(Duration.ofSeconds(20))) {
            StoredStream stream = storage.stream(StreamConfig.of("bp.>"));
            server.pause();
            CompletableFuture<PublishAck> first = stream.tryAppend("bp.1", null, new byte[40], null);
            assertThat(first).as("nothing pending: accepted").isNotNull();
            assertThat(stream.tryAppend("bp.2", null, new byte[40], null)).as("no room: refused").isNull();

            CompletableFuture<CompletableFuture<PublishAck>> waiting = CompletableFuture.supplyAsync(
                    () -> stream.append("bp.3", null, new byte[40], null));
            Thread.sleep(300);
            assertThat(waiting).as("append waits for room").isNotDone();
            assertThat(first).isNotDone();

            server.resume();
            assertThat(first.get(10, TimeUnit.SECONDS).sequence()).isEqualTo(1);
            assertThat(waiting.get(10, TimeUnit.SECONDS).get(10, TimeUnit.SECONDS).sequence()).isEqualTo(2);
            assertThat(stream.info().messages()).as("the refused append stored nothing").isEqualTo(2);
        }
    }

    @Test
    void anAppendWithoutAPubAckWithinTheRequestTimeoutFailsAndGivesItsBytesBack() throws Exception {
        try (JetStreamStorage storage = storage(Duration.ofMillis(500))) {
            StoredStream stream = storage.stream(StreamConfig.of("bp.>"));
            server.pause();
            CompletableFuture<PublishAck> unanswered = stream.append("bp.1", null, new byte[40], "id-1");
            assertThatThrownBy(() -> unanswered.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                    .cause().isInstanceOf(StorageException.class).hasMessageContaining("bp.1")
                    .hasMessageContaining("no PubAck within 500 ms");
            CompletableFuture<PublishAck> next = stream.tryAppend("bp.2", null, new byte[40], null);
            assertThat(next).as("the failed append's bytes were given back").isNotNull();

            server.resume();
            // The first was in the socket all along: stored now. Appended again with its id, it is
            // acknowledged as the duplicate it is, not stored twice.
            PublishAck retried = stream.append("bp.1", null, new byte[40], "id-1").get(10, TimeUnit.SECONDS);
            assertThat(retried).isEqualTo(new PublishAck("bp_all", 1, true));
            next.get(10, TimeUnit.SECONDS);
            assertThat(stream.info().messages()).isEqualTo(2);
        }
    }
}
