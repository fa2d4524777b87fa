package io.ringbus.outbox;

import io.ringbus.core.Headers;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * Delivers each row as an HTTP {@code POST} of its payload to one URL (a webhook), with the JDK's
 * {@link HttpClient#sendAsync}: no thread waits while a request is in flight.
 *
 * <pre>{@code
 * HttpWebhookSink sink = HttpWebhookSink.builder(URI.create("https://hooks.example.com/orders"))
 *         .maxConcurrency(50).requestTimeout(Duration.ofSeconds(5))
 *         .header("Authorization", "Bearer " + token).build();
 * outbox.relay().sink(sink).start();
 * }</pre>
 *
 * <p><b>Request.</b> The body is the payload. Headers, in this order: the sink's configured
 * headers (except those the row also has, by case-insensitive name: the row's win), every row
 * header, {@value OutboxEvent#EVENT_ID_HEADER}, {@value #SUBJECT_HEADER}, and
 * {@value OutboxEvent#KEY_HEADER} when the row has a key; {@code Content-Type:
 * application/octet-stream} unless a row or sink header sets it. Row headers the JDK client sets
 * itself ({@code Connection}, {@code Content-Length}, {@code Expect}, {@code Host},
 * {@code Upgrade}) are left out. Redirects are not followed.
 *
 * <p><b>Outcome.</b> 2xx = delivered. 408 and 429 = retry. Any other 4xx =
 * {@link PermanentDeliveryException} (dead letter at once), as is a row header the HTTP client
 * refuses (a name or value that is not valid HTTP). 1xx/3xx/5xx, the request timeout, and a
 * connection error = retry: the stage fails with an {@link IOException} naming the status (or
 * the cause) and the URL. The response body is discarded.
 *
 * <p><b>Concurrency and connections.</b> {@link #maxConcurrency()} is the bound the relay keeps
 * on requests in flight through this sink (per relay: relays sharing one sink each have that
 * many). The sink owns one {@link HttpClient}, speaking HTTP/1.1 so that each request in flight
 * holds one pooled keep-alive connection and idle ones are reused: the number of connections
 * to the host stays at most the number of requests in flight, as with an SDK's connection pool
 * of {@code maxConcurrency} (HTTP/2 would multiplex every request onto one connection, whose
 * stream limit the server chooses). The client keeps its default executor, a cached pool it
 * owns and stops on close: the client's selector thread does the I/O, the executor only runs
 * short completions, so it holds no thread per request and needs no virtual threads. Keep the
 * request timeout below the relay's delivery timeout: when the relay gives up first it frees the
 * slot while the request still runs, and the bound no longer holds.
 *
 * <p>Thread-safe; {@link #deliver} never blocks.
 */
public final class HttpWebhookSink implements OutboxSink {
    /** The header that carries {@link OutboxEvent#subject()}. */
    public static final String SUBJECT_HEADER = "Ringbus-Subject";
    /** Default bound on requests in flight. */
    public static final int DEFAULT_MAX_CONCURRENCY = 50;
    /** Default time one request may take, from sending to the response headers. */
    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(10);
    /** Default time to open a connection. */
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(5);

    private static final String CONTENT_TYPE = "Content-Type";
    private static final String DEFAULT_CONTENT_TYPE = "application/octet-stream";
    /** Headers {@link HttpRequest.Builder#header} refuses: the client sets them itself. */
    private static final Set<String> CLIENT_HEADERS = Set.of("connection", "content-length", "expect", "host", "upgrade");

    private final URI uri;
    private final String name;
    private final int maxConcurrency;
    private final Duration requestTimeout;
    private final Headers headers;
    private final HttpClient client;

    private HttpWebhookSink(HttpWebhookSinkBuilder builder) {
        this.uri = builder.uri;
        this.name = builder.name;
        this.maxConcurrency = builder.maxConcurrency;
        this.requestTimeout = builder.requestTimeout;
        this.headers = builder.headers.build();
        this.client = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(builder.connectTimeout)
                .followRedirects(HttpClient.Redirect.NEVER)
                .build();
    }

    /**
     * Starts configuring a sink that posts to {@code uri}.
     *
     * @param uri an absolute {@code http} or {@code https} URL
     * @return a builder with the defaults
     * @throws IllegalArgumentException naming the URL when it is not absolute http(s) with a host
     */
    public static HttpWebhookSinkBuilder builder(URI uri) {
        return new HttpWebhookSinkBuilder(uri);
    }

    static HttpWebhookSink create(HttpWebhookSinkBuilder builder) {
        return new HttpWebhookSink(builder);
    }

    /** @return the URL rows are posted to */
    public URI uri() {
        return uri;
    }

    /** @return the name given to the builder (default {@code http}) */
    @Override
    public String name() {
        return name;
    }

    /** @return the bound on requests in flight given to the builder */
    @Override
    public int maxConcurrency() {
        return maxConcurrency;
    }

    /**
     * Posts one row; returns at once.
     *
     * @param event the row
     * @return completes with {@code null} on a 2xx; fails as the class describes otherwise
     */
    @Override
    public CompletionStage<?> deliver(OutboxEvent event) {
        HttpRequest request;
        try {
            request = request(event);
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(new PermanentDeliveryException(
                    "row " + event.id() + " cannot be sent to " + uri + ": " + e.getMessage(), e));
        }
        CompletableFuture<Void> result = new CompletableFuture<>();
        send(request, result, true);
        return result;
    }

    /**
     * Sends; a request that failed on the connection itself (not a timeout) is sent once more at
     * once: a keep-alive connection the server closed while idle fails the next request that
     * reuses it ("header parser received no bytes"), and a fresh connection is then the cure, not
     * a backoff. The event id header lets the endpoint drop the rare duplicate.
     */
    private void send(HttpRequest request, CompletableFuture<Void> result, boolean mayResend) {
        try {
            client.sendAsync(request, HttpResponse.BodyHandlers.discarding()).whenComplete((response, failure) -> {
                Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                        ? failure.getCause() : failure;
                if (mayResend && cause instanceof IOException && !(cause instanceof HttpTimeoutException)) {
                    send(request, result, false);
                } else {
                    complete(result, response, failure);
                }
            });
        } catch (RuntimeException e) {
            complete(result, null, e);
        }
    }

    private HttpRequest request(OutboxEvent event) {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri)
                .timeout(requestTimeout)
                .POST(HttpRequest.BodyPublishers.ofByteArray(event.payload()));
        Headers row = event.headers();
        boolean contentType = false;
        for (String header : headers.names()) {
            if (!hasIgnoringCase(row, header)) {
                headers.all(header).forEach(value -> request.header(header, value));
                contentType |= header.equalsIgnoreCase(CONTENT_TYPE);
            }
        }
        for (String header : row.names()) {
            if (!CLIENT_HEADERS.contains(header.toLowerCase(Locale.ROOT))) {
                row.all(header).forEach(value -> request.header(header, value));
                contentType |= header.equalsIgnoreCase(CONTENT_TYPE);
            }
        }
        request.header(OutboxEvent.EVENT_ID_HEADER, event.eventId()).header(SUBJECT_HEADER, event.subject());
        if (event.key() != null) {
            request.header(OutboxEvent.KEY_HEADER, event.key());
        }
        if (!contentType) {
            request.header(CONTENT_TYPE, DEFAULT_CONTENT_TYPE);
        }
        return request.build();
    }

    private static boolean hasIgnoringCase(Headers row, String header) {
        for (String name : row.names()) {
            if (name.equalsIgnoreCase(header)) {
                return true;
            }
        }
        return false;
    }

    private void complete(CompletableFuture<Void> result, HttpResponse<?> response, Throwable failure) {
        if (failure != null) {
            Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                    ? failure.getCause() : failure;
            result.completeExceptionally(new IOException("POST " + uri + " failed: " + cause, cause));
            return;
        }
        int status = response.statusCode();
        if (status >= 200 && status < 300) {
            result.complete(null);
        } else if (status >= 400 && status < 500 && status != 408 && status != 429) {
            result.completeExceptionally(new PermanentDeliveryException("HTTP " + status + " from POST " + uri));
        } else {
            result.completeExceptionally(new IOException("HTTP " + status + " from POST " + uri + ", will retry"));
        }
    }

    /**
     * Stops the HTTP client: waits up to the request timeout for requests in flight (close the
     * relay first, so that there are none), then aborts the rest. Idempotent.
     */
    @Override
    public void close() {
        client.shutdown();
        try {
            if (!client.awaitTermination(requestTimeout)) {
                client.shutdownNow();
            }
        } catch (InterruptedException e) {
            client.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return "HttpWebhookSink[" + name + " -> " + uri + ", maxConcurrency=" + maxConcurrency + "]";
    }
}
