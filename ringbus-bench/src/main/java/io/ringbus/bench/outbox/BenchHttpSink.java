package io.ringbus.bench.outbox;

import io.ringbus.outbox.OutboxEvent;
import io.ringbus.outbox.OutboxSink;
import io.ringbus.outbox.PermanentDeliveryException;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletionStage;

/**
 * A thin webhook sink for the HTTP experiment, written in the bench because ringbus-outbox's
 * {@code HttpWebhookSink} is being written elsewhere: POSTs the payload with
 * {@code java.net.http}'s {@code sendAsync} (HTTP/1.1, so one connection per request in flight),
 * the event id as {@value OutboxEvent#EVENT_ID_HEADER}; 2xx = delivered, 4xx = permanent
 * failure, anything else = retry. The relay bounds concurrency at {@link #maxConcurrency()}; the
 * JDK client opens connections as needed and keeps them alive, so the relay's bound is the only
 * one (as NettyNioAsyncHttpClient's maxConcurrency is in seed 002).
 */
final class BenchHttpSink implements OutboxSink {
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);

    private final URI uri;
    private final int maxConcurrency;
    private final HttpClient client;

    /**
     * @param uri            where to POST
     * @param maxConcurrency requests in flight at most, &gt;= 1
     */
    BenchHttpSink(URI uri, int maxConcurrency) {
        if (maxConcurrency < 1) {
            throw new IllegalArgumentException("maxConcurrency must be at least 1: maxConcurrency=" + maxConcurrency);
        }
        this.uri = uri;
        this.maxConcurrency = maxConcurrency;
        this.client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).build();
    }

    @Override
    public String name() {
        return "bench-http";
    }

    @Override
    public int maxConcurrency() {
        return maxConcurrency;
    }

    @Override
    public CompletionStage<?> deliver(OutboxEvent event) {
        HttpRequest request = HttpRequest.newBuilder(uri)
                .timeout(REQUEST_TIMEOUT)
                .header("Content-Type", "application/json")
                .header(OutboxEvent.EVENT_ID_HEADER, event.eventId())
                .POST(HttpRequest.BodyPublishers.ofByteArray(event.payload()))
                .build();
        return client.sendAsync(request, HttpResponse.BodyHandlers.discarding()).thenApply(response -> {
            int status = response.statusCode();
            if (status / 100 == 2) {
                return null;
            }
            if (status / 100 == 4) {
                throw new PermanentDeliveryException("HTTP " + status + " from " + uri);
            }
            throw new IllegalStateException("HTTP " + status + " from " + uri);
        });
    }

    /** Closes the HTTP client. */
    @Override
    public void close() {
        client.close();
    }
}
