package io.ringbus.federation;

import io.ringbus.core.ConsumerConfig;
import io.ringbus.core.PublishAck;
import io.ringbus.core.StorageException;
import io.ringbus.core.StoredMessage;
import io.ringbus.core.StoredStream;
import io.ringbus.core.StreamConfig;
import io.ringbus.core.StreamConsumer;
import io.ringbus.testkit.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletionException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A 3-node nats-server cluster on free loopback ports with a JetStream R3 stream: one node is
 * killed ({@code SIGKILL}) while messages are appended, and every acknowledged message is still read
 * afterwards, exactly as acknowledged.
 */
class JetStreamClusterTest {
    @TempDir
    Path dir;

    @Test
    void killingOneNodeOfAnR3ClusterLosesNothingAcknowledged() throws Exception {
        try (NatsCluster cluster = NatsCluster.start(dir, 3)) {
            String urls = cluster.urls();
            Set<Long> acked = new HashSet<>();
            // The cluster elects its JetStream meta leader first: until then, JetStream does not answer.
            JetStreamStorage[] connected = new JetStreamStorage[1];
            Await.until("JetStream cluster ready", Duration.ofSeconds(60), () -> {
                try {
                    connected[0] = JetStreamStorage.builder().servers(urls).requestTimeout(Duration.ofSeconds(5))
                            .reconnectWait(Duration.ofMillis(100)).connect();
                    return true;
                } catch (StorageException e) {
                    return false;
                }
            });
            try (JetStreamStorage storage = connected[0]) {
                StreamConfig config = StreamConfig.of("ha.>").withReplicas(3);
                // Until the stream's replicas are placed, creating it may fail.
                StoredStream[] created = new StoredStream[1];
                Await.until("R3 stream created", Duration.ofSeconds(60), () -> {
                    try {
                        created[0] = storage.stream(config);
                        return true;
                    } catch (StorageException e) {
                        return false;
                    }
                });
                StoredStream stream = created[0];
                int failed = 0;
                for (int i = 0; i < 600; i++) {
                    if (i == 200) {
                        cluster.kill(2); // SIGKILL one of the three
                    }
                    // A publisher retries what was not acknowledged, with the same message id: JetStream
                    // drops the copy if the first try was stored after all.
                    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                    while (true) {
                        try {
                            PublishAck ack = stream.append("ha.x", null, ("m" + i).getBytes(StandardCharsets.UTF_8),
                                    "id-" + i).join();
                            assertThat(acked.add(ack.sequence())).as("sequence %d acknowledged twice", ack.sequence())
                                    .isTrue();
                            break;
                        } catch (CompletionException | IllegalStateException e) {
                            failed++;
                            assertThat(System.nanoTime()).as("the cluster recovers").isLessThan(deadline);
                            Thread.sleep(100);
                        }
                    }
                }
                assertThat(acked).hasSize(600);
                // With a node gone, the cluster's meta operations may time out for a while: retry.
                StreamConsumer[] opened = new StreamConsumer[1];
                Await.until("consumer created", Duration.ofSeconds(60), () -> {
                    try {
                        opened[0] = stream.consumer(ConsumerConfig.of("check", "ha.>"));
                        return true;
                    } catch (StorageException e) {
                        return false;
                    }
                });
                try (StreamConsumer consumer = opened[0]) {
                    Set<Long> read = new HashSet<>();
                    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                    while (!read.containsAll(acked) && System.nanoTime() < deadline) {
                        for (StoredMessage m : consumer.fetch(500, Duration.ofSeconds(1))) {
                            read.add(m.sequence());
                            consumer.ack(m);
                        }
                    }
                    assertThat(read).as("every acknowledged message is there").containsAll(acked);
                }
                System.out.printf("R3 cluster, one node killed: %d acknowledged, 0 lost, %d failed during the change%n",
                        acked.size(), failed);
            }
        }
    }
}
