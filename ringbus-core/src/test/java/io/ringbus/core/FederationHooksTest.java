package io.ringbus.core;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.ringbus.testkit.Await;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the broker promises a {@link Federation} link, checked with a link that records its calls:
 * only PUBLIC and FEDERATED publishes go out, never what came from the link; subscriptions are
 * reported as interest; the link's counts become meters. (The link over real NATS is tested in
 * ringbus-federation.)
 */
class FederationHooksTest {
    /** Records what the broker hands it; reports fixed counts. */
    private static final class RecordingLink implements Federation {
        final List<String> sent = new CopyOnWriteArrayList<>();
        final List<String> interest = new CopyOnWriteArrayList<>();
        volatile FederationContext context;

        @Override
        public void start(FederationContext broker) {
            this.context = broker;
        }

        @Override
        public void send(String subject, String replyTo, Headers headers, Object payload, String[] servedGroups) {
            sent.add(subject + (servedGroups.length > 0 ? " served=" + String.join(",", servedGroups) : ""));
        }

        @Override
        public void interest(String pattern, String queueGroup, boolean added) {
            interest.add((added ? "+" : "-") + pattern + (queueGroup == null ? "" : " " + queueGroup));
        }

        @Override
        public boolean isConnected() {
            return true;
        }

        @Override
        public FederationStats stats() {
            return new FederationStats("CONNECTED", "nats://test", sent.size(), 7, 3, 0, 2, 5, interest.size(), 1);
        }

        @Override
        public void close() {
        }
    }

    @Test
    void onlyPublicAndFederatedPublishesGoOutAndNothingFromTheLinkGoesBack() {
        RecordingLink link = new RecordingLink();
        try (Broker broker = Broker.builder().federation(link).build()) {
            broker.registerSubject("pub.>", Scope.PUBLIC);
            broker.registerSubject("fed.>", Scope.FEDERATED);
            broker.subscribe("fed.>", m -> { }, SubscribeOptions.defaults().queueGroup("workers"));
            broker.publish("pub.a", "1");
            broker.publish("fed.b", "2");
            broker.publish("private.c", "3"); // PRIVATE by default
            List<String> local = new CopyOnWriteArrayList<>();
            broker.subscribe("pub.>", m -> local.add(m.subject()));
            assertThat(link.context.deliver("pub.remote", null, null, "4", "pub.>", null)).isTrue();
            assertThat(link.context.deliver("private.remote", null, null, "5", ">", null)).isFalse();
            Await.until("delivered from the link", () -> local.contains("pub.remote"));
            assertThat(link.sent).containsExactly("pub.a", "fed.b served=workers");
        }
    }

    @Test
    void subscriptionsAreReportedAsInterest() {
        RecordingLink link = new RecordingLink();
        try (Broker broker = Broker.builder().federation(link).build()) {
            Subscription a = broker.subscribe("orders.>", m -> { });
            broker.subscribe("jobs.*", m -> { }, SubscribeOptions.defaults().queueGroup("g"));
            a.unsubscribe();
            assertThat(link.interest).containsExactly("+orders.>", "+jobs.* g", "-orders.>");
        }
    }

    @Test
    void theLinksCountsAreMeters() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (Broker broker = Broker.builder().federation(new RecordingLink()).meterRegistry(registry).build()) {
            assertThat(registry.find("ringbus.federation.connected").gauge().value()).isEqualTo(1);
            assertThat(registry.find("ringbus.federation.received").functionCounter().count()).isEqualTo(7);
            assertThat(registry.find("ringbus.federation.not.sent").functionCounter().count()).isEqualTo(3);
            assertThat(registry.find("ringbus.federation.dropped").functionCounter().count()).isEqualTo(2);
            assertThat(registry.find("ringbus.federation.pending").gauge().value()).isEqualTo(5);
            assertThat(broker.stats().federation().server()).isEqualTo("nats://test");
        }
    }
}
