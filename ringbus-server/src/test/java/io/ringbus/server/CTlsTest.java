package io.ringbus.server;

import java.util.List;

/**
 * The {@link TlsClientContractTest} with nats.c: the program of {@link CClientTest}, whose
 * connections take {@code natsOptions_LoadCATrustedCertificates},
 * {@code natsOptions_LoadCertificatesChain} and {@code natsOptions_SetExpectedHostname} (nats.c
 * checks the host name only when given one) from the environment ({@code src/test/c/tls.c}).
 *
 * <p>No TLS-first case: Debian's nats.c 3.4.1 has no {@code natsOptions_TLSHandshakeFirst}
 * (a later version added it, nats-io/nats.c#780), so it can only start TLS after INFO; against a {@code handshake_first}
 * server it is closed at {@code tls.timeout}, which the contract checks.
 */
class CTlsTest extends TlsClientContractTest {
    @Override
    void buildProgram() throws Exception {
        CClientTest.buildCProgram();
    }

    @Override
    List<String> command(String url, String caseName) {
        return CClientTest.cCommand(url, caseName);
    }

    /** OpenSSL's verification errors, as nats.c reports them ("SSL handshake error: <code>:<text>"). */
    @Override
    String refusal(CertificateProblem problem) {
        return switch (problem) {
            case UNTRUSTED -> "SSL handshake error: 20:unable to get local issuer certificate";
            case OTHER_HOST -> "SSL handshake error: 62:hostname mismatch:expected=localhost";
            case EXPIRED -> "SSL handshake error: 10:certificate has expired";
            case NOT_YET_VALID -> "SSL handshake error: 9:certificate is not yet valid";
        };
    }
}
