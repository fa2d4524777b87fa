package io.ringbus.jetstream;

import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.ringbus.core.FsyncPolicy;
import io.ringbus.core.Storage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The store's byte limit ({@code storage.max_bytes}, nats-server's {@code max_file_store}) through
 * jnats: a stream reserving more than it is refused (10047); publishing past it is refused with
 * "insufficient resources" (10023) and nothing acknowledged is lost, across a restart.
 */
@SuppressWarnings("try") // jnats' Connection.close() may throw InterruptedException
class StoreLimitTest {
    private static final long LIMIT = 64 * 1024;

    @TempDir
    Path store;

    @Test
    void aFullStoreRefusesPublishesAndKeepsWhatItAcknowledged() throws Exception {
        long acknowledged = 0;
        try (JetStreamServer server = JetStreamServer.start(limited(), UnaryOperator.identity());
             Connection nats = Nats.connect(server.url())) {
            JetStreamManagement jsm = nats.jetStreamManagement();
            assertThatThrownBy(() -> jsm.addStream(StreamConfiguration.builder().name("BIG").subjects("big")
                    .storageType(StorageType.File).maxBytes(LIMIT + 1).build()))
                    .isInstanceOf(JetStreamApiException.class).hasMessageContaining("10047");
            jsm.addStream(StreamConfiguration.builder().name("LOG").subjects("log").storageType(StorageType.File)
                    .build());
            JetStream js = nats.jetStream();
            JetStreamApiException refused = null;
            for (int i = 0; i < 1000 && refused == null; i++) {
                try {
                    js.publish("log", new byte[1024]);
                    acknowledged++;
                } catch (JetStreamApiException e) {
                    refused = e;
                }
            }
            assertThat(refused).as("refused once past the limit").isNotNull();
            assertThat(refused.getApiErrorCode()).isEqualTo(10023);
            assertThat(refused.getErrorDescription()).isEqualTo("insufficient resources");
            assertThat(acknowledged).isBetween(LIMIT / 1200, LIMIT / 1024 + 1);
            assertThat(jsm.getStreamInfo("LOG").getStreamState().getMsgCount()).isEqualTo(acknowledged);
        }
        try (JetStreamServer restarted = JetStreamServer.start(limited(), UnaryOperator.identity());
             Connection nats = Nats.connect(restarted.url())) {
            JetStreamManagement jsm = nats.jetStreamManagement();
            assertThat(jsm.getStreamInfo("LOG").getStreamState().getMsgCount()).as("nothing acknowledged lost")
                    .isEqualTo(acknowledged);
            assertThatThrownBy(() -> nats.jetStream().publish("log", new byte[1024]))
                    .isInstanceOf(JetStreamApiException.class).hasMessageContaining("10023");
            jsm.purgeStream("LOG");
            // The store measures itself every 50 ms: refused (10023) until it has, then stored.
            long[] stored = {0};
            io.ringbus.testkit.Await.until("room again after a purge", () -> {
                try {
                    stored[0] = nats.jetStream().publish("log", new byte[1024]).getSeqno();
                    return true;
                } catch (JetStreamApiException refused) {
                    return false;
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            assertThat(stored[0]).as("nothing stored while refused").isEqualTo(acknowledged + 1);
        }
    }

    private Storage limited() {
        return Storage.local(store, FsyncPolicy.ALWAYS, Duration.ofMillis(100), LIMIT);
    }
}
