package io.ringbus.server;

import io.ringbus.testkit.LoopbackPorts;
import io.nats.client.Connection;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.Subscription;
import io.ringbus.testkit.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Two ringbus-server processes started with {@code --federation} on one nats-server: a NATS client
 * of one receives what a client of the other publishes, requests cross, /varz shows the link.
 */
class FederatedServersTest {
    private static final Path NATS_SERVER = Path.of("/usr/sbin/nats-server");

    @Test
    void clientsOfTwoFederatedServersTalkThroughNats(@TempDir Path dir) throws Exception {
        assumeTrue(Files.isExecutable(NATS_SERVER), "needs " + NATS_SERVER);
        int natsPort = LoopbackPorts.free();
        Process nats = new ProcessBuilder(NATS_SERVER.toString(), "-a", "127.0.0.1", "-p", String.valueOf(natsPort))
                .redirectErrorStream(true).redirectOutput(dir.resolve("nats.log").toFile()).start();
        try {
            Await.until("nats-server up", () -> LoopbackPorts.accepting(natsPort));
            String[] args = {"--federation", "nats://127.0.0.1:" + natsPort};
            try (ForkedServer a = ForkedServer.start("128m", args);
                 ForkedServer b = ForkedServer.start("128m", args)) {
                Connection onA = Nats.connect("nats://127.0.0.1:" + a.port());
                Connection onB = Nats.connect("nats://127.0.0.1:" + b.port());
                try {
                    Subscription orders = onB.subscribe("orders.>");
                    onB.createDispatcher(m -> onB.publish(m.getReplyTo(), ("re:" + new String(m.getData(),
                            StandardCharsets.UTF_8)).getBytes(StandardCharsets.UTF_8))).subscribe("svc.echo");
                    onB.flush(Duration.ofSeconds(2));
                    Await.until("b's interest reached a", () -> a.monitor("/varz").body().contains("\"federation\":{")
                            && a.monitor("/varz").body().contains("\"state\":\"CONNECTED\""));
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
                    assertThat(b.monitor("/varz").body()).contains("\"received\":");
                    assertThat(a.monitor("/dashz").body()).as("the dashboard's federation card")
                            .contains("\"federation\":{\"state\":\"CONNECTED\"");
                } finally {
                    onA.close();
                    onB.close();
                }
            }
        } finally {
            nats.destroy();
            nats.waitFor();
        }
    }

}
