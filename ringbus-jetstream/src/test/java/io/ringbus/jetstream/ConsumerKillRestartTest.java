package io.ringbus.jetstream;

import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.JetStreamSubscription;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.PullSubscribeOptions;
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

/**
 * A durable pull consumer across {@code kill -9} of ringbus-server (RingbusServerMain in a JVM of
 * its own, {@link ChildServer}): messages acknowledged with {@code ackSync} are never delivered
 * again, those delivered and not acknowledged are delivered again (delivery count 2), then the rest.
 */
class ConsumerKillRestartTest {
    @TempDir
    Path store;

    @Test
    void ackedNeverRedeliveredUnackedRedeliveredAfterKill9() throws Exception {
        ChildServer first = ChildServer.start(store);
        try {
            Connection nats = Nats.connect(first.url());
            nats.jetStreamManagement().addStream(StreamConfiguration.builder().name("JOBS").subjects("jobs.>")
                    .storageType(StorageType.File).build());
            JetStream js = nats.jetStream();
            for (int i = 1; i <= 10; i++) {
                js.publish("jobs.x", ("m" + i).getBytes(StandardCharsets.UTF_8));
            }
            JetStreamSubscription sub = js.subscribe("jobs.>", PullSubscribeOptions.builder().durable("w").build());
            List<Message> got = sub.fetch(6, Duration.ofSeconds(5));
            assertThat(got).hasSize(6);
            for (Message message : got.subList(0, 4)) {
                message.ackSync(Duration.ofSeconds(5));
            }
            // m5 and m6 are delivered and not acknowledged when the server dies
        } finally {
            first.kill(); // SIGKILL
        }
        try (ChildServer second = ChildServer.start(store)) {
            Connection nats = Nats.connect(second.url());
            JetStreamSubscription sub = nats.jetStream().subscribe("jobs.>", PullSubscribeOptions.bind("JOBS", "w"));
            List<String> got = new ArrayList<>();
            List<Long> deliveries = new ArrayList<>();
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (got.size() < 6 && System.nanoTime() < deadline) {
                for (Message message : sub.fetch(6 - got.size(), Duration.ofSeconds(1))) {
                    got.add(new String(message.getData(), StandardCharsets.UTF_8));
                    deliveries.add(message.metaData().deliveredCount());
                    message.ackSync(Duration.ofSeconds(5));
                }
            }
            assertThat(got).containsExactly("m5", "m6", "m7", "m8", "m9", "m10");
            assertThat(deliveries).containsExactly(2L, 2L, 1L, 1L, 1L, 1L);
            assertThat(sub.fetch(1, Duration.ofMillis(500))).isEmpty();
            nats.close();
        }
    }
}
