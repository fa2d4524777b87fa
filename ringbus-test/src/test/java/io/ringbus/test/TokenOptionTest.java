package io.ringbus.test;

import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.Options;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code @RingbusServerTest(token = ...)}: a client without the token is refused. */
@SuppressWarnings("try") // jnats Connection.close() throws InterruptedException; the tests declare it
@RingbusServerTest(token = "s3cret")
class TokenOptionTest {

    static Options.Builder once(String url) {
        return new Options.Builder().server(url).connectionTimeout(Duration.ofSeconds(5)).noReconnect();
    }

    /**
     * Options for a client the server refuses: jnats 2.21 reports a refused CONNECT only when its
     * connection timeout ends (the server sends -ERR and closes at once), so keep that short.
     */
    static Options.Builder refused(String url) {
        return once(url).connectionTimeout(Duration.ofMillis(500));
    }

    @Test
    void refusesAClientWithoutTheToken(RingbusServerHandle server) {
        assertThatThrownBy(() -> Nats.connect(refused(server.url()).build()))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("Authorization Violation");
        assertThat(server.stats().authFailures()).isPositive();
    }

    @Test
    void acceptsAClientWithTheToken(@RingbusUrl String url) throws Exception {
        try (Connection nats = Nats.connect(once(url).token("s3cret".toCharArray()).build())) {
            assertThat(nats.getStatus()).isEqualTo(Connection.Status.CONNECTED);
            assertThat(nats.getServerInfo().isAuthRequired()).isTrue();
        }
    }
}
