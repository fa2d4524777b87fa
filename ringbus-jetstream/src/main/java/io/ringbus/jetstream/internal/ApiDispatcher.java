package io.ringbus.jetstream.internal;

import io.ringbus.jetstream.JetStreamSettings;
import io.ringbus.server.spi.ApiRequest;
import io.ringbus.server.spi.RequestHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Takes {@code $JS.API.} requests on the connections' event loops and answers them on one thread
 * of its own, in arrival order. The queue is bounded in requests, all connections together
 * ({@code jetstream.max_pending_requests}) and per connection
 * ({@code jetstream.max_pending_per_connection}), and in bytes, all connections together
 * ({@code jetstream.max_pending_bytes}); a request past any bound is answered at once
 * with JetStream's 503 ("temporarily unavailable", which clients retry) and counted, never queued.
 */
public final class ApiDispatcher implements RequestHandler, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ApiDispatcher.class);

    private final StreamsApi api;
    private final int perConnection;
    private final ThreadPoolExecutor executor;
    private final ConcurrentHashMap<Long, AtomicInteger> pending = new ConcurrentHashMap<>();
    private final AtomicLong refused = new AtomicLong();
    /** Request bytes queued, all connections together; bounded by {@link #maxPendingBytes}. */
    private final AtomicLong pendingBytes = new AtomicLong();
    private final long maxPendingBytes;

    /**
     * @param api      the API
     * @param settings the queue's bounds
     */
    public ApiDispatcher(StreamsApi api, JetStreamSettings settings) {
        this.api = api;
        this.perConnection = settings.maxPendingPerConnection();
        this.maxPendingBytes = settings.maxPendingBytes();
        this.executor = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS,
                new ArrayBlockingQueue<>(settings.maxPendingRequests()),
                Thread.ofPlatform().name("ringbus-jetstream-api").daemon(true).factory(),
                new ThreadPoolExecutor.AbortPolicy());
    }

    @Override
    public void handle(ApiRequest request) {
        long connection = request.requester().connectionId();
        long bytes = request.payload().length + (request.headers() == null ? 0 : request.headers().length);
        AtomicInteger queued = pending.computeIfAbsent(connection, c -> new AtomicInteger());
        if (queued.incrementAndGet() > perConnection | pendingBytes.addAndGet(bytes) > maxPendingBytes) {
            release(connection, queued, bytes);
            busy(request);
            return;
        }
        try {
            executor.execute(() -> {
                try {
                    api.answer(request);
                } catch (RuntimeException e) {
                    LOG.warn("JetStream API request {} failed: {}", request.subject(), e.toString(), e);
                } finally {
                    release(connection, queued, bytes);
                }
            });
        } catch (java.util.concurrent.RejectedExecutionException full) {
            release(connection, queued, bytes);
            busy(request);
        }
    }

    private void release(long connection, AtomicInteger queued, long bytes) {
        pendingBytes.addAndGet(-bytes);
        if (queued.decrementAndGet() == 0) {
            pending.remove(connection, queued);
        }
    }

    private void busy(ApiRequest request) {
        refused.incrementAndGet();
        api.refuseBusy(request);
    }

    /** @return requests answered "temporarily unavailable" because the queue was full */
    public long refused() {
        return refused.get();
    }

    @Override
    public void close() {
        executor.shutdownNow();
        try {
            executor.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
