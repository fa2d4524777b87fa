package io.ringbus.server;

import io.ringbus.testkit.Await;
import com.sun.management.UnixOperatingSystemMXBean;
import io.nats.client.Connection;
import io.nats.client.Message;
import io.nats.client.Subscription;
import io.ringbus.core.ExecutionMode;
import io.ringbus.core.OverflowPolicy;
import io.ringbus.core.SubscribeOptions;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The server's limits with real jnats clients beside misbehaving or plentiful ones: a subscriber
 * that stops reading is dropped as a slow consumer without hurting the others, a full broker
 * slows publishers without failing them or losing anything, and a thousand connections at once
 * are served.
 */
@Timeout(60)
@SuppressWarnings("try") // jnats Connection.close() throws InterruptedException; the tests declare it
class JnatsLimitsTest {
    private static final Duration WAIT = Duration.ofSeconds(10);

    private final RecordingErrorListener listener = new RecordingErrorListener();
    @AutoClose
    private ServerUnderTest server;

    @Test
    void subscriberThatStopsReadingIsDroppedAsSlowConsumerWhileAnotherGetsEverything() throws Exception {
        server = ServerUnderTest.start(c -> c.maxPending(65_536));
        byte[] payload = new byte[1000];
        Arrays.fill(payload, (byte) 'x');
        AtomicInteger received = new AtomicInteger();
        AtomicInteger outOfOrder = new AtomicInteger();
        try (RawClient stalled = RawClient.connect(server.port(), 4096);
             Connection subscriber = listener.connect(server);
             Connection publisher = listener.connect(server)) {
            subscribeToTheFlood(stalled);
            // from here on the raw client reads nothing until the server has given up on it
            subscriber.createDispatcher(msg -> {
                int expected = received.getAndIncrement();
                if (seq(msg) != expected) {
                    outOfOrder.incrementAndGet();
                }
            }).subscribe("pub.flood");
            subscriber.flush(WAIT);

            // Batches small enough (32 x ~1 KB) that the reading subscriber never has maxPending
            // outstanding: it must never be mistaken for a slow consumer.
            int limit = 40_000; // ~40 MB: far more than socket buffers and Netty's water mark hold
            int published = floodUntilASlowConsumer(publisher, payload, limit, received);
            assertThat(server.stats().slowConsumers()).as("slow consumer detected within %d messages", limit)
                    .isEqualTo(1);
            // the stalled client reads again: what was sent ends with the error, then the close
            List<String> lines = stalled.readUntilClosed();
            assertThat(lines).isNotEmpty();
            assertThat(lines.get(lines.size() - 1)).isEqualTo("-ERR 'Slow Consumer'");

            for (int i = 0; i < 5; i++) { // traffic goes on for the others after the drop
                published = publishBatch(publisher, payload, published, 32, received);
            }
            int total = published;

            Await.grace();
            assertThat(received.get()).isEqualTo(total);
            assertThat(outOfOrder.get()).isZero();
            assertThat(subscriber.getStatus()).isEqualTo(Connection.Status.CONNECTED);
            assertThat(publisher.getStatus()).isEqualTo(Connection.Status.CONNECTED);
            assertThat(listener.errors).isEmpty();
            assertThat(server.stats().slowConsumers()).isEqualTo(1);
            Await.until("the slow consumer's connection is gone", () -> server.stats().connections() == 2,
                    () -> server.stats());
        }
    }

    @Test
    void slowConsumerThatNeverReadsAgainIsStillClosed() throws Exception {
        server = ServerUnderTest.start(c -> c.maxPending(65_536));
        byte[] payload = new byte[1000];
        Arrays.fill(payload, (byte) 'x');
        AtomicInteger received = new AtomicInteger();
        try (RawClient stalled = RawClient.connect(server.port(), 4096);
             Connection subscriber = listener.connect(server);
             Connection publisher = listener.connect(server)) {
            subscribeToTheFlood(stalled);
            subscriber.createDispatcher(msg -> received.incrementAndGet()).subscribe("pub.flood");
            subscriber.flush(WAIT);

            int published = floodUntilASlowConsumer(publisher, payload, 40_000, received);
            assertThat(server.stats().slowConsumers()).isEqualTo(1);

            // The stalled client holds its socket open and never reads again: the server must not
            // keep the connection (its socket, its buffered megabytes) waiting for it forever.
            Await.until("the server closed the slow consumer without its help",
                    () -> server.stats().connections() == 2, () -> server.stats());
            assertThat(server.broker.hasSubscribers("pub.flood")).isTrue(); // the jnats one
            assertThat(subscriber.getStatus()).isEqualTo(Connection.Status.CONNECTED);
        }
    }

    @Test
    void publisherPausedLongerThanThePingWindowIsNotClosedAsStale() throws Exception {
        // Pings every 100 ms, stale after 2 unanswered: a pause of a second spans many windows.
        server = ServerUnderTest.start(b -> b.ringSize(16),
                c -> c.pingInterval(Duration.ofMillis(100)).maxPingsOut(2));
        int messages = 200;
        CountDownLatch release = new CountDownLatch(1);
        Queue<Integer> handled = new ConcurrentLinkedQueue<>();
        server.broker.subscribe("pub.paused", m -> {
            awaitQuietly(release);
            handled.add(Integer.parseInt(new String(m.payload(byte[].class), StandardCharsets.US_ASCII)));
        }, SubscribeOptions.defaults().mode(ExecutionMode.WORKER).bufferSize(2).overflow(OverflowPolicy.BLOCK));
        try (Connection publisher = listener.connect(server)) {
            for (int i = 0; i < messages; i++) {
                publisher.publish("pub.paused", Integer.toString(i).getBytes(StandardCharsets.US_ASCII));
            }
            publisher.flushBuffer();
            Await.until("the server paused the publisher", () -> server.stats().publishPauses() > 0,
                    () -> server.stats());
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1_000)); // the pause lasts; pings come due

            assertThat(server.stats().staleConnections()).as("a paused publisher is slowed, not failed; errors: %s",
                    listener.errors).isZero();
            assertThat(publisher.getStatus()).isEqualTo(Connection.Status.CONNECTED);
            release.countDown();
            publisher.flush(Duration.ofSeconds(30));
            Await.until("all " + messages + " handled", () -> handled.size() >= messages,
                    () -> "handled=" + handled.size() + " " + server.stats());

            assertThat(handled).hasSize(messages);
            assertThat(server.stats().staleConnections()).isZero();
            assertThat(listener.errors).isEmpty();
        }
    }

    @Test
    void fullBrokerSlowsNetworkPublishersWithoutFailingThemOrLosingMessages() throws Exception {
        server = ServerUnderTest.start(b -> b.ringSize(64), c -> c);
        int messages = 2_000;
        Queue<Integer> inProcess = new ConcurrentLinkedQueue<>();
        // A lagging in-process subscriber that never drops: the ring fills behind it.
        server.broker.subscribe("pub.pressure", m -> {
            LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(200));
            inProcess.add(Integer.parseInt(new String(m.payload(byte[].class), StandardCharsets.US_ASCII)));
        }, SubscribeOptions.defaults().mode(ExecutionMode.WORKER).bufferSize(2).overflow(OverflowPolicy.BLOCK));
        try (Connection subscriber = listener.connect(server); Connection publisher = listener.connect(server)) {
            Subscription network = subscriber.subscribe("pub.pressure");
            subscriber.flush(WAIT);

            for (int i = 0; i < messages; i++) {
                publisher.publish("pub.pressure", Integer.toString(i).getBytes(StandardCharsets.US_ASCII));
            }
            // The PONG comes after the server has taken every PUB before it into the broker.
            publisher.flush(Duration.ofSeconds(30));

            Await.until("the lagging subscriber handled all " + messages, () -> inProcess.size() >= messages,
                    () -> "handled=" + inProcess.size() + " " + server.stats());
            List<Integer> expected = new ArrayList<>();
            for (int i = 0; i < messages; i++) {
                expected.add(i);
            }
            assertThat(inProcess).containsExactlyElementsOf(expected);
            for (int i = 0; i < messages; i++) {
                Message msg = network.nextMessage(WAIT);
                assertThat(msg).as("network message %d", i).isNotNull();
                assertThat(seq(msg)).isEqualTo(i);
            }
            assertThat(server.stats().publishPauses()).as("the server stopped reading while the ring was full")
                    .isPositive();
            assertThat(server.stats().messagesIn()).isEqualTo(messages);
            assertThat(server.broker.stats().droppedTotal()).isZero();
            assertThat(publisher.getStatus()).isEqualTo(Connection.Status.CONNECTED);
            assertThat(listener.errors).isEmpty();
            assertThat(listener.exceptions).isEmpty();
        }
    }

    @Test
    void servesAThousandConnectionsAtOnceBesideWorkingJnatsClients() throws Exception {
        int raw = 1_000;
        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof UnixOperatingSystemMXBean unix) {
            assertThat(unix.getMaxFileDescriptorCount()).as("ulimit -n: both ends of %d sockets live in this JVM", raw)
                    .isGreaterThan(2L * raw + 500);
        }
        server = ServerUnderTest.start();
        List<RawClient> clients = new ArrayList<>(raw);
        try (Connection responder = listener.connect(server); Connection requester = listener.connect(server)) {
            responder.createDispatcher(msg -> responder.publish(msg.getReplyTo(), msg.getData()))
                    .subscribe("pub.many.echo");
            responder.flush(WAIT);

            for (int i = 0; i < raw; i++) {
                clients.add(RawClient.connect(server.port()));
                if (i % 100 == 0) { // the jnats clients keep working while connections pile up
                    assertEcho(requester, "while connecting " + i);
                }
            }
            for (RawClient client : clients) {
                assertThat(client.readLine()).startsWith("INFO {");
                client.send("CONNECT {\"verbose\":false}\r\nSUB pub.many.all 1\r\nPING\r\n");
            }
            for (RawClient client : clients) {
                client.expectLine("PONG");
            }
            assertThat(server.stats().connections()).isEqualTo(raw + 2);

            server.broker.publish("pub.many.all", "to-everyone");
            for (RawClient client : clients) {
                assertThat(client.readDelivery().text()).isEqualTo("to-everyone");
            }
            assertEcho(requester, "with all connected");
        } finally {
            for (RawClient client : clients) {
                client.close();
            }
        }
        Await.until("every connection is closed", () -> server.stats().connections() == 0, () -> server.stats());
        assertThat(server.stats().totalConnections()).isEqualTo(raw + 2);
        assertThat(server.stats().rejectedConnections()).isZero();
        assertThat(listener.errors).isEmpty();
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(Await.TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void assertEcho(Connection requester, String when) throws InterruptedException {
        Message reply = requester.request("pub.many.echo", when.getBytes(StandardCharsets.UTF_8), WAIT);
        assertThat(reply).as("echo " + when).isNotNull();
        assertThat(new String(reply.getData(), StandardCharsets.UTF_8)).isEqualTo(when);
    }

    /**
     * Publishes {@code count} messages whose payload starts with their sequence number, then
     * waits until the reading subscriber has them all.
     */
    private static void subscribeToTheFlood(RawClient raw) {
        raw.handshake();
        raw.send("SUB pub.flood 1\r\nPING\r\n");
        raw.expectLine("PONG");
    }

    /** Publishes batches of 32 until the server has dropped a slow consumer or {@code limit} are out. */
    private int floodUntilASlowConsumer(Connection publisher, byte[] payload, int limit, AtomicInteger received)
            throws Exception {
        int published = 0;
        while (server.stats().slowConsumers() == 0 && published < limit) {
            published = publishBatch(publisher, payload, published, 32, received);
        }
        return published;
    }

    private int publishBatch(Connection publisher, byte[] payload, int first, int count, AtomicInteger received)
            throws Exception {
        for (int i = first; i < first + count; i++) {
            byte[] data = payload.clone();
            byte[] digits = Integer.toString(i).getBytes(StandardCharsets.US_ASCII);
            System.arraycopy(digits, 0, data, 0, digits.length);
            data[digits.length] = ' ';
            publisher.publish("pub.flood", data);
        }
        publisher.flush(WAIT);
        int target = first + count;
        Await.until("the jnats subscriber caught up to " + target, () -> received.get() >= target,
                () -> "received=" + received.get() + " " + server.stats());
        return target;
    }

    private static int seq(Message msg) {
        String text = new String(msg.getData(), StandardCharsets.US_ASCII);
        int space = text.indexOf(' ');
        return Integer.parseInt(space < 0 ? text : text.substring(0, space));
    }
}
