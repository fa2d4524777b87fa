package io.ringbus.test;

import io.nats.client.Connection;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.Subscription;
import io.ringbus.server.ServerConfig;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The annotation's default server, as a jnats user sees it: one server for the class. */
@SuppressWarnings("try") // jnats Connection.close() throws InterruptedException; the tests declare it
@RingbusServerTest
class JnatsAgainstRingbusServerTest {
    private static final Duration WAIT = Duration.ofSeconds(5);

    @RingbusUrl
    static String staticUrl;
    @RingbusUrl
    String instanceUrl;
    static String urlSeenByBeforeAll;
    private final RingbusServerHandle constructorHandle;

    JnatsAgainstRingbusServerTest(RingbusServerHandle server) {
        this.constructorHandle = server;
    }

    @BeforeAll
    static void beforeAll(@RingbusUrl String url) {
        urlSeenByBeforeAll = url;
    }

    @Test
    void injectsOneLoopbackUrlIntoFieldsParametersAndTheHandle(@RingbusUrl String url, RingbusServerHandle server) {
        assertThat(url).isEqualTo("nats://127.0.0.1:" + server.port()).isEqualTo(server.url())
                .isEqualTo(staticUrl).isEqualTo(instanceUrl).isEqualTo(urlSeenByBeforeAll);
        assertThat(constructorHandle).isSameAs(server);
        assertThat(server.port()).isPositive().isNotEqualTo(ServerConfig.DEFAULT_PORT);
        assertThat(server.monitorPort()).isEqualTo(ServerConfig.MONITOR_OFF);
    }

    @Test
    void jnatsPublishesToAJnatsSubscriber(@RingbusUrl String url) throws Exception {
        try (Connection nats = Nats.connect(url)) {
            Subscription sub = nats.subscribe("orders.created");
            nats.flush(WAIT);
            nats.publish("orders.created", "order-1".getBytes(StandardCharsets.UTF_8));
            Message message = sub.nextMessage(WAIT);
            assertThat(message).isNotNull();
            assertThat(new String(message.getData(), StandardCharsets.UTF_8)).isEqualTo("order-1");
        }
    }

    @Test
    void jnatsRequestGetsTheReplyOfAnotherJnatsClient(@RingbusUrl String url) throws Exception {
        try (Connection responder = Nats.connect(url); Connection requester = Nats.connect(url)) {
            responder.createDispatcher(m -> responder.publish(m.getReplyTo(),
                    ("re:" + new String(m.getData(), StandardCharsets.UTF_8)).getBytes(StandardCharsets.UTF_8)))
                    .subscribe("svc.echo");
            responder.flush(WAIT);
            Message reply = requester.request("svc.echo", "ping".getBytes(StandardCharsets.UTF_8), WAIT);
            assertThat(reply).isNotNull();
            assertThat(new String(reply.getData(), StandardCharsets.UTF_8)).isEqualTo("re:ping");
        }
    }

    @Test
    void theInProcessBrokerSharesSubjectsWithNetworkClients(RingbusServerHandle server) throws Exception {
        CompletableFuture<Object> inProcess = new CompletableFuture<>();
        server.broker().subscribe("inventory.*", m -> inProcess.complete(m.payload()));
        try (Connection nats = Nats.connect(server.url())) {
            Subscription sub = nats.subscribe("prices.eur");
            nats.flush(WAIT);
            nats.publish("inventory.sku1", "42".getBytes(StandardCharsets.UTF_8));
            assertThat(inProcess.get(5, TimeUnit.SECONDS)).isEqualTo("42".getBytes(StandardCharsets.UTF_8));

            server.broker().publish("prices.eur", "9.99");
            Message message = sub.nextMessage(WAIT);
            assertThat(message).isNotNull();
            assertThat(new String(message.getData(), StandardCharsets.UTF_8)).isEqualTo("9.99");
        }
        assertThat(server.stats().messagesIn()).isPositive();
        assertThat(server.stats().totalConnections()).isPositive();
    }

    @Test
    void theJetStreamApiIsNotServed(@RingbusUrl String url) throws Exception {
        // docs/testing.md says so: a $JS.API request finds no responder
        try (Connection nats = Nats.connect(url)) {
            assertThatThrownBy(() -> nats.jetStreamManagement().getAccountStatistics())
                    .isInstanceOf(IOException.class);
        }
    }
}
