package io.ringbus.outbox;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real HTTP server on an ephemeral loopback port, one virtual thread per exchange, that records
 * every request and answers as the test tells it to; it counts the requests it handles at once.
 */
final class WebhookServer implements AutoCloseable {
    /** How to answer one request: sleep this long, then send this status. */
    record Answer(long delayMillis, int status) {
    }

    /** Chooses the answer for a request, given the number of the attempt (1, 2, ...) for its event id. */
    interface Behaviour {
        Answer answer(Request request, int attempt);
    }

    /** A request as the server read it. */
    record Request(String method, Map<String, List<String>> headers, byte[] body) {
        String header(String name) {
            List<String> values = headers.get(name);
            return values == null ? null : values.get(0);
        }

        String eventId() {
            return header(OutboxEvent.EVENT_ID_HEADER);
        }
    }

    final List<Request> requests = new CopyOnWriteArrayList<>();
    final Map<String, AtomicInteger> attempts = new ConcurrentHashMap<>();
    final AtomicInteger concurrent = new AtomicInteger();
    final AtomicInteger maxConcurrent = new AtomicInteger();
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    private final HttpServer server;
    private volatile Behaviour behaviour = (request, attempt) -> new Answer(0, 200);

    WebhookServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(executor);
        server.createContext("/", this::handle);
        server.start();
    }

    WebhookServer behave(Behaviour behaviour) {
        this.behaviour = behaviour;
        return this;
    }

    URI uri() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/hook");
    }

    int attempts(String eventId) {
        AtomicInteger count = attempts.get(eventId);
        return count == null ? 0 : count.get();
    }

    private void handle(HttpExchange exchange) throws IOException {
        int now = concurrent.incrementAndGet();
        maxConcurrent.accumulateAndGet(now, Math::max);
        Answer answer;
        try (InputStream in = exchange.getRequestBody()) {
            // The server's header map looks names up case-insensitively, as HTTP wants.
            Request request = new Request(exchange.getRequestMethod(), exchange.getRequestHeaders(), in.readAllBytes());
            requests.add(request);
            String eventId = request.eventId() == null ? "" : request.eventId();
            int attempt = attempts.computeIfAbsent(eventId, id -> new AtomicInteger()).incrementAndGet();
            answer = behaviour.answer(request, attempt);
            Thread.sleep(answer.delayMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            answer = new Answer(0, 503);
        } finally {
            // Before the response goes out, so that the client cannot start its next request first.
            concurrent.decrementAndGet();
        }
        exchange.sendResponseHeaders(answer.status(), -1);
        exchange.close();
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
