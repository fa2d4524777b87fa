package io.ringbus.jetstream;

import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.JetStreamSubscription;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.PullSubscribeOptions;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.ringbus.core.Client;
import io.ringbus.core.Headers;
import io.ringbus.core.PublishAck;
import io.ringbus.core.PublishRejectedException;
import io.ringbus.core.Scope;
import io.ringbus.core.StreamConfig;
import io.ringbus.core.SubscribeOptions;
import io.ringbus.core.Subscription;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * One namespace for in-process code and network clients: a stream the embedded broker registers is a
 * JetStream stream to jnats (info, pull consumer), a stream created through JetStream's API is a
 * broker stream to in-process code (durable subscription, publish with ack, the publish
 * expectations, refused as JetStream refuses them).
 */
@SuppressWarnings("try") // jnats' Connection.close() may throw InterruptedException
class InProcessStreamsTest {
    @TempDir
    Path store;

    @Test
    void inProcessAndNetworkStreamsAreOneNamespace() throws Exception {
        try (JetStreamServer server = JetStreamServer.start(store); Connection nats = Nats.connect(server.url())) {
            Client local = server.broker().client(Scope.PUBLIC);
            server.broker().registerStream(StreamConfig.of("audit.>").withName("AUDIT"), Scope.PUBLIC);
            PublishAck stored = local.tryPublishWithAck("audit.login", null, null, "alice").join();
            assertThat(stored.stream()).isEqualTo("AUDIT");

            JetStreamManagement jsm = nats.jetStreamManagement();
            assertThat(jsm.getStreamInfo("AUDIT").getStreamState().getMsgCount()).as("seen by jnats").isEqualTo(1);
            JetStreamSubscription pull = nats.jetStream().subscribe("audit.>", PullSubscribeOptions.builder()
                    .durable("reader").build());
            List<Message> got = pull.fetch(1, Duration.ofSeconds(2));
            assertThat(got).hasSize(1);
            assertThat(new String(got.get(0).getData(), StandardCharsets.UTF_8)).isEqualTo("alice");

            jsm.addStream(StreamConfiguration.builder().name("ORDERS").subjects("orders.>")
                    .storageType(StorageType.File).build());
            nats.jetStream().publish("orders.1", "from the network".getBytes(StandardCharsets.UTF_8));
            assertThat(server.broker().streams()).extracting(s -> s.config().name()).contains("AUDIT", "ORDERS");
            List<String> received = new CopyOnWriteArrayList<>();
            Subscription durable = local.subscribe("orders.>", m -> received.add(new String((byte[]) m.payload(),
                    StandardCharsets.UTF_8)), SubscribeOptions.defaults().durable("in-process"));
            try {
                io.ringbus.testkit.Await.until("the network's message read in process", () -> received.size() == 1);
                assertThat(received).containsExactly("from the network");
            } finally {
                durable.unsubscribe();
            }
            CompletableFuture<PublishAck> wrong = local.tryPublishWithAck("orders.2", null,
                    Headers.of("Nats-Expected-Last-Sequence", "7"), "x");
            assertThatThrownBy(wrong::join).isInstanceOf(CompletionException.class).cause()
                    .isInstanceOf(PublishRejectedException.class).hasMessage("wrong last sequence: 1");
        }
    }
}
