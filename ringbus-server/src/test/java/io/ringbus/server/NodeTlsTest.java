package io.ringbus.server;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@link TlsClientContractTest} with nats.js: {@code src/test/node/clienttest.js}, whose
 * connections take nats.js's {@code tls} option ({@code caFile}, {@code certFile},
 * {@code keyFile}, {@code handshakeFirst}) from the environment. Needs what {@link NodeClientTest}
 * needs; skipped likewise.
 *
 * <p>nats.js 2.29.3 (package-lock.json) can start TLS before INFO ({@code tls.handshakeFirst}):
 * checked here against {@code tls.handshake_first}.
 */
class NodeTlsTest extends TlsClientContractTest {
    @Override
    void buildProgram() {
        NodeClientTest.assumeNodeClient();
    }

    @Override
    List<String> command(String url, String caseName) {
        return NodeClientTest.nodeCommand(url, caseName);
    }

    /** Node's (OpenSSL's) verification error codes. */
    @Override
    String refusal(CertificateProblem problem) {
        return switch (problem) {
            case UNTRUSTED -> "UNABLE_TO_VERIFY_LEAF_SIGNATURE";
            case OTHER_HOST -> "ERR_TLS_CERT_ALTNAME_INVALID .*Host: localhost\\. is not in the cert's altnames: "
                    + "DNS:other\\.example";
            case EXPIRED -> "CERT_HAS_EXPIRED";
            case NOT_YET_VALID -> "CERT_NOT_YET_VALID";
        };
    }

    @Test
    void tlsHandshakeFirstDeliversInOrder() throws Exception {
        try (ServerUnderTest server = tlsServer(serverCert, c -> c.tlsHandshakeFirst(true))) {
            Map<String, String> env = new HashMap<>(settings(ca, null));
            env.put("CLIENTTEST_TLS_FIRST", "1");
            passes(server.port(), "pubsub", env);
            assertThat(server.server.stats().tlsHandshakeFailures()).isZero();
            assertThat(server.server.stats().tlsHandshakeTimeouts()).isZero();
        }
    }
}
