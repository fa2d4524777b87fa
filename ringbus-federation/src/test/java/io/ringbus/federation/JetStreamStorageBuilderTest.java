package io.ringbus.federation;

import io.nats.client.Connection;
import io.nats.client.Nats;
import io.ringbus.core.StorageException;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link JetStreamStorageBuilder} checks its values and the connection it opens. */
class JetStreamStorageBuilderTest {
    @Test
    void refusesBadValuesNamingThem() {
        JetStreamStorageBuilder builder = JetStreamStorage.builder();
        assertThatThrownBy(() -> builder.servers(" ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("servers");
        assertThatThrownBy(() -> builder.servers("nats://127.0.0.1:4222,nats://host:port"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("nats://host:port");
        assertThatThrownBy(() -> builder.maxPendingBytes(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxPendingBytes=0");
        assertThatThrownBy(() -> builder.requestTimeout(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("requestTimeout");
        assertThatThrownBy(() -> builder.maxReconnects(-2)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxReconnects=-2");
        assertThatThrownBy(() -> builder.userInfo("u", "p").token("t").connect())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not both");
    }

    @Test
    void credentialsDoNotApplyToAGivenConnection() throws Exception {
        Connection connection = Nats.connect(TestJetStream.URL);
        try {
            assertThatThrownBy(() -> JetStreamStorage.builder(connection).token("t").connect())
                    .isInstanceOf(IllegalArgumentException.class);
        } finally {
            connection.close();
        }
    }

    @Test
    void anUnreachableServerIsAStorageExceptionNamingIt() throws Exception {
        int port;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();
        }
        String url = "nats://127.0.0.1:" + port;
        assertThatThrownBy(() -> JetStreamStorage.builder().servers(url).requestTimeout(Duration.ofSeconds(1)).connect())
                .isInstanceOf(StorageException.class).hasMessageContaining(url);
    }

    @Test
    void describeNamesTheServerWithoutCredentials() {
        // The shared server has no authorization: it ignores the credentials in the URL.
        String withCredentials = TestJetStream.URL.replace("nats://", "nats://bob:s3cret@");
        try (JetStreamStorage storage = JetStreamStorage.builder().servers(withCredentials).connectionName("described")
                .connect()) {
            assertThat(storage.describe()).isEqualTo("jetstream " + TestJetStream.URL + " (file)")
                    .doesNotContain("s3cret");
            assertThat(storage.maxPendingBytes()).isEqualTo(io.ringbus.core.Storage.DEFAULT_MAX_PENDING_BYTES);
        }
    }
}
