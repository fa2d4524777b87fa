package io.ringbus.server;

import io.nats.client.Connection;
import io.nats.client.NKey;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.ringbus.core.Scope;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * NKEY users: INFO carries a nonce; jnats signs it with the user's seed and connects; a signature
 * by another key, of another nonce, or missing is an authorization violation.
 */
class NkeyAuthTest {
    private ServerUnderTest server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void aUserWithTheSeedOfAConfiguredKeyConnectsAndAForgedSignatureIsRefused() throws Exception {
        NKey user = NKey.createUser(new SecureRandom());
        NKey other = NKey.createUser(new SecureRandom());
        String publicKey = new String(user.getPublicKey());
        server = ServerUnderTest.start(c -> c.nkey(publicKey, Scope.PUBLIC));

        Options options = new Options.Builder().server(server.url())
                .authHandler(Nats.staticCredentials(null, user.getSeed())).build();
        Connection nc = Nats.connect(options);
        try {
            nc.flush(Duration.ofSeconds(2));
            assertThat(nc.getStatus()).isEqualTo(Connection.Status.CONNECTED);
        } finally {
            nc.close();
        }

        // Another key's signature over the right nonce, sent as the configured key: refused.
        assertThat(rawConnect(publicKey, other)).startsWith("-ERR 'Authorization Violation'");
        // The configured key without a signature: refused.
        assertThat(rawConnect(publicKey, null)).startsWith("-ERR 'Authorization Violation'");
        Options wrong = new Options.Builder().server(server.url()).maxReconnects(0)
                .authHandler(Nats.staticCredentials(null, other.getSeed())).build();
        assertThatThrownBy(() -> Nats.connect(wrong)).isInstanceOf(Exception.class);
    }

    /** Reads INFO, signs its nonce with {@code signer} (or sends no sig), returns the server's answer line. */
    private String rawConnect(String nkey, NKey signer) throws Exception {
        try (Socket socket = new Socket("127.0.0.1", server.port())) {
            socket.setSoTimeout(5_000);
            BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(),
                    StandardCharsets.UTF_8));
            String info = in.readLine();
            String nonce = info.replaceAll(".*\"nonce\":\"([^\"]+)\".*", "$1");
            assertThat(nonce).isNotEqualTo(info);
            String sig = signer == null ? null : Base64.getUrlEncoder().withoutPadding()
                    .encodeToString(signer.sign(nonce.getBytes(StandardCharsets.UTF_8)));
            OutputStream out = socket.getOutputStream();
            out.write(("CONNECT {\"verbose\":false,\"nkey\":\"" + nkey + "\""
                    + (sig == null ? "" : ",\"sig\":\"" + sig + "\"") + "}\r\nPING\r\n")
                    .getBytes(StandardCharsets.UTF_8));
            out.flush();
            return in.readLine();
        }
    }
}
