package io.ringbus.jetstream;

import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.JetStreamManagement;
import io.nats.client.JetStreamSubscription;
import io.nats.client.KeyValue;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.ObjectStore;
import io.nats.client.PullSubscribeOptions;
import io.nats.client.api.KeyValueConfiguration;
import io.nats.client.api.ObjectStoreConfiguration;
import io.nats.client.api.PublishAck;
import io.nats.client.api.StreamConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The examples of docs/jetstream.md ("Using it"), compiled and run with jnats against
 * ringbus-server: every {@code java} block of that page is one of the {@code --8<--} regions below
 * (ringbus-testsuite's {@code JetStreamDocSnippetsTest} checks it).
 */
@SuppressWarnings("try") // jnats' Connection.close() may throw InterruptedException
class JetStreamDocExamplesTest {
    @TempDir
    Path store;

    @Test
    void aStreamAPullConsumerAKeyValueBucketAndAnObjectStore() throws Exception {
        try (JetStreamServer server = JetStreamServer.start(store); Connection nats = Nats.connect(server.url())) {
            List<String> billed = new ArrayList<>();
            // --8<-- [start:stream]
            JetStreamManagement jsm = nats.jetStreamManagement();
            jsm.addStream(StreamConfiguration.builder().name("ORDERS").subjects("orders.>").build());
            JetStream js = nats.jetStream();
            PublishAck ack = js.publish("orders.eu.created", "o-1".getBytes(StandardCharsets.UTF_8));
            // stored and on the disk: ack.getStream() is "ORDERS", ack.getSeqno() 1

            JetStreamSubscription pull = js.subscribe("orders.>",
                    PullSubscribeOptions.builder().durable("billing").build());
            for (Message message : pull.fetch(10, Duration.ofSeconds(1))) {
                billed.add(new String(message.getData(), StandardCharsets.UTF_8));
                message.ack();
            }
            // --8<-- [end:stream]
            assertThat(ack.getStream()).isEqualTo("ORDERS");
            assertThat(ack.getSeqno()).isEqualTo(1);
            assertThat(billed).containsExactly("o-1");
            assertThat(jsm.getConsumerInfo("ORDERS", "billing").getAckFloor().getStreamSequence()).isEqualTo(1);

            // --8<-- [start:kv]
            nats.keyValueManagement().create(KeyValueConfiguration.builder().name("sessions").maxHistoryPerKey(5)
                    .build());
            KeyValue kv = nats.keyValue("sessions");
            kv.put("alice", "online".getBytes(StandardCharsets.UTF_8));
            String state = kv.get("alice").getValueAsString();     // "online"
            kv.delete("alice");                                     // kv.get("alice") is null from now on
            // --8<-- [end:kv]
            assertThat(state).isEqualTo("online");
            assertThat(kv.get("alice")).isNull();
            assertThat(kv.history("alice")).hasSize(2);

            byte[] report = new byte[300_000];
            new Random(26).nextBytes(report);
            // --8<-- [start:objects]
            nats.objectStoreManagement().create(ObjectStoreConfiguration.builder("files").build());
            ObjectStore files = nats.objectStore("files");
            files.put("report.csv", new ByteArrayInputStream(report));   // stored as 128 KiB chunks
            ByteArrayOutputStream copy = new ByteArrayOutputStream();
            files.get("report.csv", copy);
            // --8<-- [end:objects]
            assertThat(copy.toByteArray()).isEqualTo(report);
            assertThat(files.getInfo("report.csv").getChunks()).isEqualTo(3);
        }
    }
}
