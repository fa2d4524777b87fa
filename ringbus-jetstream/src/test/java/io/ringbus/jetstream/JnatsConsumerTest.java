package io.ringbus.jetstream;

import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.JetStreamSubscription;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.PullSubscribeOptions;
import io.nats.client.PushSubscribeOptions;
import io.nats.client.api.AckPolicy;
import io.nats.client.api.ConsumerConfiguration;
import io.nats.client.api.ConsumerInfo;
import io.nats.client.api.ReplayPolicy;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * jnats' own consumers, unchanged, against ringbus-server: a durable pull subscription (fetch, ack,
 * redelivery of what was not acknowledged), a push subscription, an ordered consumer, consumer
 * management (info, names, delete), and a durable consumer's position across a restart.
 */
@SuppressWarnings("try") // jnats' Connection.close throws InterruptedException
class JnatsConsumerTest {
    @TempDir
    Path store;

    private static void stream(Connection nats, String name, String subjects) throws Exception {
        nats.jetStreamManagement().addStream(StreamConfiguration.builder().name(name).subjects(subjects)
                .storageType(StorageType.File).build());
    }

    private static void publish(JetStream js, String subject, int from, int to) throws Exception {
        for (int i = from; i <= to; i++) {
            js.publish(subject, ("m" + i).getBytes(StandardCharsets.UTF_8));
        }
    }

    private static String text(Message message) {
        return new String(message.getData(), StandardCharsets.UTF_8);
    }

    @Test
    void pullFetchAcksAndRedeliversWhatWasNotAcked() throws Exception {
        try (JetStreamServer server = JetStreamServer.start(store); Connection nats = Nats.connect(server.url())) {
            stream(nats, "ORDERS", "orders.>");
            JetStream js = nats.jetStream();
            publish(js, "orders.new", 1, 5);
            JetStreamSubscription sub = js.subscribe("orders.>", PullSubscribeOptions.builder().durable("worker")
                    .configuration(ConsumerConfiguration.builder().ackWait(Duration.ofMillis(500)).build()).build());
            List<Message> first = sub.fetch(3, Duration.ofSeconds(2));
            assertThat(first).extracting(JnatsConsumerTest::text).containsExactly("m1", "m2", "m3");
            first.get(0).ack();
            first.get(1).ackSync(Duration.ofSeconds(2));
            // m3 is not acked: it comes again after its ack wait, after m4 and m5
            List<Message> rest = new ArrayList<>();
            long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (rest.size() < 3 && System.nanoTime() < deadline) {
                for (Message message : sub.fetch(3 - rest.size(), Duration.ofSeconds(1))) {
                    rest.add(message);
                    message.ack();
                }
            }
            assertThat(rest).extracting(JnatsConsumerTest::text).containsExactlyInAnyOrder("m3", "m4", "m5");
            Message redelivered = rest.stream().filter(m -> text(m).equals("m3")).findFirst().orElseThrow();
            assertThat(redelivered.metaData().deliveredCount()).isEqualTo(2);
            assertThat(redelivered.metaData().streamSequence()).isEqualTo(3);

            JetStreamManagement jsm = nats.jetStreamManagement();
            Thread.sleep(100); // the last acks are applied on the consumers' thread
            ConsumerInfo info = jsm.getConsumerInfo("ORDERS", "worker");
            assertThat(info.getDelivered().getStreamSequence()).isEqualTo(5);
            assertThat(info.getAckFloor().getStreamSequence()).isEqualTo(5);
            assertThat(info.getNumAckPending()).isZero();
            assertThat(info.getNumPending()).isZero();
            assertThat(jsm.getConsumerNames("ORDERS")).containsExactly("worker");
            assertThat(sub.fetch(1, Duration.ofMillis(300))).isEmpty();
            assertThat(jsm.getAccountStatistics().getConsumers()).isEqualTo(1);
            assertThat(jsm.deleteConsumer("ORDERS", "worker")).isTrue();
            assertThat(jsm.getConsumerNames("ORDERS")).isEmpty();
        }
    }

    @Test
    void nakTermMaxDeliverAndAckAll() throws Exception {
        try (JetStreamServer server = JetStreamServer.start(store); Connection nats = Nats.connect(server.url())) {
            stream(nats, "TASKS", "tasks.>");
            JetStream js = nats.jetStream();
            publish(js, "tasks.a", 1, 4);
            JetStreamManagement jsm = nats.jetStreamManagement();
            JetStreamSubscription sub = js.subscribe("tasks.>", PullSubscribeOptions.builder().durable("t")
                    .configuration(ConsumerConfiguration.builder().maxDeliver(2).ackWait(Duration.ofSeconds(30))
                            .build()).build());
            List<Message> first = sub.fetch(4, Duration.ofSeconds(2));
            assertThat(first).extracting(JnatsConsumerTest::text).containsExactly("m1", "m2", "m3", "m4");
            first.get(0).nak(); // again at once
            first.get(1).term(); // never again
            first.get(2).nakWithDelay(Duration.ofMillis(600));
            first.get(3).ackSync(Duration.ofSeconds(2));
            List<Message> again = sub.fetch(1, Duration.ofSeconds(2));
            assertThat(again).extracting(JnatsConsumerTest::text).containsExactly("m1");
            assertThat(again.get(0).metaData().deliveredCount()).isEqualTo(2);
            again.get(0).nak(); // max_deliver 2: not delivered a third time
            long start = System.nanoTime();
            List<Message> delayed = sub.fetch(1, Duration.ofSeconds(3));
            assertThat(delayed).extracting(JnatsConsumerTest::text).containsExactly("m3");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(400));
            delayed.get(0).ack();
            assertThat(sub.fetch(1, Duration.ofMillis(500))).isEmpty();

            JetStreamSubscription all = js.subscribe("tasks.>", PullSubscribeOptions.builder().durable("all")
                    .configuration(ConsumerConfiguration.builder().ackPolicy(AckPolicy.All).build()).build());
            List<Message> batch = all.fetch(4, Duration.ofSeconds(2));
            assertThat(batch).hasSize(4);
            batch.get(2).ackSync(Duration.ofSeconds(2)); // acknowledges m1..m3
            ConsumerInfo info = jsm.getConsumerInfo("TASKS", "all");
            assertThat(info.getNumAckPending()).isEqualTo(1);
            assertThat(info.getAckFloor().getStreamSequence()).isEqualTo(3);
            assertThat(jsm.getStreamInfo("TASKS").getStreamState().getConsumerCount()).isEqualTo(2);
        }
    }

    /**
     * A JSON pull request read field by field as nats-server reads it: a field of the wrong type is a
     * 400, unknown fields (nested too) are skipped, the last of a repeated field counts.
     */
    @Test
    void pullRequestFieldsAreCheckedAndTheLastOfARepeatedOneCounts() throws Exception {
        try (JetStreamServer server = JetStreamServer.start(store); Connection nats = Nats.connect(server.url())) {
            stream(nats, "JOBS", "jobs.>");
            publish(nats.jetStream(), "jobs.a", 1, 3);
            nats.jetStreamManagement().addOrUpdateConsumer("JOBS", ConsumerConfiguration.builder().durable("w")
                    .ackPolicy(AckPolicy.None).build());
            String next = "$JS.API.CONSUMER.MSG.NEXT.JOBS.w";
            for (String bad : List.of("{\"batch\":\"2\"}", "{\"batch\":1.5}", "{\"no_wait\":1}", "{\"expires\":[1]}",
                    "{\"batch\":99999999999999999999}", "{bad", "{\"batch\":1")) {
                Message answer = nats.request(next, bad.getBytes(StandardCharsets.UTF_8), Duration.ofSeconds(2));
                assertThat(answer.getStatus()).as(bad).isNotNull();
                assertThat(answer.getStatus().getCode()).as(bad).isEqualTo(400);
            }
            List<Message> first = pull(nats, next, "{\"batch\":3,\"no_wait\":true,\"x\":{\"y\":[1,{\"z\":null}]},"
                    + "\"batch\":1}", 1);
            assertThat(first).extracting(JnatsConsumerTest::text).containsExactly("m1");
            List<Message> rest = pull(nats, next, "{\"batch\":5,\"no_wait\":true,\"expires\":null}", 5);
            assertThat(rest).extracting(m -> m.isStatusMessage() ? "status " + m.getStatus().getCode() : text(m))
                    .containsExactly("m2", "m3", "status 408");
        }
    }

    /** Sends a pull request and reads its answers: up to {@code most} messages, or to a status. */
    private static List<Message> pull(Connection nats, String subject, String body, int most) throws Exception {
        String inbox = nats.createInbox();
        io.nats.client.Subscription sub = nats.subscribe(inbox);
        nats.publish(subject, inbox, body.getBytes(StandardCharsets.UTF_8));
        List<Message> answers = new ArrayList<>();
        Message answer = sub.nextMessage(Duration.ofSeconds(2));
        while (answer != null) {
            answers.add(answer);
            if (answer.isStatusMessage() || answers.size() == most) {
                break;
            }
            answer = sub.nextMessage(Duration.ofSeconds(2));
        }
        sub.unsubscribe();
        return answers;
    }

    @Test
    void optionsRingbusDoesNotHonourAreRefusedByName() throws Exception {
        try (JetStreamServer server = JetStreamServer.start(store); Connection nats = Nats.connect(server.url())) {
            stream(nats, "OPTS", "opts.>");
            JetStreamManagement jsm = nats.jetStreamManagement();
            assertThatThrownBy(() -> jsm.addOrUpdateConsumer("OPTS", ConsumerConfiguration.builder().durable("h")
                    .rateLimit(1024).replayPolicy(ReplayPolicy.Original).build()))
                    .isInstanceOf(JetStreamApiException.class)
                    .hasMessageContaining("not supported by ringbus yet")
                    .hasMessageContaining("rate_limit_bps=1024").hasMessageContaining("replay_policy=original");
            assertThat(jsm.getConsumerNames("OPTS")).isEmpty();
        }
    }

    @Test
    void pushSubscriptionGetsEveryMessageAndAcks() throws Exception {
        try (JetStreamServer server = JetStreamServer.start(store); Connection nats = Nats.connect(server.url())) {
            stream(nats, "EVENTS", "events.>");
            JetStream js = nats.jetStream();
            publish(js, "events.a", 1, 3);
            JetStreamSubscription sub = js.subscribe("events.>", PushSubscribeOptions.builder().durable("pusher")
                    .configuration(ConsumerConfiguration.builder().ackPolicy(AckPolicy.Explicit).build()).build());
            List<String> got = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                if (i == 3) {
                    publish(js, "events.b", 4, 5);
                }
                Message message = sub.nextMessage(Duration.ofSeconds(2));
                assertThat(message).as("message %d", i + 1).isNotNull();
                got.add(text(message));
                message.ack();
            }
            assertThat(got).containsExactly("m1", "m2", "m3", "m4", "m5");
            assertThat(sub.nextMessage(Duration.ofMillis(300))).isNull();
        }
    }

    @Test
    void orderedConsumerReadsTheStreamInOrder() throws Exception {
        try (JetStreamServer server = JetStreamServer.start(store); Connection nats = Nats.connect(server.url())) {
            stream(nats, "KV", "kv.>");
            JetStream js = nats.jetStream();
            publish(js, "kv.x", 1, 20);
            JetStreamSubscription sub = js.subscribe("kv.>", PushSubscribeOptions.builder().ordered(true).build());
            for (int i = 1; i <= 20; i++) {
                Message message = sub.nextMessage(Duration.ofSeconds(2));
                assertThat(message).as("message %d", i).isNotNull();
                assertThat(text(message)).isEqualTo("m" + i);
            }
            publish(js, "kv.y", 21, 21);
            assertThat(text(sub.nextMessage(Duration.ofSeconds(2)))).isEqualTo("m21");
        }
    }

    @Test
    void durableConsumerKeepsItsPositionAcrossARestart() throws Exception {
        try (JetStreamServer server = JetStreamServer.start(store); Connection nats = Nats.connect(server.url())) {
            stream(nats, "JOBS", "jobs.>");
            JetStream js = nats.jetStream();
            publish(js, "jobs.x", 1, 4);
            JetStreamSubscription sub = js.subscribe("jobs.>", PullSubscribeOptions.builder().durable("w").build());
            List<Message> got = sub.fetch(3, Duration.ofSeconds(2));
            assertThat(got).hasSize(3);
            got.get(0).ackSync(Duration.ofSeconds(2));
            got.get(1).ackSync(Duration.ofSeconds(2));
            // m3 delivered, not acked
        }
        try (JetStreamServer server = JetStreamServer.start(store); Connection nats = Nats.connect(server.url())) {
            JetStream js = nats.jetStream();
            JetStreamSubscription sub = js.subscribe("jobs.>", PullSubscribeOptions.bind("JOBS", "w"));
            List<String> got = new ArrayList<>();
            long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (got.size() < 2 && System.nanoTime() < deadline) {
                for (Message message : sub.fetch(2 - got.size(), Duration.ofSeconds(1))) {
                    got.add(text(message));
                    message.ackSync(Duration.ofSeconds(2));
                }
            }
            assertThat(got).containsExactly("m3", "m4");
        }
    }
}
