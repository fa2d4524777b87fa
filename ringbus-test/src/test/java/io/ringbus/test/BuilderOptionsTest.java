package io.ringbus.test;

import io.nats.client.Connection;
import io.nats.client.Nats;
import io.ringbus.core.Scope;
import io.ringbus.server.ServerConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;

import static io.ringbus.test.TokenOptionTest.once;
import static io.ringbus.test.TokenOptionTest.refused;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The programmatic form: a user and password, a max payload, the monitor and a server setting. */
@SuppressWarnings("try") // jnats Connection.close() throws InterruptedException; the tests declare it
class BuilderOptionsTest {
    @RegisterExtension
    static final RingbusServerExtension SERVER = RingbusServerExtension.builder()
            .user("alice", "pw")
            .clientScope(Scope.PRIVATE)
            .maxPayload(1024)
            .monitor()
            .server(config -> config.maxSubscriptions(7))
            .build();

    @Test
    void refusesAClientWithoutCredentials() {
        assertThatThrownBy(() -> Nats.connect(refused(SERVER.url()).build()))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("Authorization Violation");
    }

    @Test
    void acceptsTheUserWithTheConfiguredMaxPayload(RingbusServerHandle server) throws Exception {
        assertThat(server).isSameAs(SERVER.handle());
        try (Connection nats = Nats.connect(once(SERVER.url()).userInfo("alice", "pw").build())) {
            assertThat(nats.getServerInfo().getMaxPayload()).isEqualTo(1024);
        }
    }

    @Test
    void servesMonitoringOnAFreePortNot8222(RingbusServerHandle server) {
        assertThat(server.monitorPort()).isPositive().isNotEqualTo(ServerConfig.DEFAULT_MONITOR_PORT);
    }

    @Test
    void rejectsAUserWithoutAPassword() {
        assertThatThrownBy(() -> RingbusServerExtension.builder().user("alice", "").build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("user='alice'");
    }
}
