package io.ringbus.bench.outbox;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A local webhook that answers {@code 200} after a fixed latency, standing in for the seed's
 * SNS endpoint: JDK {@link HttpServer} on 127.0.0.1, one virtual thread per request sleeping the
 * latency, so it never limits concurrency itself. Records each answered event (by the sequence in
 * its payload) in a {@link DeliveryLog} and the most requests it had in flight at once.
 */
final class SlowHttpEndpoint implements AutoCloseable {
    /** Path events are POSTed to. */
    static final String PATH = "/events";
    /** Accept backlog: more than the largest concurrency tried, so no connection is refused. */
    private static final int BACKLOG = 2_048;

    static {
        // The JDK server closes idle keep-alive connections beyond 200 (sun.net.httpserver.ServerConfig);
        // at concurrency 300 the client then reuses a closed one and fails with "HTTP/1.1 header
        // parser received no bytes", which the relay retries after a backoff. Read once, when the
        // first server starts.
        if (System.getProperty("sun.net.httpserver.maxIdleConnections") == null) {
            System.setProperty("sun.net.httpserver.maxIdleConnections", "4096");
        }
    }

    private final HttpServer server;
    private final ExecutorService executor;
    private final long latencyNanos;
    private final DeliveryLog log;
    private final ReentrantLock logLock = new ReentrantLock();
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicInteger peakInFlight = new AtomicInteger();
    private final AtomicLong non2xx = new AtomicLong();

    /**
     * Starts the endpoint on a free port.
     *
     * @param latency how long each request waits before its answer
     * @param log     where answered events go
     * @throws IOException when no port can be bound
     */
    SlowHttpEndpoint(Duration latency, DeliveryLog log) throws IOException {
        this.latencyNanos = latency.toNanos();
        this.log = log;
        this.executor = Executors.newVirtualThreadPerTaskExecutor();
        this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), BACKLOG);
        server.setExecutor(executor);
        server.createContext(PATH, this::handle);
        server.start();
    }

    private void handle(HttpExchange exchange) throws IOException {
        int now = inFlight.incrementAndGet();
        peakInFlight.accumulateAndGet(now, Math::max);
        try (exchange) {
            byte[] body;
            try (InputStream in = exchange.getRequestBody()) {
                body = in.readAllBytes();
            }
            Thread.sleep(Duration.ofNanos(latencyNanos));
            long sequence = EventPayload.sequence(body);
            logLock.lock();
            try {
                log.delivered(sequence, System.nanoTime());
            } finally {
                logLock.unlock();
            }
            exchange.sendResponseHeaders(200, -1);
        } catch (InterruptedException e) {
            non2xx.incrementAndGet();
            Thread.currentThread().interrupt();
        } finally {
            inFlight.decrementAndGet();
        }
    }

    /** @return where to POST events */
    URI uri() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + PATH);
    }

    /** @return the most requests in flight at once */
    int peakInFlight() {
        return peakInFlight.get();
    }

    /** Stops the server at once and its request threads. */
    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
