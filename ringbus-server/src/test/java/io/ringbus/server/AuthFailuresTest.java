package io.ringbus.server;

import io.nats.client.NKey;
import io.nats.client.support.JsonValue;
import io.ringbus.core.Scope;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

import static io.ringbus.server.MonitorClient.array;
import static io.ringbus.server.MonitorClient.field;
import static io.ringbus.server.MonitorClient.find;
import static io.ringbus.server.MonitorClient.number;
import static io.ringbus.server.MonitorClient.string;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each way a client fails the built-in authenticators is counted under its own reason, in
 * {@link ServerStats}, {@code /varz} and (see ServerMetricsTest) the meters, while the client
 * hears only nats-server's {@code Authorization Violation}; {@code /connz?auth=1} names who each
 * accepted client is, and never a token.
 */
class AuthFailuresTest {
    private ServerUnderTest server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void everyRefusalIsCountedUnderItsReasonAndConnzNamesWhoEachClientIs() throws Exception {
        String nkey = new String(NKey.createUser(new SecureRandom()).getPublicKey());
        server = ServerUnderTest.start(c -> c.monitorPort(0).authTimeout(Duration.ofMillis(300))
                .token("t0k3n-secret", Scope.PUBLIC).user("alice", "pw", Scope.PRIVATE).nkey(nkey, Scope.PUBLIC));

        refused("{}");
        refused("{\"user\":\"bob\",\"pass\":\"pw\"}");
        refused("{\"user\":\"alice\",\"pass\":\"wrong\"}");
        refused("{\"auth_token\":\"guess\"}");
        refused("{\"nkey\":\"UNKNOWNKEY\",\"sig\":\"AAAA\"}");
        refused("{\"nkey\":\"" + nkey + "\"}");
        try (RawClient early = RawClient.connect(server.port())) {
            early.readLine(); // INFO
            early.send("SUB x 1\r\n");
            assertThat(early.readUntilClosed()).contains("-ERR 'Authorization Violation'");
        }
        try (RawClient silent = RawClient.connect(server.port())) {
            silent.readLine(); // INFO, then nothing: the auth timeout closes it
            assertThat(silent.readUntilClosed()).contains("-ERR 'Authentication Timeout'");
        }

        Map<AuthFailure, Long> expected = new EnumMap<>(AuthFailure.class);
        for (AuthFailure reason : AuthFailure.values()) {
            expected.put(reason, 0L);
        }
        for (AuthFailure reason : List.of(AuthFailure.NO_CREDENTIALS, AuthFailure.UNKNOWN_USER,
                AuthFailure.BAD_PASSWORD, AuthFailure.UNKNOWN_TOKEN, AuthFailure.UNKNOWN_NKEY,
                AuthFailure.BAD_SIGNATURE, AuthFailure.NOT_AUTHENTICATED, AuthFailure.AUTH_TIMEOUT)) {
            expected.put(reason, 1L);
        }
        ServerStats stats = server.server.stats();
        assertThat(stats.authFailuresByReason()).isEqualTo(expected);
        assertThat(stats.authFailures()).isEqualTo(8);

        MonitorClient monitor = new MonitorClient(server.monitorPort());
        String[] asAlice = {"Authorization", "Basic " + Base64.getEncoder().encodeToString("alice:pw".getBytes(UTF_8))};
        JsonValue byReason = field(field(monitor.json("/varz", asAlice), "ringbus"), "auth_failures_by_reason");
        for (Map.Entry<AuthFailure, Long> reason : expected.entrySet()) {
            assertThat(number(byReason, reason.getKey().tag())).as(reason.getKey().tag()).isEqualTo(reason.getValue());
        }

        try (RawClient alice = RawClient.connect(server.port());
             RawClient tokenClient = RawClient.connect(server.port())) {
            alice.handshake("{\"verbose\":false,\"name\":\"a\",\"user\":\"alice\",\"pass\":\"pw\"}");
            tokenClient.handshake("{\"verbose\":false,\"name\":\"t\",\"auth_token\":\"t0k3n-secret\"}");
            String connz = monitor.get("/connz?auth=1", asAlice).body();
            List<JsonValue> connections = array(monitor.json("/connz?auth=1", asAlice), "connections");
            assertThat(string(find(connections, "name", "a"), "authorized_user")).isEqualTo("alice");
            assertThat(string(find(connections, "name", "t"), "authorized_user")).isEqualTo("token");
            assertThat(connz).doesNotContain("t0k3n-secret");
            assertThat(monitor.get("/connz", asAlice).body()).as("only with auth=1, as nats-server")
                    .doesNotContain("authorized_user");
        }
    }

    private void refused(String connectJson) {
        try (RawClient client = RawClient.connect(server.port())) {
            client.readLine(); // INFO
            client.send("CONNECT " + connectJson + "\r\nPING\r\n");
            assertThat(client.readUntilClosed()).as(connectJson).containsExactly("-ERR 'Authorization Violation'");
        }
    }
}
