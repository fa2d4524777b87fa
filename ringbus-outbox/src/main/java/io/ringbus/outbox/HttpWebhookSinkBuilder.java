package io.ringbus.outbox;

import io.ringbus.core.Headers;
import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Duration;

/**
 * Configures an {@link HttpWebhookSink}; every setter checks its value at once and names a bad
 * one. Not thread-safe.
 */
public final class HttpWebhookSinkBuilder {
    final URI uri;
    final Headers.Builder headers = Headers.builder();
    String name = "http";
    int maxConcurrency = HttpWebhookSink.DEFAULT_MAX_CONCURRENCY;
    Duration requestTimeout = HttpWebhookSink.DEFAULT_REQUEST_TIMEOUT;
    Duration connectTimeout = HttpWebhookSink.DEFAULT_CONNECT_TIMEOUT;

    HttpWebhookSinkBuilder(URI uri) {
        if (uri == null || !uri.isAbsolute() || uri.getHost() == null
                || !("http".equalsIgnoreCase(uri.getScheme()) || "https".equalsIgnoreCase(uri.getScheme()))) {
            throw new IllegalArgumentException("uri must be an absolute http or https URL with a host: uri=" + uri);
        }
        this.uri = uri;
    }

    /**
     * @param name the sink's name in relay stats and logs (default {@code http})
     * @return this builder
     * @throws IllegalArgumentException when blank
     */
    public HttpWebhookSinkBuilder name(String name) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("name must be non-blank: name='" + name + "'");
        }
        this.name = name;
        return this;
    }

    /**
     * @param maxConcurrency the most requests in flight at once, at least 1 (default
     *                       {@value HttpWebhookSink#DEFAULT_MAX_CONCURRENCY}); also the most
     *                       connections the sink keeps open to the host
     * @return this builder
     * @throws IllegalArgumentException when below 1
     */
    public HttpWebhookSinkBuilder maxConcurrency(int maxConcurrency) {
        if (maxConcurrency < 1) {
            throw new IllegalArgumentException("maxConcurrency must be at least 1: maxConcurrency=" + maxConcurrency);
        }
        this.maxConcurrency = maxConcurrency;
        return this;
    }

    /**
     * @param requestTimeout how long a request may wait for its response headers before it counts
     *                       as failed and is retried (default 10 s); keep it below the relay's
     *                       delivery timeout
     * @return this builder
     * @throws IllegalArgumentException when null, zero or negative
     */
    public HttpWebhookSinkBuilder requestTimeout(Duration requestTimeout) {
        this.requestTimeout = positive("requestTimeout", requestTimeout);
        return this;
    }

    /**
     * @param connectTimeout how long opening a connection may take (default 5 s)
     * @return this builder
     * @throws IllegalArgumentException when null, zero or negative
     */
    public HttpWebhookSinkBuilder connectTimeout(Duration connectTimeout) {
        this.connectTimeout = positive("connectTimeout", connectTimeout);
        return this;
    }

    /**
     * Adds a header to every request (credentials, say); a row header of the same name
     * (case-insensitive) replaces it for that row.
     *
     * @param name  the header name
     * @param value the value; calling again with the same name adds another value
     * @return this builder
     * @throws IllegalArgumentException naming the header when the HTTP client refuses it (an
     *                                  invalid name or value, or one the client sets itself such as
     *                                  {@code Content-Length})
     */
    public HttpWebhookSinkBuilder header(String name, String value) {
        try {
            HttpRequest.newBuilder().header(name, value);
            headers.add(name, value);
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new IllegalArgumentException("header not allowed in an HTTP request: " + name + "=" + value
                    + " (" + e.getMessage() + ")", e);
        }
        return this;
    }

    /**
     * Creates the sink and its HTTP client (no connection is opened yet).
     *
     * @return the sink; close it after the relays that use it
     */
    public HttpWebhookSink build() {
        return HttpWebhookSink.create(this);
    }

    private static Duration positive(String what, Duration value) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(what + " must be positive: " + what + "=" + value);
        }
        return value;
    }
}
