package io.ringbus.server;

import io.ringbus.core.Scope;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.net.ssl.SSLContext;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code https_port}: the monitoring port serves HTTPS with the client port's certificate (a client
 * trusting that CA reads {@code /varz}, which reports the port as {@code https_port}); plain HTTP
 * and a client trusting another CA get nothing; without TLS configured the setting is refused.
 */
class MonitorHttpsTest {
    @TempDir
    Path dir;

    @Test
    void theMonitorServesHttpsWithTheClientPortsCertificate() throws Exception {
        TestCertificates certs = new TestCertificates(dir);
        TestCertificates.Pair ca = certs.ca("ca");
        TestCertificates.Pair otherCa = certs.ca("other-ca");
        TestCertificates.Pair cert = certs.server(ca, "server");
        try (ServerUnderTest server = ServerUnderTest.start(c -> c.tlsCertFile(cert.cert()).tlsKeyFile(cert.key())
                .monitorPort(0).monitorTls(true))) {
            URI varz = URI.create("https://localhost:" + server.monitorPort() + "/varz");
            HttpResponse<String> response = get(TestCertificates.context(ca, null), varz);
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.body()).contains("\"https_port\":" + server.monitorPort()).contains("\"http_port\":0");

            assertThatThrownBy(() -> get(TestCertificates.context(otherCa, null), varz))
                    .as("a certificate the client does not trust").isInstanceOf(IOException.class);
            URI plain = URI.create("http://localhost:" + server.monitorPort() + "/varz");
            assertThatThrownBy(() -> get(SSLContext.getDefault(), plain)).as("plain HTTP")
                    .isInstanceOf(IOException.class);
        }
    }

    @Test
    void httpsWithoutTlsConfiguredIsRefused() {
        assertThatThrownBy(() -> ServerConfig.builder().token("t", Scope.PUBLIC).monitorTls(true).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("monitorTls")
                .hasMessageContaining("tlsCertFile");
    }

    private static HttpResponse<String> get(SSLContext tls, URI uri) throws IOException, InterruptedException {
        HttpClient client = HttpClient.newBuilder().sslContext(tls).connectTimeout(Duration.ofSeconds(5)).build();
        return client.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
