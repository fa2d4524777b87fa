package io.ringbus.jetstream;

import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.JetStreamManagement;
import io.nats.client.JetStreamSubscription;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.PullSubscribeOptions;
import io.nats.client.api.RetentionPolicy;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.ringbus.testkit.Await;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code workqueue} and {@code interest} retention with jnats, on ringbus-server and on nats-server
 * 2.9.10 {@code -js}: what every consumer acknowledged goes (ringbus within its 50 ms retention pass),
 * an interest stream without consumers keeps nothing, a work queue without one keeps everything.
 */
class ConsumedRetentionTest {
    private static final Duration BOUND = Duration.ofSeconds(5);

    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"ringbus", "nats-server"})
    void aWorkQueueDropsWhatItsConsumerAcknowledged(String server) throws Exception {
        try (AutoCloseable running = BothServers.start(server, dir)) {
            Connection nats = Nats.connect(BothServers.url(running));
            try {
                JetStreamManagement jsm = nats.jetStreamManagement();
                jsm.addStream(StreamConfiguration.builder().name("JOBS").subjects("jobs.>")
                        .retentionPolicy(RetentionPolicy.WorkQueue).storageType(StorageType.File).build());
                JetStream js = nats.jetStream();
                for (int i = 0; i < 10; i++) {
                    js.publish("jobs.x", new byte[] {(byte) i});
                }
                Await.until("a work queue without consumers keeps its messages", BOUND,
                        () -> messages(jsm, "JOBS") == 10);
                JetStreamSubscription worker = js.subscribe("jobs.>", PullSubscribeOptions.builder().durable("w")
                        .build());
                List<Message> got = worker.fetch(6, Duration.ofSeconds(2));
                assertThat(got).hasSize(6);
                got.forEach(Message::ack);
                Await.until("the acknowledged go", BOUND, () -> messages(jsm, "JOBS") == 4);
                assertThat(jsm.getStreamInfo("JOBS").getStreamState().getFirstSequence()).isEqualTo(7);
            } finally {
                nats.close();
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"ringbus", "nats-server"})
    void anInterestStreamKeepsAMessageUntilEveryConsumerAcknowledgedIt(String server) throws Exception {
        try (AutoCloseable running = BothServers.start(server, dir)) {
            Connection nats = Nats.connect(BothServers.url(running));
            try {
                JetStreamManagement jsm = nats.jetStreamManagement();
                jsm.addStream(StreamConfiguration.builder().name("EVENTS").subjects("events.>")
                        .retentionPolicy(RetentionPolicy.Interest).storageType(StorageType.File).build());
                JetStream js = nats.jetStream();
                for (int i = 0; i < 5; i++) {
                    js.publish("events.x", new byte[] {(byte) i});
                }
                Await.until("nobody is interested: nothing kept", BOUND, () -> messages(jsm, "EVENTS") == 0);
                JetStreamSubscription a = js.subscribe("events.>", PullSubscribeOptions.builder().durable("a")
                        .build());
                JetStreamSubscription b = js.subscribe("events.>", PullSubscribeOptions.builder().durable("b")
                        .build());
                for (int i = 0; i < 4; i++) {
                    assertThat(js.publish("events.x", new byte[] {(byte) i}).getSeqno()).isEqualTo(6 + i);
                }
                a.fetch(4, Duration.ofSeconds(2)).forEach(Message::ack);
                Thread.sleep(300); // more than ringbus's retention pass: b still holds them
                assertThat(messages(jsm, "EVENTS")).as("b has not acknowledged").isEqualTo(4);
                List<Message> some = b.fetch(4, Duration.ofSeconds(2));
                assertThat(some).hasSize(4);
                some.forEach(Message::ack);
                Await.until("every consumer acknowledged", BOUND, () -> messages(jsm, "EVENTS") == 0);
            } finally {
                nats.close();
            }
        }
    }

    private static long messages(JetStreamManagement jsm, String stream) {
        try {
            return jsm.getStreamInfo(stream).getStreamState().getMsgCount();
        } catch (IOException | io.nats.client.JetStreamApiException e) {
            throw new IllegalStateException(e);
        }
    }
}
