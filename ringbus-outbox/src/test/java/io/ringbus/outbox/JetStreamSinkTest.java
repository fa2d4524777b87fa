package io.ringbus.outbox;

import io.ringbus.testkit.Await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.api.MessageInfo;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.ringbus.core.Headers;
import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@link JetStreamSink} against the machine's NATS JetStream, through a real relay on H2. */
class JetStreamSinkTest {
    private static final String NATS_URL = System.getenv().getOrDefault("RINGBUS_TEST_NATS_URL", "nats://127.0.0.1:4222");

    private final String stream = "ringbus_test_" + Long.toHexString(System.nanoTime())
            + ThreadLocalRandom.current().nextInt(1_000_000);
    /** The first subject token of this test's stream, {@code t<random>}. */
    private final String root = "t" + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
    private Connection connection;
    private JetStreamManagement management;
    private Outbox outbox;
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @BeforeEach
    void open() throws Exception {
        connection = Nats.connect(NATS_URL);
        management = connection.jetStreamManagement();
        outbox = Outbox.builder().jdbcUrl(TestDatabases.h2Url()).open();
    }

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : toClose.reversed()) {
            c.close();
        }
        outbox.close();
        try {
            management.deleteStream(stream);
        } catch (Exception e) {
            // The test did not create it.
        }
        connection.close();
    }

    private void createStream() throws Exception {
        management.addStream(StreamConfiguration.builder().name(stream).subjects(root + ".>")
                .storageType(StorageType.Memory).duplicateWindow(Duration.ofMinutes(2)).build());
    }

    private long streamMessages() {
        try {
            return management.getStreamInfo(stream).getStreamState().getMsgCount();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private <T extends AutoCloseable> T closeLater(T closeable) {
        toClose.add(closeable);
        return closeable;
    }

    private Relay relay(OutboxSink sink) {
        return closeLater(outbox.relay().deleteDelivered(false).sink(sink).pollInterval(Duration.ofMillis(20))
                .retryPolicy(new RetryPolicy(100, Duration.ofMillis(50), Duration.ofMillis(200), 0)).start());
    }

    @Test
    void relayDeliversRowsToTheStreamWithTheirHeaders() throws Exception {
        createStream();
        // The sink owns its connection here and puts the stream's root token before each subject.
        JetStreamSink sink = closeLater(JetStreamSink.builder(NATS_URL).subjectPrefix(root).build());
        relay(sink);
        long first = outbox.publish("orders.created", "order-1", bytes("one"), Headers.of("Trace", "t-1"));
        for (int i = 0; i < 19; i++) {
            outbox.publish("orders.updated", i % 2 == 0 ? "order-" + i : null, bytes("n" + i), Headers.EMPTY);
        }
        Await.until("20 rows delivered", () -> counts().delivered() == 20);
        assertThat(streamMessages()).isEqualTo(20);
        assertThat(sink.duplicates()).isZero();

        MessageInfo stored = management.getMessage(stream, 1);
        assertThat(stored.getSubject()).isEqualTo(root + ".orders.created");
        assertThat(new String(stored.getData(), StandardCharsets.UTF_8)).isEqualTo("one");
        assertThat(stored.getHeaders().getFirst("Ringbus-Event-Id")).isEqualTo(String.valueOf(first));
        assertThat(stored.getHeaders().getFirst("Nats-Msg-Id")).isEqualTo(String.valueOf(first));
        assertThat(stored.getHeaders().getFirst("Ringbus-Key")).isEqualTo("order-1");
        assertThat(stored.getHeaders().getFirst("Trace")).isEqualTo("t-1");
    }

    @Test
    void redeliveredRowIsStoredOnceAndCountsAsDelivered() throws Exception {
        createStream();
        JetStreamSink sink = closeLater(JetStreamSink.builder(connection).build());
        Relay relay = relay(sink);
        long id = outbox.publish(root + ".payments.captured", "p-1", bytes("x"), Headers.EMPTY);
        Await.until("delivered", () -> counts().delivered() == 1);
        assertThat(streamMessages()).isEqualTo(1);

        // As if the relay had crashed after the PubAck and before its commit: the row is pending again.
        try (java.sql.Connection c = outbox.dataSource().getConnection();
             PreparedStatement update = c.prepareStatement("UPDATE public.ringbus_outbox SET status = 0 WHERE id = ?")) {
            update.setLong(1, id);
            assertThat(update.executeUpdate()).isEqualTo(1);
        }
        relay.wakeUp();
        Await.until("delivered again", () -> relay.stats().delivered() == 2 && counts().delivered() == 1);
        assertThat(sink.duplicates()).as("the PubAck said duplicate").isEqualTo(1);
        assertThat(streamMessages()).as("JetStream dropped the duplicate").isEqualTo(1);
        assertThat(counts().dead()).isZero();
    }

    @Test
    void subjectWithoutAStreamIsRetriedUntilTheStreamExists() throws Exception {
        JetStreamSink sink = closeLater(JetStreamSink.builder(connection).ackTimeout(Duration.ofSeconds(2)).build());
        Relay relay = relay(sink);
        outbox.publish(root + ".early.bird", null, bytes("x"), Headers.EMPTY);
        Await.until("retried while no stream captures the subject", () -> relay.stats().retried() >= 3);
        assertThat(counts()).isEqualTo(new OutboxCounts(1, 0, 0));

        createStream();
        Await.until("delivered once the stream exists", () -> counts().delivered() == 1);
        assertThat(streamMessages()).isEqualTo(1);
        assertThat(counts().dead()).isZero();
    }

    @Test
    void noResponderFailureNamesTheSubjectAndIsNotPermanent() throws Exception {
        JetStreamSink sink = closeLater(JetStreamSink.builder(connection).build());
        OutboxEvent event = new OutboxEvent(9, "9", root + ".nowhere", null, bytes("x"), Headers.EMPTY, 0,
                Instant.now());
        Throwable failure = sink.deliver(event).toCompletableFuture().handle((ack, e) -> e).get();
        assertThat(failure).isNotNull().isNotInstanceOf(PermanentDeliveryException.class)
                .hasMessageContaining(root + ".nowhere").hasMessageContaining("503");
    }

    @Test
    void builderRejectsBadValuesNamingThem() {
        assertThatThrownBy(() -> JetStreamSink.builder(" ")).hasMessageContaining("serverUrl=' '");
        JetStreamSinkBuilder builder = JetStreamSink.builder(connection);
        assertThatThrownBy(() -> builder.maxConcurrency(0)).hasMessageContaining("maxConcurrency=0");
        assertThatThrownBy(() -> builder.ackTimeout(Duration.ZERO)).hasMessageContaining("ackTimeout=PT0S");
        assertThatThrownBy(() -> builder.subjectPrefix("a.*")).hasMessageContaining("subjectPrefix='a.*'");
        assertThatThrownBy(() -> builder.subjectPrefix("a b")).hasMessageContaining("subjectPrefix='a b'");
        assertThatThrownBy(() -> builder.name("")).hasMessageContaining("name=''");
    }

    private OutboxCounts counts() {
        return TestDatabases.counts(outbox);
    }

    private static byte[] bytes(String text) {
        return OutboxContractTest.bytes(text);
    }
}
