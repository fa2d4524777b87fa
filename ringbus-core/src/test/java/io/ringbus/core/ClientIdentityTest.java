package io.ringbus.core;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@Timeout(30)
class ClientIdentityTest {

    @Test
    void messagesCarryTheIdOfTheClientThatPublishedThem() throws Exception {
        Broker broker = Broker.builder().name("identity").build();
        {
            Client a = broker.newClient(Scope.PRIVATE);
            Client b = broker.newClient(Scope.PRIVATE);
            assertThat(a.id()).isNotZero().isNotEqualTo(b.id());
            assertThat(broker.id()).isZero();
            assertThat(broker.client(Scope.PUBLIC).id()).isZero();

            List<Long> origins = new CopyOnWriteArrayList<>();
            List<Long> copies = new CopyOnWriteArrayList<>();
            broker.subscribe("x", m -> {
                origins.add(m.origin());
                copies.add(m.copy().origin());
            });
            a.publish("x", 1);
            b.publish("x", 2);
            broker.publish("x", 3);
            broker.close(); // drains: every message has been handled when it returns
            assertThat(origins).containsExactly(a.id(), b.id(), 0L);
            assertThat(copies).containsExactlyElementsOf(origins);
        }
    }

    @Test
    void hasSubscribersSeesOnlySubscriptionsThatCanReceiveTheSubject() {
        try (Broker broker = Broker.builder().name("interest").defaultScope(Scope.PRIVATE).build()) {
            broker.registerSubject("pub.>", Scope.PUBLIC);
            Client edge = broker.newClient(Scope.PUBLIC);
            assertThat(edge.hasSubscribers("pub.a")).isFalse();
            Subscription s = edge.subscribe(">", m -> { });
            assertThat(edge.hasSubscribers("pub.a")).isTrue();
            // A PUBLIC '>' cannot receive a PRIVATE subject, so nobody can.
            assertThat(broker.hasSubscribers("secret.a")).isFalse();
            s.unsubscribe();
            assertThat(edge.hasSubscribers("pub.a")).isFalse();
            assertThatThrownBy(() -> edge.hasSubscribers("bad..subject"))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bad..subject");
        }
    }

    @Test
    void hasSubscribersCountsTheStoreOfADurableSubject(@TempDir Path dir) {
        try (Broker broker = Broker.builder().name("durable-interest").defaultScope(Scope.PRIVATE)
                .storage(Storage.local(dir)).build()) {
            broker.registerSubject("orders.>", Scope.PUBLIC, Durability.DURABLE);
            Client edge = broker.newClient(Scope.PUBLIC);
            // No subscriber, but the store receives it (a NATS request gets its PubAck, not no-responders).
            assertThat(edge.hasSubscribers("orders.eu.1")).isTrue();
            assertThat(edge.verbatim().hasSubscribers("orders.eu.1")).isTrue();
            assertThat(edge.hasSubscribers("other.subject")).isFalse();
            broker.registerSubject("orders.>", Scope.PUBLIC, Durability.MEMORY);
            assertThat(edge.hasSubscribers("orders.eu.1")).isFalse();
        }
    }

    @Test
    void aClientCannotAskForRepliesOnASubjectAboveItsScope() {
        try (Broker broker = Broker.builder().name("reply-scope").defaultScope(Scope.PRIVATE).build()) {
            broker.registerSubject("pub.>", Scope.PUBLIC);
            broker.registerSubject("_INBOX.>", Scope.PUBLIC);
            Client edge = broker.newClient(Scope.PUBLIC);
            assertThatThrownBy(() -> edge.publish("pub.request", "secret.target", null, "x"))
                    .isInstanceOf(ScopeViolationException.class)
                    .hasMessageContaining("secret.target")
                    .satisfies(e -> assertThat(((ScopeViolationException) e).subject()).isEqualTo("secret.target"));
            assertThat(edge.tryPublish("pub.request", "_INBOX.abc.1", null, "x")).isTrue();
            assertThat(broker.stats().published()).isEqualTo(1);
        }
    }
}
