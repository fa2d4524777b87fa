package io.ringbus.federation;

import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.api.MessageInfo;
import io.nats.client.api.RetentionPolicy;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.ringbus.core.ConsumerConfig;
import io.ringbus.core.Headers;
import io.ringbus.core.PublishAck;
import io.ringbus.core.StorageException;
import io.ringbus.core.StoredMessage;
import io.ringbus.core.StoredStream;
import io.ringbus.core.StreamConfig;
import io.ringbus.core.StreamConsumer;
import io.ringbus.core.StreamInfo;
import io.ringbus.testkit.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/** {@link JetStreamStorage}'s streams and appends, checked against what the server holds. */
class JetStreamStorageTest {
    private final String root = TestJetStream.unique("s");
    private final List<String> streams = new ArrayList<>();
    private Connection admin;
    private JetStreamManagement management;
    private JetStreamStorage storage;

    @BeforeEach
    void open() throws Exception {
        admin = Nats.connect(TestJetStream.URL);
        management = admin.jetStreamManagement();
        storage = JetStreamStorage.builder().servers(TestJetStream.URL).connect();
    }

    @AfterEach
    void close() throws Exception {
        storage.close();
        for (String name : streams) {
            TestJetStream.deleteStream(admin, name);
        }
        admin.close();
    }

    private StreamConfig config(String pattern) {
        StreamConfig config = StreamConfig.of(root + "." + pattern);
        streams.add(config.name());
        return config;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static PublishAck await(CompletableFuture<PublishAck> ack) throws Exception {
        return ack.get(10, TimeUnit.SECONDS);
    }

    @Test
    void appendsAreAcknowledgedWithTheStreamsSequencesAndStoredWithTheirHeaders() throws Exception {
        StoredStream stream = storage.stream(config("orders.>"));
        PublishAck first = await(stream.append(root + ".orders.1", Headers.of("Trace", "t-1"), bytes("one"), "id-1"));
        PublishAck second = await(stream.append(root + ".orders.2", null, bytes("two"), null));
        assertThat(first).isEqualTo(new PublishAck(stream.config().name(), 1, false));
        assertThat(second).isEqualTo(new PublishAck(stream.config().name(), 2, false));

        MessageInfo stored = management.getMessage(stream.config().name(), 1);
        assertThat(stored.getSubject()).isEqualTo(root + ".orders.1");
        assertThat(new String(stored.getData(), StandardCharsets.UTF_8)).isEqualTo("one");
        assertThat(stored.getHeaders().getFirst("Trace")).isEqualTo("t-1");
        assertThat(stored.getHeaders().getFirst("Nats-Msg-Id")).isEqualTo("id-1");

        try (StreamConsumer consumer = stream.consumer(ConsumerConfig.of("reader", root + ".orders.>"))) {
            StoredMessage read = consumer.fetch(1, Duration.ofSeconds(5)).get(0);
            assertThat(read.headers().first("Trace")).isEqualTo("t-1");
            assertThat(read.headers().first("Nats-Msg-Id")).isEqualTo("id-1");
            assertThat(read.headers().names()).doesNotContain("Nats-Expected-Stream");
            assertThat(read.timestampMillis()).isCloseTo(System.currentTimeMillis(), within(60_000L));
            consumer.ack(read);
        }
    }

    @Test
    void aDuplicateMessageIdIsAcknowledgedAsADuplicateOfTheFirstAlsoOnAnotherConnection() throws Exception {
        StreamConfig config = config("orders.>");
        StoredStream stream = storage.stream(config);
        PublishAck first = await(stream.append(root + ".orders.1", null, bytes("a"), "order-7"));
        PublishAck again = await(stream.append(root + ".orders.1", null, bytes("a"), "order-7"));
        assertThat(again).isEqualTo(new PublishAck(config.name(), first.sequence(), true));

        try (JetStreamStorage other = JetStreamStorage.builder().servers(TestJetStream.URL).connect()) {
            PublishAck third = await(other.stream(config).append(root + ".orders.9", null, bytes("b"), "order-7"));
            assertThat(third.duplicate()).isTrue();
            assertThat(third.sequence()).isEqualTo(first.sequence());
        }
        // The id may come as a header too (a NATS client's publish); the msgId argument wins over it.
        PublishAck byHeader = await(stream.append(root + ".orders.2", Headers.of("Nats-Msg-Id", "h-1"), bytes("c"),
                null));
        assertThat(await(stream.append(root + ".orders.2", Headers.of("Nats-Msg-Id", "h-1"), bytes("c"), null)))
                .isEqualTo(new PublishAck(config.name(), byHeader.sequence(), true));
        PublishAck overridden = await(stream.append(root + ".orders.3", Headers.of("Nats-Msg-Id", "h-1"), bytes("d"),
                "arg-1"));
        assertThat(overridden.duplicate()).isFalse();
        assertThat(management.getMessage(config.name(), overridden.sequence()).getHeaders().get("Nats-Msg-Id"))
                .containsExactly("arg-1");
        assertThat(stream.info().messages()).isEqualTo(3);
    }

    @Test
    void refusesASubjectTheStreamDoesNotStoreBeforeSendingIt() {
        StoredStream stream = storage.stream(config("orders.*"));
        assertThatThrownBy(() -> stream.append(root + ".orders.eu.1", null, bytes("x"), null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(root + ".orders.eu.1")
                .hasMessageContaining(stream.config().name());
        assertThatThrownBy(() -> stream.tryAppend(root + ".payments.1", null, bytes("x"), null))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(stream.info().lastSequence()).isZero();
    }

    @Test
    void refusesAStreamCreatedElsewhereWithOtherSubjectsNamingBoth() throws Exception {
        StreamConfig config = config("orders.>");
        management.addStream(StreamConfiguration.builder().name(config.name()).subjects(root + ".payments.>")
                .storageType(StorageType.Memory).build());
        assertThatThrownBy(() -> storage.stream(config)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(config.name()).hasMessageContaining(root + ".payments.>")
                .hasMessageContaining(root + ".orders.>");
    }

    @Test
    void createsTheStreamWithItsLimitsAndUpdatesThemKeepingTheMessages() throws Exception {
        StreamConfig config = config("prices.*").withMaxAge(Duration.ofHours(1)).withMaxMessages(1_000)
                .withMaxBytes(1 << 20).withMaxMessagesPerSubject(3).withDuplicateWindow(Duration.ofMinutes(5));
        StoredStream stream = storage.stream(config);
        await(stream.append(root + ".prices.a", null, bytes("1"), null));
        StreamConfiguration created = management.getStreamInfo(config.name()).getConfiguration();
        assertThat(created.getStorageType()).isEqualTo(StorageType.File);
        assertThat(created.getRetentionPolicy()).isEqualTo(RetentionPolicy.Limits);
        assertThat(created.getMaxAge()).isEqualTo(Duration.ofHours(1));
        assertThat(created.getMaxMsgs()).isEqualTo(1_000);
        assertThat(created.getMaxBytes()).isEqualTo(1 << 20);
        assertThat(created.getMaxMsgsPerSubject()).isEqualTo(3);
        assertThat(created.getDuplicateWindow()).isEqualTo(Duration.ofMinutes(5));
        assertThat(created.getReplicas()).isEqualTo(1);

        // Another process opens it with other limits: they are applied, the message stays. A
        // duplicate window beyond maxAge is clamped to it (JetStream refuses a longer one).
        StreamConfig changed = config.withMaxAge(Duration.ofMinutes(1)).withMaxMessages(-1);
        try (JetStreamStorage other = JetStreamStorage.builder().servers(TestJetStream.URL).connect()) {
            assertThat(other.stream(changed).info().messages()).isEqualTo(1);
        }
        StreamConfiguration updated = management.getStreamInfo(config.name()).getConfiguration();
        assertThat(updated.getMaxAge()).isEqualTo(Duration.ofMinutes(1));
        assertThat(updated.getMaxMsgs()).isEqualTo(-1);
        assertThat(updated.getDuplicateWindow()).isEqualTo(Duration.ofMinutes(1));
    }

    @Test
    void theSameNameGivesTheSameStreamAndAnotherPatternUnderItIsRefused() {
        StreamConfig config = config("orders.>");
        StoredStream stream = storage.stream(config);
        assertThat(storage.stream(config)).isSameAs(stream);
        assertThatThrownBy(() -> storage.stream(StreamConfig.of(root + ".other.>").withName(config.name())))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(config.name());
    }

    @Test
    void whatTheServerRefusesIsAStorageExceptionNamingTheStream() {
        storage.stream(config("orders.>"));
        StreamConfig overlapping = config("orders.eu");
        assertThatThrownBy(() -> storage.stream(overlapping)).isInstanceOf(StorageException.class)
                .hasMessageContaining(overlapping.name()).hasMessageContaining("overlap");
        StreamConfig replicated = config("replicated.>").withReplicas(3);
        assertThatThrownBy(() -> storage.stream(replicated)).isInstanceOf(StorageException.class)
                .hasMessageContaining(replicated.name()).hasMessageContaining("replicas");
    }

    @Test
    void anEmptyStreamReportsFirstSequenceAfterTheLast() throws Exception {
        StoredStream stream = storage.stream(config("orders.>"));
        assertThat(stream.info()).isEqualTo(new StreamInfo(stream.config().name(), 0, 0, 1, 0));
        await(stream.append(root + ".orders.1", null, bytes("x"), null));
        management.purgeStream(stream.config().name());
        assertThat(stream.info()).isEqualTo(new StreamInfo(stream.config().name(), 0, 0, 2, 1));
    }

    @Test
    void aWorkQueueStreamDeletesWhatItsConsumerAcknowledged() throws Exception {
        StoredStream stream = storage.stream(config("jobs.>").withRetention(StreamConfig.Retention.WORK_QUEUE));
        for (int i = 0; i < 3; i++) {
            await(stream.append(root + ".jobs." + i, null, bytes("job" + i), null));
        }
        try (StreamConsumer worker = stream.consumer(ConsumerConfig.of("workers", root + ".jobs.>"))) {
            List<StoredMessage> jobs = worker.fetch(3, Duration.ofSeconds(5));
            assertThat(jobs).hasSize(3);
            jobs.forEach(worker::ack);
        }
        Await.until("acknowledged jobs deleted", () -> stream.info().messages() == 0);
        assertThat(stream.info().lastSequence()).isEqualTo(3);
    }

    @Test
    void aGivenConnectionIsFlushedButNotClosedAndDescribeNamesTheServer() throws Exception {
        Connection own = Nats.connect(TestJetStream.URL);
        try {
            JetStreamStorage onIt = JetStreamStorage.builder(own).connect();
            StoredStream stream = onIt.stream(config("orders.>"));
            await(stream.append(root + ".orders.1", null, bytes("x"), null));
            assertThat(onIt.describe()).isEqualTo("jetstream " + TestJetStream.URL + " (file, R1)");
            onIt.close();
            assertThat(own.getStatus()).isEqualTo(Connection.Status.CONNECTED);
            assertThatThrownBy(() -> stream.append(root + ".orders.2", null, bytes("y"), null))
                    .isInstanceOf(IllegalStateException.class);
        } finally {
            own.close();
        }
    }
}
