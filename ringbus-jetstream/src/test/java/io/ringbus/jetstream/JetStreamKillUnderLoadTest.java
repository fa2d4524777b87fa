package io.ringbus.jetstream;

import io.nats.client.Connection;
import io.nats.client.ErrorListener;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.AckPolicy;
import io.nats.client.api.ConsumerConfiguration;
import io.nats.client.api.ConsumerInfo;
import io.nats.client.api.MessageInfo;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.nats.client.api.StreamState;
import io.ringbus.jetstream.AckingWorker.Delivery;
import io.ringbus.jetstream.AckingWorker.Outcome;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code kill -9} of ringbus-server under publish and consume load, repeated: RingbusServerMain in
 * a JVM of its own ({@link ChildServer}, fsync at its default {@code always}), two
 * {@link AckedPublisher}s (jnats {@code publishAsync}, a window of PubAcks, message ids) and an
 * {@link AckingWorker} on a durable pull consumer ({@code ackSync}) running together; the server is
 * killed at a random moment {@link #KILLS} times and started again on the same store; the clients
 * connect to each new life and go on; after the last start they finish: every id published until
 * it has a PubAck, every message acknowledged. Then, what {@code always} promises:
 * <ul>
 *   <li>every publish that got a PubAck is in the stream at the PubAck's sequence, and every id is
 *       stored once: an id published again after a kill (its PubAck lost) is answered as a
 *       duplicate within the duplicate window, never stored twice;</li>
 *   <li>a message whose {@code ackSync} was answered is never delivered again, across restarts;</li>
 *   <li>a message delivered and not acknowledged (no ack sent) before a kill is delivered again by
 *       a later life; no life delivers a message twice (its {@code ack_wait} outlasts the test).</li>
 * </ul>
 * A process kill keeps what the kernel has been given (it cannot tell an {@code fsync} from none);
 * the test claims only what {@code always} promises for acknowledged work, and a power cut is the
 * core's power-loss tests' business. The kill times come from a fixed seed; what is asserted does
 * not depend on them.
 */
@SuppressWarnings("try") // jnats' Connection.close throws InterruptedException
class JetStreamKillUnderLoadTest {
    private static final int KILLS = 4;
    private static final long SEED = 26;
    private static final String STREAM = "LOAD";
    private static final String DURABLE = "worker";
    /** The worker holds (never acknowledges before a kill) stream sequences that are multiples of this. */
    private static final long HOLD = 5;
    private static final int PER_LIFE = 500;
    private static final Duration INTERVAL = Duration.ofMillis(5);
    private static final Duration FINISH = Duration.ofSeconds(30);

    @TempDir
    Path store;

    @Test
    void acknowledgedWorkSurvivesRepeatedKill9UnderLoad() throws Exception {
        Random random = new Random(SEED);
        AtomicReference<ServerLife> lives = new AtomicReference<>();
        List<AckedPublisher> publishers = List.of(new AckedPublisher("a", lives, PER_LIFE, INTERVAL),
                new AckedPublisher("b", lives, PER_LIFE, INTERVAL));
        AckingWorker worker = new AckingWorker(lives, STREAM, DURABLE, HOLD);
        List<Thread> threads = new ArrayList<>();
        ChildServer server = ChildServer.start(store);
        try {
            create(server);
            threads.add(Thread.ofPlatform().name("worker").start(worker));
            publishers.forEach(p -> threads.add(Thread.ofPlatform().name("publisher").start(p)));
            // lives 0 .. KILLS-1 end with kill -9; the last one (KILLS) lets the clients finish
            for (int life = 0; life < KILLS; life++) {
                ServerLife current = new ServerLife(life, connect(server), connect(server), false);
                lives.set(current);
                long loadStart = System.nanoTime();
                Thread.sleep(1_000 + random.nextInt(1_000));
                server.kill();
                current.publishers().close();
                current.worker().close();
                long restart = System.nanoTime();
                server = ChildServer.start(store);
                System.out.printf("life %d: killed after %d ms of load, started again in %d ms%n", life,
                        TimeUnit.NANOSECONDS.toMillis(restart - loadStart), TimeUnit.NANOSECONDS.toMillis(
                                System.nanoTime() - restart));
            }
            ServerLife last = new ServerLife(KILLS, connect(server), connect(server), true);
            lives.set(last);
            long finish = System.nanoTime();
            await("every id has its PubAck", () -> publishers.stream().allMatch(AckedPublisher::done),
                    () -> published(publishers));
            try (Connection admin = connect(server)) {
                JetStreamManagement jsm = admin.jetStreamManagement();
                StreamState state = jsm.getStreamInfo(STREAM).getStreamState();
                long lastSeq = state.getLastSequence();
                await("the consumer's ack floor at the last sequence", () -> acknowledgedAll(jsm, lastSeq),
                        () -> consumed(worker, lastSeq) + "; " + consumerState(jsm));
                System.out.printf("last life: every PubAck and every ack in %d ms%n",
                        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - finish));
                publishers.forEach(AckedPublisher::stop);
                worker.stop();
                for (Thread thread : threads) {
                    thread.join(TimeUnit.SECONDS.toMillis(10));
                }
                assertThat(jsm.getStreamInfo(STREAM).getStreamState().getLastSequence())
                        .as("last sequence once the worker is done").isEqualTo(lastSeq);
                Map<Long, String> stored = readBack(jsm, state);
                ConsumerInfo consumer = jsm.getConsumerInfo(STREAM, DURABLE);
                report(publishers, worker, stored);
                assertPublished(publishers, state, stored);
                assertConsumed(worker, stored, consumer);
            }
            last.publishers().close();
            last.worker().close();
        } finally {
            publishers.forEach(AckedPublisher::stop);
            worker.stop();
            server.close();
        }
    }

    /** The stream and the durable consumer, with an ack wait that outlasts the test. */
    private static void create(ChildServer server) throws Exception {
        try (Connection admin = connect(server)) {
            JetStreamManagement jsm = admin.jetStreamManagement();
            jsm.addStream(StreamConfiguration.builder().name(STREAM).subjects("load.>")
                    .storageType(StorageType.File).build());
            jsm.addOrUpdateConsumer(STREAM, ConsumerConfiguration.builder().durable(DURABLE)
                    .ackPolicy(AckPolicy.Explicit).ackWait(Duration.ofMinutes(5)).maxAckPending(20_000).build());
        }
    }

    /** A connection that never reconnects: what comes through it came from this server's life. */
    private static Connection connect(ChildServer server) throws Exception {
        return Nats.connect(Options.builder().server(server.url()).maxReconnects(0)
                .connectionTimeout(Duration.ofSeconds(5)).errorListener(new ErrorListener() {
                }).build());
    }

    private static void await(String what, BooleanSupplier condition, Supplier<String> progress)
            throws InterruptedException {
        long deadline = System.nanoTime() + FINISH.toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() - deadline).as("%s within %s: %s", what, FINISH, progress.get()).isNegative();
            Thread.sleep(20);
        }
    }

    /** @return how far the publishers are: ids generated, acknowledged, published again */
    private static String published(List<AckedPublisher> publishers) {
        return publishers.stream().map(p -> p.ids().size() + " ids, " + p.acked().size() + " acknowledged, "
                + p.republished() + " published again").toList().toString();
    }

    /** @return how far the worker is, and the first sequences it has not acknowledged */
    private static String consumed(AckingWorker worker, long lastSeq) {
        List<Long> missing = new ArrayList<>();
        for (long seq = 1; seq <= lastSeq && missing.size() < 20; seq++) {
            if (!worker.acknowledged().containsKey(seq)) {
                missing.add(seq);
            }
        }
        List<Delivery> deliveries = worker.deliveries();
        return worker.acknowledged().size() + " of " + lastSeq + " acknowledged; not yet " + missing + ", delivered: "
                + deliveries.stream().filter(d -> missing.contains(d.sequence())).limit(40).toList() + "; "
                + worker.errors();
    }

    /** @return whether the server holds every message of the stream as acknowledged by the consumer */
    private static boolean acknowledgedAll(JetStreamManagement jsm, long lastSeq) {
        try {
            ConsumerInfo info = jsm.getConsumerInfo(STREAM, DURABLE);
            return info.getAckFloor().getStreamSequence() == lastSeq && info.getNumAckPending() == 0;
        } catch (Exception e) {
            return false;
        }
    }

    /** @return the consumer as the server reports it */
    private static String consumerState(JetStreamManagement jsm) {
        try {
            ConsumerInfo info = jsm.getConsumerInfo(STREAM, DURABLE);
            return "consumer: delivered " + info.getDelivered().getStreamSequence() + ", ack floor "
                    + info.getAckFloor().getStreamSequence() + ", ack pending " + info.getNumAckPending()
                    + ", redelivered " + info.getRedelivered() + ", pending " + info.getNumPending()
                    + ", waiting " + info.getNumWaiting();
        } catch (Exception e) {
            return "consumer info: " + e;
        }
    }

    /** Reads every sequence of the stream back: its Nats-Msg-Id, checked against its payload. */
    private static Map<Long, String> readBack(JetStreamManagement jsm, StreamState state) throws Exception {
        Map<Long, String> stored = new HashMap<>();
        for (long seq = state.getFirstSequence(); seq <= state.getLastSequence(); seq++) {
            MessageInfo message = jsm.getMessage(STREAM, seq);
            String id = message.getHeaders().getFirst("Nats-Msg-Id");
            assertThat(new String(message.getData(), StandardCharsets.UTF_8)).as("payload of %d", seq).isEqualTo(id);
            stored.put(seq, id);
        }
        return stored;
    }

    private static void assertPublished(List<AckedPublisher> publishers, StreamState state,
            Map<Long, String> stored) {
        List<String> ids = new ArrayList<>();
        for (AckedPublisher publisher : publishers) {
            assertThat(publisher.conflicts()).as("ids acknowledged at two sequences, or stored again").isEmpty();
            ids.addAll(publisher.ids());
            publisher.acked().forEach((id, seq) -> assertThat(stored.get(seq))
                    .as("the message at %d, acknowledged to %s", seq, id).isEqualTo(id));
        }
        assertThat(publishers.stream().mapToInt(AckedPublisher::replaysDeduplicated).sum())
                .as("acknowledged ids published again after a restart, answered as duplicates").isPositive();
        assertThat(state.getFirstSequence()).isEqualTo(1);
        assertThat(state.getMsgCount()).as("messages stored").isEqualTo(state.getLastSequence())
                .isEqualTo(ids.size());
        assertThat(stored.values()).as("each id stored once").doesNotHaveDuplicates()
                .containsExactlyInAnyOrderElementsOf(ids);
    }

    private static void assertConsumed(AckingWorker worker, Map<Long, String> stored, ConsumerInfo consumer) {
        assertThat(worker.deliveredAfterAck()).as("delivered after its ackSync was answered").isEmpty();
        Set<String> perLife = new HashSet<>();
        Map<Long, Integer> lastLife = new HashMap<>();
        for (Delivery delivery : worker.deliveries()) {
            assertThat(perLife.add(delivery.sequence() + "@" + delivery.life()))
                    .as("%s: delivered twice by one life", delivery).isTrue();
            assertThat(delivery.msgId()).as("%s: id", delivery).isEqualTo(stored.get(delivery.sequence()));
            lastLife.merge(delivery.sequence(), delivery.life(), Math::max);
        }
        List<Delivery> notAcked = worker.deliveries().stream().filter(d -> d.outcome() == Outcome.NOT_ACKED).toList();
        assertThat(notAcked).as("deliveries left unacknowledged at a kill").isNotEmpty();
        for (Delivery delivery : notAcked) {
            assertThat(lastLife.get(delivery.sequence())).as("%s: delivered again by a later life", delivery)
                    .isGreaterThan(delivery.life());
        }
        // every message came, and the last time it came it was acknowledged: with an answer, or without
        // one where the ack reached the server before it died (then, rightly, nothing came again)
        assertThat(lastLife.keySet()).as("every message delivered").containsExactlyInAnyOrderElementsOf(
                stored.keySet());
        assertThat(consumer.getAckFloor().getStreamSequence()).as("ack floor").isEqualTo(stored.size());
        assertThat(consumer.getNumAckPending()).as("ack pending").isZero();
        assertThat(consumer.getNumPending()).as("pending").isZero();
    }

    private static void report(List<AckedPublisher> publishers, AckingWorker worker, Map<Long, String> stored) {
        Map<Outcome, Long> outcomes = new HashMap<>();
        worker.deliveries().forEach(d -> outcomes.merge(d.outcome(), 1L, Long::sum));
        System.out.printf("kill -9 x%d: %d messages stored; published again for want of a PubAck %d (answered as"
                + " duplicates %d); acknowledged ids replayed after a restart and deduplicated %d; deliveries %d %s%n",
                KILLS, stored.size(), publishers.stream().mapToInt(AckedPublisher::republished).sum(),
                publishers.stream().mapToInt(AckedPublisher::duplicates).sum(),
                publishers.stream().mapToInt(AckedPublisher::replaysDeduplicated).sum(), worker.deliveries().size(),
                outcomes);
    }
}
