package io.ringbus.server.internal;

import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslProvider;
import io.ringbus.server.TlsProvider;

/**
 * The TLS implementation a server uses, chosen once from {@code tls.provider}: OpenSSL
 * (BoringSSL from netty-tcnative-boringssl-static) where it loads and offers every protocol in
 * {@link ReloadingSslContext#PROTOCOLS}, the JDK's {@code SSLEngine} otherwise.
 *
 * @param provider    what Netty's {@code SslContextBuilder} is given
 * @param description for the start-up log and {@code /varz}, e.g. {@code OpenSSL (BoringSSL)} or
 *                    {@code JDK (OpenSSL not available: ...)}
 */
record TlsProviderSelection(SslProvider provider, String description) {

    /**
     * @param requested the configured choice
     * @return the provider to use
     * @throws IllegalArgumentException when {@link TlsProvider#OPENSSL} is asked for and cannot
     *                                  be used, naming the cause
     */
    static TlsProviderSelection select(TlsProvider requested) {
        return switch (requested) {
            case JDK -> new TlsProviderSelection(SslProvider.JDK, "JDK (tls.provider=jdk)");
            case OPENSSL -> {
                String missing = openSslMissing();
                if (missing != null) {
                    throw new IllegalArgumentException("TLS: tls.provider=openssl, but OpenSSL cannot be used: "
                            + missing);
                }
                yield openSsl();
            }
            case AUTO -> {
                String missing = openSslMissing();
                yield missing == null ? openSsl()
                        : new TlsProviderSelection(SslProvider.JDK, "JDK (OpenSSL not available: " + missing + ")");
            }
        };
    }

    private static TlsProviderSelection openSsl() {
        return new TlsProviderSelection(SslProvider.OPENSSL, "OpenSSL (" + OpenSsl.versionString() + ")");
    }

    /** @return why OpenSSL cannot serve the configured protocols, or {@code null} when it can */
    private static String openSslMissing() {
        if (!OpenSsl.isAvailable()) {
            Throwable cause = OpenSsl.unavailabilityCause();
            return cause == null ? "netty-tcnative did not load" : cause.toString();
        }
        if (!SslProvider.isTlsv13Supported(SslProvider.OPENSSL)) {
            return OpenSsl.versionString() + " offers no TLSv1.3";
        }
        return null;
    }
}
