package io.ringbus.server.internal;

import io.ringbus.core.Scope;
import io.ringbus.server.AuthFailure;
import io.ringbus.server.ServerConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link Handshake}: INFO, CONNECT and authentication on a real connection over an
 * {@code EmbeddedChannel}. Error texts and which errors close the connection are nats-server's.
 */
class HandshakeTest {
    private static final String TOKEN = "s3cret";
    private static final Duration AUTH_TIMEOUT = Duration.ofSeconds(1);

    private EmbeddedServer server;

    @AfterEach
    void close() {
        if (server != null) {
            server.close();
        }
    }

    private EmbeddedClient withAuth() {
        server = new EmbeddedServer(ServerConfig.builder().token(TOKEN, Scope.PUBLIC).authTimeout(AUTH_TIMEOUT)
                .user("alice", "wonderland", Scope.PUBLIC).build());
        return server.connect();
    }

    @Test
    void infoComesFirstAndAnnouncesAuthentication() {
        EmbeddedClient client = withAuth();

        String info = client.output();

        assertThat(info).startsWith("INFO {").endsWith("}\r\n").contains("\"auth_required\":true")
                .contains("\"headers\":true").containsOnlyOnce("\r\n");
    }

    @Test
    void withoutAuthenticationInfoSaysNothingOfIt() {
        server = EmbeddedServer.defaults();

        assertThat(server.connect().output()).startsWith("INFO {").doesNotContain("auth_required");
    }

    @Test
    void publishBeforeConnectIsAnAuthorizationViolationWhenAuthIsRequired() {
        EmbeddedClient client = withAuth();
        client.output();

        client.send("PUB foo 2\r\nhi\r\n");

        assertThat(client.output()).isEqualTo("-ERR 'Authorization Violation'\r\n");
        assertThat(client.isOpen()).isFalse();
    }

    @Test
    void pingBeforeConnectIsAnsweredWhileAuthenticationIsPending() {
        EmbeddedClient client = withAuth();
        client.output();

        assertThat(client.send("PING\r\n").output()).isEqualTo("PONG\r\n");
        assertThat(client.isOpen()).isTrue();
    }

    @Test
    void withoutAuthenticationAPublishBeforeConnectIsAccepted() {
        server = EmbeddedServer.defaults();
        EmbeddedClient subscriber = server.connect("{\"verbose\":false}");
        subscriber.send("SUB foo 1\r\n");
        EmbeddedClient publisher = server.connect();
        publisher.output();

        publisher.send("PUB foo 2\r\nhi\r\n");

        assertThat(subscriber.output()).isEqualTo("MSG foo 1 2\r\nhi\r\n");
        // Until CONNECT says otherwise the client is verbose, as nats-server's defaults.
        assertThat(publisher.output()).isEqualTo("+OK\r\n");
    }

    @Test
    void clientThatDoesNotConnectInTimeIsClosedWithAuthenticationTimeout() {
        EmbeddedClient client = withAuth();
        client.output();

        client.advance(AUTH_TIMEOUT.minusMillis(1));
        assertThat(client.output()).isEmpty();
        assertThat(client.isOpen()).isTrue();

        client.advance(Duration.ofMillis(1));
        assertThat(client.output()).isEqualTo("-ERR 'Authentication Timeout'\r\n");
        assertThat(client.isOpen()).isFalse();
        assertThat(server.context.counters().authFailures(AuthFailure.AUTH_TIMEOUT)).isEqualTo(1);
    }

    @Test
    void goodTokenInVerboseModeGetsOkAndNoTimeout() {
        EmbeddedClient client = withAuth();
        client.output();

        client.send("CONNECT {\"verbose\":true,\"auth_token\":\"" + TOKEN + "\"}\r\n");
        assertThat(client.output()).isEqualTo("+OK\r\n");

        client.advance(AUTH_TIMEOUT.multipliedBy(3));
        assertThat(client.isOpen()).isTrue();
        assertThat(client.send("PING\r\n").output()).isEqualTo("PONG\r\n");
    }

    @Test
    void goodUserAndPasswordOpenTheConnectionForPublishing() {
        EmbeddedClient client = withAuth();
        client.output();

        client.send("CONNECT {\"verbose\":false,\"user\":\"alice\",\"pass\":\"wonderland\"}\r\n"
                + "SUB foo 1\r\nPUB foo 2\r\nhi\r\n");

        assertThat(client.output()).isEqualTo("MSG foo 1 2\r\nhi\r\n");
    }

    @Test
    void wrongCredentialsAreAnAuthorizationViolation() {
        EmbeddedClient client = withAuth();
        client.output();

        client.send("CONNECT {\"verbose\":false,\"user\":\"alice\",\"pass\":\"looking-glass\"}\r\nPING\r\n");

        assertThat(client.output()).isEqualTo("-ERR 'Authorization Violation'\r\n");
        assertThat(client.isOpen()).isFalse();
    }

    @Test
    void terseClientGetsNoOk() {
        server = EmbeddedServer.defaults();
        EmbeddedClient client = server.connect();
        client.output();

        assertThat(client.send("CONNECT {\"verbose\":false}\r\n").output()).isEmpty();
    }

    @Test
    void connectThatIsNotJsonIsAProtocolErrorThatCloses() {
        server = EmbeddedServer.defaults();
        EmbeddedClient client = server.connect();
        client.output();

        client.send("CONNECT {\"verbose\":\r\nPING\r\n");

        assertThat(client.output()).isEqualTo("-ERR 'Invalid Client Protocol'\r\n");
        assertThat(client.isOpen()).isFalse();
        assertThat(server.context.counters.protocolErrors.sum()).isEqualTo(1);
    }

    @Test
    void noRespondersWithoutHeadersIsRefused() {
        server = EmbeddedServer.defaults();
        EmbeddedClient client = server.connect();
        client.output();

        client.send("CONNECT {\"verbose\":false,\"no_responders\":true,\"headers\":false}\r\nPING\r\n");

        assertThat(client.output()).isEqualTo("-ERR 'No Responders Requires Headers Support'\r\n");
        assertThat(client.isOpen()).isFalse();
    }
}
