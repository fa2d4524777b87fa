package io.ringbus.storage.tck;

import io.ringbus.core.ConsumerConfig;
import io.ringbus.core.Headers;
import io.ringbus.core.PublishAck;
import io.ringbus.core.StartPosition;
import io.ringbus.core.Storage;
import io.ringbus.core.StoredMessage;
import io.ringbus.core.StoredStream;
import io.ringbus.core.StreamConfig;
import io.ringbus.core.StreamConsumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The contract of {@link Storage}: what every store does, whatever it stores on. Each store's tests
 * extend this class and say how to open the store; every case runs against each (JCTools'
 * {@code QueueSanityTest} style). Stream names are unique per test, so a shared server is fine.
 */
public abstract class StorageContract {
    private static final Duration WAIT = Duration.ofSeconds(5);

    /** Per test: a directory a local store may use; a server-backed store ignores it. */
    @TempDir
    protected Path dir;
    private Storage storage;
    private String prefix;

    /**
     * Opens the store under test. Called again after {@link Storage#close()} to test what survives:
     * it must then see what the earlier instance stored.
     *
     * @param directory the test's directory
     * @return an open store
     */
    protected abstract Storage open(Path directory);

    /** Hook for stores that must clean up streams made by a test (a shared server). */
    protected void deleteStreams(Storage store, List<String> names) {
    }

    private final List<String> made = new ArrayList<>();

    @BeforeEach
    void openStore() {
        storage = open(dir);
        prefix = "T" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
    }

    @AfterEach
    void closeStore() {
        if (storage != null) {
            deleteStreams(storage, made);
            storage.close();
        }
    }

    private StreamConfig config(String subjects) {
        String root = prefix + "." + subjects;
        StreamConfig config = StreamConfig.of(root);
        made.add(config.name());
        return config;
    }

    private String subject(String rest) {
        return prefix + "." + rest;
    }

    private Storage reopen() {
        storage.close();
        storage = open(dir);
        return storage;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static PublishAck await(CompletableFuture<PublishAck> ack) throws Exception {
        return ack.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    }

    private static List<StoredMessage> drain(StreamConsumer consumer, int expected) throws InterruptedException {
        List<StoredMessage> got = new ArrayList<>();
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (got.size() < expected && System.nanoTime() < deadline) {
            got.addAll(consumer.fetch(expected - got.size(), Duration.ofMillis(200)));
        }
        return got;
    }

    private static List<String> payloads(List<StoredMessage> messages) {
        return messages.stream().map(StoredMessage::payloadAsString).toList();
    }

    private void publish(StoredStream stream, String subjectRest, int count) throws Exception {
        for (int i = 1; i <= count; i++) {
            await(stream.append(subject(subjectRest), null, bytes("m" + i), null));
        }
    }

    @Test
    void acknowledgesAppendsWithConsecutiveSequences() throws Exception {
        StoredStream stream = storage.stream(config("orders.>"));
        long first = await(stream.append(subject("orders.1"), null, bytes("a"), null)).sequence();
        PublishAck second = await(stream.append(subject("orders.2"), null, bytes("b"), null));
        assertThat(second.sequence()).isEqualTo(first + 1);
        assertThat(second.stream()).isEqualTo(stream.config().name());
        assertThat(second.duplicate()).isFalse();
        assertThat(stream.info().messages()).isEqualTo(2);
        assertThat(stream.info().lastSequence()).isEqualTo(second.sequence());
    }

    @Test
    void dropsADuplicateMessageIdWithinTheWindow() throws Exception {
        StoredStream stream = storage.stream(config("orders.>"));
        PublishAck first = await(stream.append(subject("orders.1"), null, bytes("a"), "id-1"));
        PublishAck again = await(stream.append(subject("orders.1"), null, bytes("a"), "id-1"));
        assertThat(again.duplicate()).isTrue();
        assertThat(again.sequence()).isEqualTo(first.sequence());
        assertThat(stream.info().messages()).isEqualTo(1);
    }

    @Test
    void refusesASubjectOutsideTheStream() {
        StoredStream stream = storage.stream(config("orders.>"));
        assertThatThrownBy(() -> stream.append(prefix + ".payments.1", null, bytes("x"), null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("payments.1");
    }

    @Test
    void refusesAnExistingStreamWithOtherSubjects() {
        StreamConfig config = config("orders.>");
        storage.stream(config);
        StreamConfig other = StreamConfig.of(subject("payments.>")).withName(config.name());
        assertThatThrownBy(() -> storage.stream(other)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(config.name());
    }

    @Test
    void deliversInOrderWithHeadersAndSubjects() throws Exception {
        StoredStream stream = storage.stream(config("orders.>"));
        await(stream.append(subject("orders.eu"), Headers.of("k", "v1"), bytes("m1"), null));
        await(stream.append(subject("orders.us"), null, bytes("m2"), null));
        try (StreamConsumer consumer = stream.consumer(ConsumerConfig.of("c", subject("orders.>")))) {
            List<StoredMessage> got = drain(consumer, 2);
            assertThat(payloads(got)).containsExactly("m1", "m2");
            assertThat(got.get(0).subject()).isEqualTo(subject("orders.eu"));
            assertThat(got.get(0).headers().first("k")).isEqualTo("v1");
            assertThat(got.get(0).deliveries()).isEqualTo(1);
            assertThat(got.get(1).sequence()).isGreaterThan(got.get(0).sequence());
            got.forEach(consumer::ack);
        }
    }

    @Test
    void resumesAfterTheLastAcknowledgedMessageAcrossARestart() throws Exception {
        StreamConfig config = config("orders.>");
        StoredStream stream = storage.stream(config);
        publish(stream, "orders.1", 10);
        try (StreamConsumer consumer = stream.consumer(ConsumerConfig.of("billing", subject("orders.>")))) {
            List<StoredMessage> got = drain(consumer, 4);
            assertThat(payloads(got)).containsExactly("m1", "m2", "m3", "m4");
            got.forEach(consumer::ack);
        }
        StoredStream again = reopen().stream(config);
        try (StreamConsumer consumer = again.consumer(ConsumerConfig.of("billing", subject("orders.>")))) {
            List<StoredMessage> rest = drain(consumer, 6);
            assertThat(payloads(rest)).containsExactly("m5", "m6", "m7", "m8", "m9", "m10");
            rest.forEach(consumer::ack);
            assertThat(consumer.fetch(1, Duration.ofMillis(300))).isEmpty();
        }
    }

    @Test
    void redeliversANakedMessageAfterItsDelay() throws Exception {
        StoredStream stream = storage.stream(config("orders.>"));
        publish(stream, "orders.1", 1);
        try (StreamConsumer consumer = stream.consumer(ConsumerConfig.of("c", subject("orders.>")))) {
            StoredMessage first = drain(consumer, 1).get(0);
            long nakedAt = System.nanoTime();
            consumer.nak(first, Duration.ofMillis(300));
            StoredMessage again = drain(consumer, 1).get(0);
            assertThat(System.nanoTime() - nakedAt).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(250));
            assertThat(again.sequence()).isEqualTo(first.sequence());
            assertThat(again.deliveries()).isEqualTo(2);
            consumer.ack(again);
        }
    }

    @Test
    void redeliversAMessageNotAcknowledgedWithinTheAckWait() throws Exception {
        StoredStream stream = storage.stream(config("orders.>"));
        publish(stream, "orders.1", 1);
        ConsumerConfig config = new ConsumerConfig("c", subject("orders.>"), StartPosition.all(),
                Duration.ofMillis(500), 5, 100);
        try (StreamConsumer consumer = stream.consumer(config)) {
            StoredMessage first = drain(consumer, 1).get(0);
            StoredMessage again = drain(consumer, 1).get(0);
            assertThat(again.sequence()).isEqualTo(first.sequence());
            assertThat(again.deliveries()).isEqualTo(2);
            consumer.ack(again);
        }
    }

    @Test
    void stopsDeliveringAfterMaxDeliver() throws Exception {
        StoredStream stream = storage.stream(config("orders.>"));
        publish(stream, "orders.1", 1);
        ConsumerConfig config = new ConsumerConfig("c", subject("orders.>"), StartPosition.all(),
                Duration.ofSeconds(30), 2, 100);
        try (StreamConsumer consumer = stream.consumer(config)) {
            consumer.nak(drain(consumer, 1).get(0), Duration.ZERO);
            StoredMessage second = drain(consumer, 1).get(0);
            assertThat(second.deliveries()).isEqualTo(2);
            consumer.nak(second, Duration.ZERO);
            assertThat(consumer.fetch(1, Duration.ofMillis(500))).isEmpty();
        }
    }

    @Test
    void boundsTheMessagesOutAtOnceByMaxAckPending() throws Exception {
        StoredStream stream = storage.stream(config("orders.>"));
        publish(stream, "orders.1", 10);
        ConsumerConfig config = new ConsumerConfig("c", subject("orders.>"), StartPosition.all(),
                Duration.ofSeconds(30), 5, 3);
        try (StreamConsumer consumer = stream.consumer(config)) {
            List<StoredMessage> out = drain(consumer, 3);
            assertThat(out).hasSize(3);
            assertThat(consumer.fetch(5, Duration.ofMillis(300))).isEmpty();
            consumer.ack(out.get(0));
            assertThat(payloads(drain(consumer, 1))).containsExactly("m4");
        }
    }

    @Test
    void handlesOfOneDurableShareItsMessages() throws Exception {
        StoredStream stream = storage.stream(config("orders.>"));
        publish(stream, "orders.1", 20);
        ConsumerConfig config = ConsumerConfig.of("shared", subject("orders.>"));
        try (StreamConsumer a = stream.consumer(config); StreamConsumer b = stream.consumer(config)) {
            Set<Long> seen = new HashSet<>();
            int total = 0;
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (total < 20 && System.nanoTime() < deadline) {
                for (StreamConsumer c : List.of(a, b)) {
                    for (StoredMessage m : c.fetch(3, Duration.ofMillis(100))) {
                        assertThat(seen.add(m.sequence())).as("delivered twice: %s", m).isTrue();
                        c.ack(m);
                        total++;
                    }
                }
            }
            assertThat(seen).hasSize(20);
        }
    }

    @Test
    void filtersBySubject() throws Exception {
        StoredStream stream = storage.stream(config("orders.>"));
        await(stream.append(subject("orders.eu.1"), null, bytes("eu1"), null));
        await(stream.append(subject("orders.us.1"), null, bytes("us1"), null));
        await(stream.append(subject("orders.eu.2"), null, bytes("eu2"), null));
        try (StreamConsumer consumer = stream.consumer(ConsumerConfig.of("eu", subject("orders.eu.*")))) {
            List<StoredMessage> got = drain(consumer, 2);
            assertThat(payloads(got)).containsExactly("eu1", "eu2");
            got.forEach(consumer::ack);
            assertThat(consumer.fetch(1, Duration.ofMillis(300))).isEmpty();
        }
    }

    @Test
    void startsWhereAsked() throws Exception {
        StoredStream stream = storage.stream(config("orders.>"));
        await(stream.append(subject("orders.a"), null, bytes("a1"), null));
        long second = await(stream.append(subject("orders.b"), null, bytes("b1"), null)).sequence();
        await(stream.append(subject("orders.a"), null, bytes("a2"), null));
        Thread.sleep(20);
        Instant between = Instant.now();
        Thread.sleep(20);
        await(stream.append(subject("orders.b"), null, bytes("b2"), null));
        String all = subject("orders.>");
        try (StreamConsumer fromSeq = stream.consumer(consumer("seq", all, StartPosition.sequence(second)));
             StreamConsumer fromTime = stream.consumer(consumer("time", all, StartPosition.time(between)));
             StreamConsumer last = stream.consumer(consumer("last", all, StartPosition.lastPerSubject()));
             StreamConsumer newOnly = stream.consumer(consumer("new", all, StartPosition.newOnly()))) {
            assertThat(payloads(drain(fromSeq, 3))).containsExactly("b1", "a2", "b2");
            assertThat(payloads(drain(fromTime, 1))).containsExactly("b2");
            assertThat(payloads(drain(last, 2))).containsExactly("a2", "b2");
            assertThat(newOnly.fetch(1, Duration.ofMillis(300))).isEmpty();
            await(stream.append(subject("orders.c"), null, bytes("c1"), null));
            assertThat(payloads(drain(newOnly, 1))).containsExactly("c1");
        }
    }

    private static ConsumerConfig consumer(String name, String filter, StartPosition start) {
        return new ConsumerConfig(name, filter, start, ConsumerConfig.DEFAULT_ACK_WAIT,
                ConsumerConfig.DEFAULT_MAX_DELIVER, ConsumerConfig.DEFAULT_MAX_ACK_PENDING);
    }

    @Test
    void keepsTheLastMessagesOfEachSubjectAcrossARestart() throws Exception {
        StreamConfig config = config("prices.*").withMaxMessagesPerSubject(2);
        StoredStream stream = storage.stream(config);
        for (int i = 1; i <= 4; i++) {
            await(stream.append(subject("prices.a"), null, bytes("a" + i), null));
            await(stream.append(subject("prices.b"), null, bytes("b" + i), null));
        }
        assertThat(stream.info().messages()).isEqualTo(4);
        try (StreamConsumer consumer = stream.consumer(ConsumerConfig.of("all", subject("prices.*")))) {
            assertThat(payloads(drain(consumer, 4))).containsExactly("a3", "b3", "a4", "b4");
        }
        StoredStream again = reopen().stream(config);
        await(again.append(subject("prices.a"), null, bytes("a5"), null));
        assertThat(again.info().messages()).isEqualTo(4);
        try (StreamConsumer consumer = again.consumer(ConsumerConfig.of("fresh", subject("prices.*")))) {
            assertThat(payloads(drain(consumer, 4))).containsExactly("b3", "a4", "b4", "a5");
        }
    }

    @Test
    void aClosedHandleGivesItsMessagesBack() throws Exception {
        StoredStream stream = storage.stream(config("orders.>"));
        publish(stream, "orders.1", 2);
        ConsumerConfig config = new ConsumerConfig("c", subject("orders.>"), StartPosition.all(),
                Duration.ofSeconds(1), 5, 100);
        StreamConsumer first = stream.consumer(config);
        assertThat(drain(first, 2)).hasSize(2);
        first.close();
        try (StreamConsumer second = stream.consumer(config)) {
            List<StoredMessage> again = drain(second, 2);
            assertThat(payloads(again)).containsExactly("m1", "m2");
            assertThat(again).allSatisfy(m -> assertThat(m.deliveries()).isEqualTo(2));
        }
    }

    @Test
    void wakesAWaitingFetchWhenAMessageArrives() throws Exception {
        StoredStream stream = storage.stream(config("orders.>"));
        try (StreamConsumer consumer = stream.consumer(ConsumerConfig.of("c", subject("orders.>")))) {
            CompletableFuture<List<StoredMessage>> fetched = CompletableFuture.supplyAsync(() -> {
                try {
                    return consumer.fetch(1, Duration.ofSeconds(10));
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            Thread.sleep(200);
            long start = System.nanoTime();
            await(stream.append(subject("orders.1"), null, bytes("late"), null));
            assertThat(payloads(fetched.get(5, TimeUnit.SECONDS))).containsExactly("late");
            assertThat(System.nanoTime() - start).isLessThan(TimeUnit.SECONDS.toNanos(5));
        }
    }
}
