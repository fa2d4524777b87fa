package io.ringbus.server;

import io.ringbus.testkit.Await;
import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.Nats;
import io.nats.client.Options;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Hostile and careless clients against ringbus-server as users run it: a forked JVM with a
 * small heap (issue 9's table), each with a healthy client checked alongside.
 */
@Timeout(180)
@SuppressWarnings("try") // jnats' Connection.close() may throw InterruptedException
class HostileClientsTest {
    private static final String HEAP = "128m";

    @Test
    void aFloodOfLargePublishesLeavesASmallHeapHealthy() throws Exception {
        try (ForkedServer server = ForkedServer.start(HEAP)) {
            String url = "nats://127.0.0.1:" + server.port();
            int small = 20_000;
            int large = 120;
            try (Connection reader = Nats.connect(url); Connection publisher = Nats.connect(url)) {
                AtomicLong received = new AtomicLong();
                AtomicLong bytes = new AtomicLong();
                Dispatcher d = reader.createDispatcher(m -> {
                    received.incrementAndGet();
                    bytes.addAndGet(m.getData().length);
                });
                d.subscribe("flood");
                reader.flush(Duration.ofSeconds(5));
                byte[] eightKiB = new byte[8 << 10];
                byte[] oneMiB = new byte[(1 << 20) - 64];
                for (int i = 0; i < small; i++) {
                    publisher.publish("flood", eightKiB);
                    publisher.publish("nobody.listens", eightKiB);
                }
                for (int i = 0; i < large; i++) {
                    publisher.publish("flood", oneMiB);
                }
                publisher.flush(Duration.ofSeconds(60));
                long expectedBytes = (long) small * eightKiB.length + (long) large * oneMiB.length;
                Await.until("the reader got every message", () -> received.get() == small + large, received::get);
                assertThat(bytes.get()).isEqualTo(expectedBytes);
            }
            assertHealthy(server);
        }
    }

    @Test
    void largeIncompletePublishesAreHeldAndCompletedWithoutRunningOutOfMemory() throws Exception {
        int clients = 150; // 150 MiB announced and nearly all sent: more than the whole heap
        int size = 1 << 20;
        try (ForkedServer server = ForkedServer.start(HEAP, "--config", maxPayloadConfig(size).toString());
             RawClient subscriber = RawClient.connect(server.port())) {
            subscriber.handshake();
            subscriber.send("SUB held 1\r\nPING\r\n");
            subscriber.expectLine("PONG");
            List<Socket> sockets = new ArrayList<>();
            List<Thread> writers = new ArrayList<>();
            byte[] payload = new byte[size];
            Arrays.fill(payload, (byte) 'p');
            CountDownLatch allButOne = new CountDownLatch(clients);
            try {
                for (int i = 0; i < clients; i++) {
                    Socket socket = new Socket();
                    socket.connect(new InetSocketAddress("127.0.0.1", server.port()), 10_000);
                    sockets.add(socket);
                    OutputStream out = socket.getOutputStream();
                    // Every byte but the last, from a thread of its own: the server may stop reading.
                    writers.add(Thread.ofVirtual().start(() -> {
                        try {
                            out.write(("CONNECT {\"verbose\":false}\r\nPUB held " + size + "\r\n")
                                    .getBytes(StandardCharsets.US_ASCII));
                            out.write(payload, 0, size - 1);
                            out.flush();
                        } catch (IOException e) {
                            throw new AssertionError(e);
                        } finally {
                            allButOne.countDown();
                        }
                    }));
                }
                // Meanwhile the server serves everyone else.
                assertHealthy(server);
                // The subscriber reads as messages complete (one that did not read would be a slow consumer).
                java.util.concurrent.atomic.AtomicInteger delivered = new java.util.concurrent.atomic.AtomicInteger();
                java.util.concurrent.atomic.AtomicReference<Throwable> readFailure =
                        new java.util.concurrent.atomic.AtomicReference<>();
                Thread reading = Thread.ofPlatform().start(() -> {
                    try {
                        for (int i = 0; i < clients; i++) {
                            assertThat(subscriber.readDelivery().payload()).hasSize(size);
                            delivered.incrementAndGet();
                        }
                    } catch (Throwable e) {
                        readFailure.set(e);
                    }
                });
                for (int i = 0; i < clients; i++) {
                    Socket socket = sockets.get(i);
                    Thread writer = writers.get(i);
                    Thread.ofVirtual().start(() -> {
                        try {
                            writer.join();
                            socket.getOutputStream().write(new byte[] {'p', '\r', '\n'});
                            socket.getOutputStream().flush();
                        } catch (IOException | InterruptedException e) {
                            throw new AssertionError(e);
                        }
                    });
                }
                assertThat(allButOne.await(120, TimeUnit.SECONDS)).as("every client could send").isTrue();
                reading.join(120_000);
                assertThat(readFailure.get()).as("reading the deliveries; server log: %s", server.log()).isNull();
                assertThat(delivered.get()).as("every held message completed and delivered").isEqualTo(clients);
            } finally {
                for (Socket socket : sockets) {
                    socket.close();
                }
            }
            assertHealthy(server);
        }
    }

    @Test
    void aSubscriberThatNeverReadsHoldsMemoryInProportionToItsBytes() throws Exception {
        // Each PING round trip is one read of the publisher, so one hand-over of the sleeper's
        // pending buffer to Netty: buffers sized by capacity rather than content once held
        // 64 KiB per 100-byte message here and ran a 64 MiB server out of direct memory.
        try (ForkedServer server = ForkedServer.start("64m");
             RawClient sleeper = RawClient.connect(server.port(), 4096);
             RawClient publisher = RawClient.connect(server.port())) {
            sleeper.handshake();
            sleeper.send("SUB drip 1\r\nPING\r\n");
            sleeper.expectLine("PONG");
            publisher.handshake();
            String message = "PUB drip 100\r\n" + "d".repeat(100) + "\r\nPING\r\n";
            for (int i = 0; i < 3_000; i++) {
                publisher.send(message);
                publisher.expectLine("PONG");
            }
            assertHealthy(server);
        }
    }

    @Test
    void sigtermAndSigintDrainAndExitWithStatusZero() throws Exception {
        for (String signal : List.of("TERM", "INT")) {
            try (ForkedServer server = ForkedServer.start(HEAP)) {
                Connection publisher = Nats.connect(new Options.Builder()
                        .server("nats://127.0.0.1:" + server.port()).maxReconnects(0).build());
                Thread publishing = Thread.ofPlatform().start(() -> {
                    try {
                        for (int i = 0; i < 10_000_000 && publisher.getStatus() == Connection.Status.CONNECTED; i++) {
                            publisher.publish("busy", new byte[64]);
                        }
                    } catch (IllegalStateException closed) {
                        // the server went away: expected
                    }
                });
                publisher.flush(Duration.ofSeconds(5));
                assertThat(server.signalAndWait(signal)).as("exit status after SIG" + signal).isZero();
                publishing.interrupt();
                publisher.close();
                publishing.join(10_000);
            }
        }
    }

    /** The server answers /healthz, a new client gets INFO and a round trip, and nothing died of OutOfMemoryError. */
    private static void assertHealthy(ForkedServer server) {
        assertThat(server.isAlive()).isTrue();
        assertThat(server.monitor("/healthz").statusCode()).isEqualTo(200);
        try (RawClient fresh = RawClient.connect(server.port())) {
            fresh.handshake();
            fresh.assertRoundTrip("health.check");
        }
        assertThat(server.log()).noneMatch(line -> line.contains("OutOfMemoryError"));
    }

    private static java.nio.file.Path maxPayloadConfig(int size) throws IOException {
        java.nio.file.Path file = java.nio.file.Files.createTempFile("ringbus-hostile", ".properties");
        java.nio.file.Files.writeString(file, "max_payload=" + size + "\n");
        file.toFile().deleteOnExit();
        return file;
    }
}
