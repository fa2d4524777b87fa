package io.ringbus.server.internal;

import io.ringbus.core.Durations;
import io.ringbus.core.Federation;
import io.ringbus.core.spi.FederationOptions;
import io.ringbus.core.spi.FederationProvider;

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
 * <p>The link itself comes from ringbus-federation, found at run time ({@link RuntimePlugins}): the
 * server does not compile against it. Naming servers without it on the class or module path is an
 * error that names the option and the module.
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
    private final FederationProvider provider;
    private String servers;
    private String user;
    private String password;
    private String token;
    private Path caFile;
    private Duration reconnectWait;
    private Integer maxReconnects;

    /** Settings for the link that ringbus-federation provides, if it is on the class or module path. */
    public FederationSettings() {
        this(RuntimePlugins.federation().orElse(null));
    }

    /** @param provider makes the link; {@code null} when ringbus-federation is not there */
    public FederationSettings(FederationProvider provider) {
        this.provider = provider;
    }

    /**
     * {@code federation.servers} in the configuration file.
     *
     * @param urls comma-separated NATS URLs
     * @return this
     * @throws IllegalArgumentException naming the value when empty, or the module when the link's is not there
     */
    public FederationSettings servers(String urls) {
        return servers(urls, "federation.servers");
    }

    /**
     * @param urls   comma-separated NATS URLs
     * @param option the option or key that gives them, for the error when the link's module is not there
     * @return this
     * @throws IllegalArgumentException naming the value when empty, or the option and the module when
     *                                  ringbus-federation is not on the class or module path
     */
    public FederationSettings servers(String urls, String option) {
        if (urls == null || urls.isBlank()) {
            throw new IllegalArgumentException("federation servers must name at least one NATS URL: '" + urls + "'");
        }
        if (provider == null) {
            throw RuntimePlugins.missing(option, "the federation link");
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

    /**
     * @return the link, unstarted, or {@code null} when no servers were given
     * @throws IllegalArgumentException naming the file when {@code federation.ca_file} is not PEM
     *                                  certificates, or the value the link refuses
     */
    public Federation build() {
        if (servers == null) {
            return null;
        }
        return provider.federation(new FederationOptions(servers, user, password, token,
                caFile != null ? trusting(caFile) : null, reconnectWait, maxReconnects));
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
