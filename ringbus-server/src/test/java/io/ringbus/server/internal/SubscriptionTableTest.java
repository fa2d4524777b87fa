package io.ringbus.server.internal;

import io.ringbus.server.ServerConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link SubscriptionTable}: SUB and UNSUB on a real connection over an {@code EmbeddedChannel},
 * the per-connection limit, auto-unsubscribe, a re-used sid, and the heap charge given back.
 */
class SubscriptionTableTest {
    private static final int MAX_SUBSCRIPTIONS = 3;

    private EmbeddedServer server;
    private EmbeddedClient client;
    private EmbeddedClient publisher;

    @BeforeEach
    void start() {
        server = new EmbeddedServer(ServerConfig.builder().maxSubscriptions(MAX_SUBSCRIPTIONS).build());
        client = server.connect("{\"verbose\":false}");
        publisher = server.connect("{\"verbose\":false}");
    }

    @AfterEach
    void close() {
        server.close();
    }

    private void publish(String subject, int times) {
        publisher.send(("PUB " + subject + " 2\r\nhi\r\n").repeat(times));
    }

    @Test
    void subscriptionReceivesWhatIsPublishedToItsSubject() {
        client.send("SUB foo.* 7\r\n");

        publish("foo.bar", 1);
        publish("other", 1);

        assertThat(client.output()).isEqualTo("MSG foo.bar 7 2\r\nhi\r\n");
    }

    @Test
    void verboseSubAndUnsubAreAcknowledged() {
        client.send("CONNECT {\"verbose\":true}\r\n").output();

        assertThat(client.send("SUB foo 1\r\nUNSUB 1\r\n").output()).isEqualTo("+OK\r\n+OK\r\n");
    }

    @Test
    void subscriptionPastMaxSubscriptionsIsRefusedAndTheConnectionStays() {
        for (int i = 1; i <= MAX_SUBSCRIPTIONS; i++) {
            client.send("SUB s" + i + " " + i + "\r\n");
        }

        client.send("SUB extra 99\r\nPING\r\n");

        assertThat(client.output()).isEqualTo("-ERR 'maximum subscriptions exceeded'\r\nPONG\r\n");
        assertThat(client.isOpen()).isTrue();
        publish("extra", 1);
        publish("s1", 1);
        assertThat(client.output()).isEqualTo("MSG s1 1 2\r\nhi\r\n");
    }

    @Test
    void unsubscribingMakesRoomUnderTheLimit() {
        for (int i = 1; i <= MAX_SUBSCRIPTIONS; i++) {
            client.send("SUB s" + i + " " + i + "\r\n");
        }

        client.send("UNSUB 2\r\nSUB extra 99\r\nPING\r\n");

        assertThat(client.output()).isEqualTo("PONG\r\n");
        publish("extra", 1);
        publish("s2", 1);
        assertThat(client.output()).isEqualTo("MSG extra 99 2\r\nhi\r\n");
    }

    @Test
    void autoUnsubscribeDeliversExactlyMaxMessages() {
        client.send("SUB foo 1\r\nUNSUB 1 2\r\n");

        publish("foo", 5);

        assertThat(client.output()).isEqualTo("MSG foo 1 2\r\nhi\r\n".repeat(2));
        publish("foo", 1);
        assertThat(client.output()).isEmpty();
    }

    @Test
    void autoUnsubscribeCountsWhatWasDeliveredBefore() {
        client.send("SUB foo 1\r\n");
        publish("foo", 2);
        client.send("UNSUB 1 3\r\n");

        publish("foo", 5);

        // nats-server: max counts every message the subscription received, before the UNSUB too.
        assertThat(client.output()).isEqualTo("MSG foo 1 2\r\nhi\r\n".repeat(3));
    }

    @Test
    void subWithASidInUseReplacesThatSubscription() {
        client.send("SUB foo 1\r\nSUB bar 1\r\n");

        publish("foo", 1);
        publish("bar", 1);

        assertThat(client.output()).isEqualTo("MSG bar 1 2\r\nhi\r\n");
        assertThat(server.context.subscriptionBytes()).isEqualTo(SubscriptionCost.of("bar", null));
    }

    @Test
    void reusingASidAtTheLimitIsNoNewSubscription() {
        for (int i = 1; i <= MAX_SUBSCRIPTIONS; i++) {
            client.send("SUB s" + i + " " + i + "\r\n");
        }

        client.send("SUB other 1\r\nPING\r\n");

        assertThat(client.output()).isEqualTo("PONG\r\n");
        publish("other", 1);
        assertThat(client.output()).isEqualTo("MSG other 1 2\r\nhi\r\n");
    }

    @Test
    void queueGroupSharesMessagesBetweenItsMembers() {
        EmbeddedClient other = server.connect("{\"verbose\":false}");
        client.send("SUB work workers 1\r\n");
        other.send("SUB work workers 1\r\n");

        publish("work", 10);

        String both = client.output() + other.output();
        assertThat(both).isEqualTo("MSG work 1 2\r\nhi\r\n".repeat(10));
    }

    @Test
    void subscriptionsAreChargedAndTheChargeIsGivenBackAtUnsubAndClose() {
        client.send("SUB a.b 1\r\nSUB c d 2\r\nSUB e 3\r\n");
        long charged = SubscriptionCost.of("a.b", null) + SubscriptionCost.of("c", "d") + SubscriptionCost.of("e", null);
        assertThat(server.context.subscriptionBytes()).isEqualTo(charged);

        client.send("UNSUB 3\r\n");
        assertThat(server.context.subscriptionBytes()).isEqualTo(charged - SubscriptionCost.of("e", null));

        client.close();
        assertThat(server.context.subscriptionBytes()).isZero();
        publish("a.b", 1);
        assertThat(client.output()).isEmpty();
    }

    @Test
    void invalidSubjectIsAnErrorThatKeepsTheConnection() {
        client.send("SUB foo..bar 1\r\nPING\r\n");

        assertThat(client.output()).isEqualTo("-ERR 'Invalid Subject'\r\nPONG\r\n");
        assertThat(client.isOpen()).isTrue();
    }
}
