package io.ringbus.jetstream;

import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.JetStreamSubscription;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.PullSubscribeOptions;
import io.nats.client.PushSubscribeOptions;
import io.nats.client.Subscription;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.ringbus.core.Scope;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A PUBLIC and a PRIVATE client side by side: the PRIVATE one pulls and pushes a PRIVATE stream's
 * messages (to inboxes and a deliver subject of PUBLIC scope); the PUBLIC one, subscribed to
 * {@code >}, receives none of them and cannot see the stream's consumers.
 */
@SuppressWarnings("try") // jnats' Connection.close throws InterruptedException
class ConsumerScopeTest {
    @TempDir
    Path store;

    private static Connection connect(JetStreamServer server, String token) throws Exception {
        return Nats.connect(new Options.Builder().server(server.url()).token(token.toCharArray()).build());
    }

    @Test
    void privateStreamDeliveriesNeverReachAPublicSubscriber() throws Exception {
        try (JetStreamServer server = JetStreamServer.start(store, c -> c.token("pub", Scope.PUBLIC)
                .token("priv", Scope.PRIVATE))) {
            server.broker().registerSubject("secret.>", Scope.PRIVATE);
            try (Connection priv = connect(server, "priv"); Connection pub = connect(server, "pub")) {
                Subscription snoop = pub.subscribe(">");
                pub.flush(Duration.ofSeconds(2));
                priv.jetStreamManagement().addStream(StreamConfiguration.builder().name("SECRET")
                        .subjects("secret.>").storageType(StorageType.File).build());
                JetStream js = priv.jetStream();
                js.publish("secret.salary", "salary-7f3q".getBytes(StandardCharsets.UTF_8));

                JetStreamSubscription pull = js.subscribe("secret.>", PullSubscribeOptions.builder().durable("hr")
                        .build());
                List<Message> pulled = pull.fetch(1, Duration.ofSeconds(2));
                assertThat(pulled).hasSize(1);
                assertThat(pulled.get(0).getSubject()).isEqualTo("secret.salary");
                pulled.get(0).ackSync(Duration.ofSeconds(2));
                JetStreamSubscription push = js.subscribe("secret.>", PushSubscribeOptions.builder()
                        .ordered(true).build());
                assertThat(push.nextMessage(Duration.ofSeconds(2))).isNotNull();

                JetStreamManagement publicJsm = pub.jetStreamManagement();
                assertThatThrownBy(() -> publicJsm.getConsumerInfo("SECRET", "hr"))
                        .isInstanceOf(JetStreamApiException.class).hasMessageContaining("10059");
                assertThat(publicJsm.getAccountStatistics().getConsumers()).isZero();
                for (Message seen = snoop.nextMessage(Duration.ofMillis(500)); seen != null;
                     seen = snoop.nextMessage(Duration.ofMillis(200))) {
                    assertThat(new String(seen.getData(), StandardCharsets.UTF_8)).as(seen.getSubject())
                            .doesNotContain("salary-7f3q");
                    assertThat(seen.getSubject()).doesNotStartWith("secret.");
                }
            }
        }
    }
}
