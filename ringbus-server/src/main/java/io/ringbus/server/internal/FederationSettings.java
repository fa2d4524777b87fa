package io.ringbus.server.internal;

import io.ringbus.core.Durations;
import io.ringbus.federation.NatsFederation;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.time.Duration;

/**
 * The {@code federation.*} settings of the config file and {@code --federation}: the NATS servers
 * this node shares its PUBLIC and FEDERATED subjects through, and the link's credentials. Without
 * servers there is no link.
 *
 * <pre>
 * federation.servers  = nats://a:4222,nats://b:4222
 * federation.user     = ringbus:secret        (or federation.token = ...)
 * federation.ca_file  = /etc/ringbus/nats-ca.pem   (TLS to the servers, trusting this CA)
 * federation.reconnect_wait = 2s
 * federation.max_reconnects = -1                   (for ever)
 * </pre>
 *
 * <p>Not thread-safe: filled at start-up.
 */
public final class FederationSettings {
    private String servers;
    private String user;
    private String password;
    private String token;
    private Path caFile;
    private Duration reconnectWait;
    private Integer maxReconnects;

    /**
     * @param urls comma-separated NATS URLs
     * @return this
     * @throws IllegalArgumentException naming the value when empty
     */
    public FederationSettings servers(String urls) {
        if (urls == null || urls.isBlank()) {
            throw new IllegalArgumentException("federation servers must name at least one NATS URL: '" + urls + "'");
        }
        this.servers = urls;
        return this;
    }

    /**
     * @param userAndPassword {@code user:password}
     * @return this
     * @throws IllegalArgumentException when there is no colon
     */
    public FederationSettings user(String userAndPassword) {
        int colon = userAndPassword.indexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException("expected <user>:<password>");
        }
        this.user = userAndPassword.substring(0, colon);
        this.password = userAndPassword.substring(colon + 1);
        return this;
    }

    /**
     * @param value the link's authentication token
     * @return this
     */
    public FederationSettings token(String value) {
        this.token = value;
        return this;
    }

    /**
     * @param pem a PEM file of the CA that signed the NATS servers' certificates: the link uses TLS
     * @return this
     */
    public FederationSettings caFile(Path pem) {
        this.caFile = pem;
        return this;
    }

    /**
     * @param text a duration ({@link Durations})
     * @return this
     */
    public FederationSettings reconnectWait(String text) {
        this.reconnectWait = Durations.parse(text);
        return this;
    }

    /**
     * @param count reconnect attempts, -1 for ever
     * @return this
     */
    public FederationSettings maxReconnects(int count) {
        this.maxReconnects = count;
        return this;
    }

    /** @return the servers, or {@code null} when the node is not federated */
    public String servers() {
        return servers;
    }

    /** @return the link, or {@code null} when no servers were given */
    public NatsFederation build() {
        if (servers == null) {
            return null;
        }
        NatsFederation.Builder builder = NatsFederation.builder(servers);
        if (user != null) {
            builder.user(user, password);
        }
        if (token != null) {
            builder.token(token);
        }
        if (caFile != null) {
            builder.tls(trusting(caFile));
        }
        if (reconnectWait != null) {
            builder.reconnectWait(reconnectWait);
        }
        if (maxReconnects != null) {
            builder.maxReconnects(maxReconnects);
        }
        return builder.build();
    }

    /** @return TLS that trusts the CA certificates in {@code pem} */
    private static SSLContext trusting(Path pem) {
        try (InputStream in = Files.newInputStream(pem)) {
            KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
            trust.load(null, null);
            int n = 0;
            for (Certificate certificate : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                trust.setCertificateEntry("ca-" + n++, certificate);
            }
            if (n == 0) {
                throw new IllegalArgumentException("no certificate in federation.ca_file " + pem);
            }
            TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            factory.init(trust);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, factory.getTrustManagers(), null);
            return context;
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalArgumentException("federation.ca_file " + pem + " cannot be read as PEM certificates: "
                    + e.getMessage(), e);
        }
    }
}
