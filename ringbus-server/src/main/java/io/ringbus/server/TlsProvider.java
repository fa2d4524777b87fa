package io.ringbus.server;

/**
 * Which TLS implementation serves the client port ({@code tls.provider}): both sit behind
 * Netty's {@code SslHandler} and accept the same files and settings.
 */
public enum TlsProvider {
    /** OpenSSL where netty-tcnative loads (and offers TLS 1.3), the JDK's otherwise; the default. */
    AUTO,
    /** OpenSSL (BoringSSL, netty-tcnative): the server does not start when it cannot load. */
    OPENSSL,
    /** The JDK's {@code SSLEngine}. */
    JDK;

    /**
     * @param value {@code auto}, {@code openssl} or {@code jdk}, any case
     * @return the provider
     * @throws IllegalArgumentException naming the value otherwise
     */
    public static TlsProvider parse(String value) {
        for (TlsProvider provider : values()) {
            if (provider.name().equalsIgnoreCase(value.strip())) {
                return provider;
            }
        }
        throw new IllegalArgumentException("tls.provider must be auto, openssl or jdk: tls.provider='" + value + "'");
    }
}
