package io.ringbus.server.internal;

import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.ringbus.server.ServerConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.net.ssl.SSLException;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The server's TLS context, rebuilt from the certificate, key and CA files when they change (or
 * when asked, on SIGHUP): each new connection takes the context current when it is accepted, so
 * a reload never touches an established connection.
 *
 * <p>Provider: chosen once, at construction ({@link TlsProviderSelection}): OpenSSL (BoringSSL,
 * netty-tcnative) where it loads, else the JDK's {@code SSLEngine}; a reload keeps it.
 * Protocols: TLS 1.3 and 1.2 only. Keys: PEM, PKCS#8 ({@code BEGIN PRIVATE KEY}, RSA or EC),
 * as Netty's {@link SslContextBuilder#forServer(java.io.File, java.io.File)} reads without
 * BouncyCastle; a PKCS#1 {@code BEGIN RSA PRIVATE KEY} is refused with a message naming the file.
 *
 * <p>Client certificates ({@code tls.verify}): checked in the handshake against {@code tls.ca_file},
 * and again by {@link ClientCertificateCheck} with the same trust manager once the handshake is
 * done, so that a resumed session is held to a full handshake's checks.
 *
 * <p>Thread-safe: {@link #current()} is a volatile read, from any event loop; {@link #reload()}
 * and {@link #reloadIfChanged()} are serialised by a lock and never run on an event loop.
 */
final class ReloadingSslContext {
    private static final Logger LOG = LoggerFactory.getLogger(ReloadingSslContext.class);
    /** The protocols offered: nothing older than TLS 1.2, as nats-server. */
    static final String[] PROTOCOLS = {"TLSv1.3", "TLSv1.2"};

    private final ServerConfig config;
    private final TlsProviderSelection provider;
    private final ReentrantLock lock = new ReentrantLock();
    private volatile Built current;
    /** Modification times and sizes of the files {@link #current} was built from. */
    private List<Long> stamps;

    /**
     * Builds the first context.
     *
     * @throws IllegalArgumentException naming the files when they cannot be read as PEM, or
     *                                  the cause when {@code tls.provider=openssl} cannot load
     */
    ReloadingSslContext(ServerConfig config) {
        this.config = config;
        this.provider = TlsProviderSelection.select(config.tlsProvider());
        this.stamps = stamps();
        this.current = build(config, provider.provider());
    }

    /** @return the TLS implementation in use */
    TlsProviderSelection provider() {
        return provider;
    }

    /** @return the context for a connection accepted now, and its check of client certificates */
    Built current() {
        return current;
    }

    /**
     * A server context and the trust manager it checks client certificates with.
     *
     * @param context the Netty context new connections take
     * @param clients the CA's trust manager with {@code tls.verify}, which {@link ClientCertificateCheck}
     *                uses again after each handshake; {@code null} without
     */
    record Built(SslContext context, X509TrustManager clients) {
    }

    /**
     * Rebuilds the context from the files; on a bad file the old context stays and the error is
     * logged.
     *
     * @return whether a new context is in use
     */
    boolean reload() {
        lock.lock();
        try {
            List<Long> before = stamps();
            current = build(config, provider.provider());
            stamps = before;
            LOG.info("TLS: certificate reloaded from {} (new connections use it)", config.tlsCertFile());
            return true;
        } catch (IllegalArgumentException e) {
            LOG.warn("TLS: reload failed, the previous certificate stays in use: {}", e.getMessage());
            return false;
        } finally {
            lock.unlock();
        }
    }

    /** Reloads when a file's modification time or size changed since the last build. */
    void reloadIfChanged() {
        lock.lock();
        try {
            List<Long> now = stamps();
            if (!now.equals(stamps)) {
                // Whatever the outcome, the same files are not tried again until they change.
                stamps = now;
                reload();
            }
        } finally {
            lock.unlock();
        }
    }

    private List<Long> stamps() {
        List<Long> list = new ArrayList<>(6);
        for (Path file : new Path[] {config.tlsCertFile(), config.tlsKeyFile(), config.tlsCaFile()}) {
            try {
                list.add(file == null ? 0 : Files.getLastModifiedTime(file).toMillis());
                list.add(file == null ? 0 : Files.size(file));
            } catch (IOException e) {
                list.add(-1L); // missing for now (being replaced): a change once it is back
                list.add(-1L);
            }
        }
        return list;
    }

    /**
     * @param sslProvider OpenSSL or the JDK
     * @return a server context from the config's files
     * @throws IllegalArgumentException naming the files when they cannot be used
     */
    static Built build(ServerConfig config, SslProvider sslProvider) {
        try {
            SslContextBuilder builder = SslContextBuilder
                    .forServer(config.tlsCertFile().toFile(), config.tlsKeyFile().toFile())
                    .sslProvider(sslProvider)
                    .protocols(PROTOCOLS)
                    .clientAuth(config.tlsVerify() ? ClientAuth.REQUIRE : ClientAuth.NONE);
            X509TrustManager clients = null;
            if (config.tlsCaFile() != null) {
                TrustManagerFactory trust = trustOf(config.tlsCaFile());
                builder.trustManager(trust);
                clients = config.tlsVerify() ? x509(trust) : null;
            }
            return new Built(builder.build(), clients);
        } catch (SSLException | GeneralSecurityException | IllegalArgumentException e) {
            throw new IllegalArgumentException("TLS: cannot use tls.cert_file " + config.tlsCertFile()
                    + ", tls.key_file " + config.tlsKeyFile()
                    + (config.tlsCaFile() == null ? "" : ", tls.ca_file " + config.tlsCaFile())
                    + " (PEM certificates and a PKCS#8 key expected): " + rootMessage(e), e);
        }
    }

    /** @return a PKIX trust manager factory trusting the certificates in {@code caFile} */
    private static TrustManagerFactory trustOf(Path caFile) throws GeneralSecurityException {
        KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
        try (InputStream in = Files.newInputStream(caFile)) {
            store.load(null, null);
            int n = 0;
            for (Certificate certificate : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                store.setCertificateEntry("ca-" + n++, certificate);
            }
            if (n == 0) {
                throw new IllegalArgumentException("no certificate in tls.ca_file " + caFile);
            }
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read tls.ca_file " + caFile + ": " + e, e);
        }
        TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init(store);
        return factory;
    }

    private static X509TrustManager x509(TrustManagerFactory factory) {
        for (TrustManager manager : factory.getTrustManagers()) {
            if (manager instanceof X509TrustManager x509) {
                return x509;
            }
        }
        throw new IllegalArgumentException("no X.509 trust manager from " + factory.getAlgorithm());
    }

    private static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root == e ? String.valueOf(e.getMessage()) : e.getMessage() + ": " + root;
    }
}
