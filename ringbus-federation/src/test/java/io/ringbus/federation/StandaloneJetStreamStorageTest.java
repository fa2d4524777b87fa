package io.ringbus.federation;

import io.nats.client.Connection;
import io.nats.client.Nats;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * ringbus-server's {@code --storage-jetstream}: durable subjects stored in a JetStream cluster, the
 * store found at run time in this module (the server does not depend on it), as in the runnable jar.
 */
@Timeout(90)
class StandaloneJetStreamStorageTest {

    @Test
    @SuppressWarnings("try") // jnats Connection.close() throws InterruptedException; the test declares it
    void durableSubjectsCanBeStoredInJetStream(@TempDir Path dir) throws Exception {
        try (PrivateNatsServer nats = PrivateNatsServer.start(dir);
             StandaloneServer server = StandaloneServer.start("--storage-jetstream", nats.url(), "--durable", "orders.>");
             Connection direct = Nats.connect(nats.url());
             Connection client = Nats.connect("nats://127.0.0.1:" + server.port())) {
            assertThat(server.log()).anySatisfy(line -> assertThat(line).contains("storage: jetstream"));
            assertThat(client.jetStream().publish("orders.x", "stored in JetStream".getBytes(StandardCharsets.UTF_8))
                    .getStream()).isEqualTo("orders_all");
            assertThat(direct.jetStreamManagement().getStreamInfo("orders_all").getStreamState().getMsgCount())
                    .isEqualTo(1);
        }
    }
}
