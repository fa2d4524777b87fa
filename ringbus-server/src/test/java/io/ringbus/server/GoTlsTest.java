package io.ringbus.server;

import java.util.List;

/**
 * The {@link TlsClientContractTest} with nats.go: the program of {@link GoClientTest}, whose
 * connections take {@code nats.RootCAs} and {@code nats.ClientCert} from the environment
 * ({@code src/test/go/clienttest/tls.go}).
 *
 * <p>No TLS-first case: Debian's nats.go 1.22.1 has no {@code TLSHandshakeFirst} (a later version
 * added it, nats-io/nats.go#1433), so it can only start TLS after INFO; against a {@code handshake_first} server it is
 * closed at {@code tls.timeout}, which the contract checks.
 */
class GoTlsTest extends TlsClientContractTest {
    @Override
    void buildProgram() throws Exception {
        GoClientTest.buildGoProgram();
    }

    @Override
    List<String> command(String url, String caseName) {
        return GoClientTest.goCommand(url, caseName);
    }

    /** Go's crypto/tls and crypto/x509 wording. */
    @Override
    String refusal(CertificateProblem problem) {
        return switch (problem) {
            case UNTRUSTED -> "x509: certificate signed by unknown authority";
            case OTHER_HOST -> "x509: certificate is valid for other\\.example, not localhost";
            case EXPIRED -> "x509: certificate has expired or is not yet valid: current time \\S+ is after";
            case NOT_YET_VALID -> "x509: certificate has expired or is not yet valid: current time \\S+ is before";
        };
    }
}
