package io.ringbus.federation;

import io.nats.client.Connection;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.Subscription;
import io.ringbus.testkit.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two ringbus-server processes started with {@code --federation} on one nats-server: a NATS client
 * of one receives what a client of the other publishes, requests cross, /varz shows the link. The
 * server finds the link at run time (it does not depend on this module); here, as in the runnable
 * jar, this module is on its class path.
 */
class FederatedServersTest {

    @Test
    void clientsOfTwoFederatedServersTalkThroughNats(@TempDir Path dir) throws Exception {
        try (PrivateNatsServer nats = PrivateNatsServer.start(dir)) {
            String[] args = {"--federation", nats.url()};
            try (StandaloneServer a = StandaloneServer.start(args);
                 StandaloneServer b = StandaloneServer.start(args)) {
                Connection onA = Nats.connect("nats://127.0.0.1:" + a.port());
                Connection onB = Nats.connect("nats://127.0.0.1:" + b.port());
                try {
                    Subscription orders = onB.subscribe("orders.>");
                    onB.createDispatcher(m -> onB.publish(m.getReplyTo(), ("re:" + new String(m.getData(),
                            StandardCharsets.UTF_8)).getBytes(StandardCharsets.UTF_8))).subscribe("svc.echo");
                    onB.flush(Duration.ofSeconds(2));
                    Await.until("b's interest reached a", () -> a.monitor("/varz").contains("\"federation\":{")
                            && a.monitor("/varz").contains("\"state\":\"CONNECTED\""));
                    Thread.sleep(300); // b's NATS subscriptions settle
                    onA.publish("orders.eu", "hello".getBytes(StandardCharsets.UTF_8));
                    Message got = orders.nextMessage(Duration.ofSeconds(5));
                    assertThat(got).isNotNull();
                    assertThat(new String(got.getData(), StandardCharsets.UTF_8)).isEqualTo("hello");
                    assertThat(got.getHeaders().getFirst("Ringbus-Origin")).isNotNull();
                    Message reply = onA.request("svc.echo", "ping".getBytes(StandardCharsets.UTF_8),
                            Duration.ofSeconds(5));
                    assertThat(reply).isNotNull();
                    assertThat(new String(reply.getData(), StandardCharsets.UTF_8)).isEqualTo("re:ping");
                    assertThat(b.monitor("/varz")).contains("\"received\":");
                    assertThat(a.monitor("/dashz")).as("the dashboard's federation card")
                            .contains("\"federation\":{\"state\":\"CONNECTED\"");
                } finally {
                    onA.close();
                    onB.close();
                }
            }
        }
    }

}
