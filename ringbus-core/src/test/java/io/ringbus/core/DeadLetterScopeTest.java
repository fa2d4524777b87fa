package io.ringbus.core;

import io.ringbus.testkit.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A dead letter carries its stream's data, so it carries the stream's scope, never the default
 * scope of the dead-letter subject (issue 25): a PRIVATE stream's dead letters reach PRIVATE
 * subscribers only and never the federation.
 */
class DeadLetterScopeTest {
    @TempDir
    Path dir;

    /** Records the subjects the broker sends to the federation. */
    private static final class RecordingLink implements Federation {
        final List<String> sent = new CopyOnWriteArrayList<>();
        volatile FederationContext context;

        @Override
        public void start(FederationContext broker) {
            this.context = broker;
        }

        @Override
        public void send(String subject, String replyTo, Headers headers, Object payload, String[] servedGroups) {
            sent.add(subject);
        }

        @Override
        public void interest(String pattern, String queueGroup, boolean added) {
        }

        @Override
        public boolean isConnected() {
            return true;
        }

        @Override
        public FederationStats stats() {
            return new FederationStats("CONNECTED", "nats://test", sent.size(), 0, 0, 0, 0, 0, 0, 0);
        }

        @Override
        public void close() {
        }
    }

    private static void failAlways(Broker broker, String pattern, String durable) {
        broker.subscribe(pattern, m -> {
            throw new IllegalStateException("boom");
        }, SubscribeOptions.defaults().mode(ExecutionMode.WORKER).durable(DurableOptions.named(durable)
                .withMaxDeliver(1).withRedelivery(Duration.ofMillis(1), Duration.ofMillis(1))));
    }

    @Test
    void aPrivateStreamsDeadLettersReachOnlyPrivateSubscribersAndNeverTheFederation() {
        RecordingLink link = new RecordingLink();
        // As bin/run: the default scope is PUBLIC, so $RB.DLQ.> is PUBLIC unless the broker scopes it.
        try (Broker broker = Broker.builder().storage(Storage.local(dir)).defaultScope(Scope.PUBLIC)
                .federation(link).build()) {
            broker.registerStream(StreamConfig.of("secret.>"), Scope.PRIVATE);
            broker.registerSubject("pub.>", Scope.PUBLIC);
            List<Message> seenByPublic = new CopyOnWriteArrayList<>();
            List<Message> seenByPrivate = new CopyOnWriteArrayList<>();
            broker.client(Scope.PUBLIC).subscribe(">", m -> seenByPublic.add(m.copy()));
            broker.client(Scope.PRIVATE).subscribe("$RB.DLQ.>", m -> seenByPrivate.add(m.copy()));
            // Another node names the dead-letter subject as a reply subject: it must not lower the scope.
            assertThat(link.context.deliver("pub.request", "$RB.DLQ.secret_all.worker", null, "q", "pub.>", null))
                    .isTrue();
            failAlways(broker, "secret.>", "worker");

            broker.publish("secret.plans", "the payload");
            Await.until("dead-lettered to the PRIVATE subscriber", () -> seenByPrivate.size() == 1);
            broker.publish("pub.marker", "after");
            Await.until("the PUBLIC subscriber got the later marker", () -> seenByPublic.stream()
                    .anyMatch(m -> m.subject().equals("pub.marker")));

            assertThat(seenByPrivate.get(0).subject()).isEqualTo("$RB.DLQ.secret_all.worker");
            assertThat(seenByPrivate.get(0).payload()).isEqualTo("the payload".getBytes(StandardCharsets.UTF_8));
            assertThat(seenByPublic).extracting(Message::subject).doesNotContain("$RB.DLQ.secret_all.worker")
                    .doesNotContain("secret.plans");
            assertThat(link.sent).doesNotContain("$RB.DLQ.secret_all.worker").contains("pub.marker");
        }
    }

    @Test
    void aPublicStreamsDeadLettersStayPublic() {
        RecordingLink link = new RecordingLink();
        try (Broker broker = Broker.builder().storage(Storage.local(dir)).defaultScope(Scope.PRIVATE)
                .federation(link).build()) {
            broker.registerStream(StreamConfig.of("open.>"), Scope.PUBLIC);
            broker.registerSubject("$RB.DLQ.open_all.>", Scope.PUBLIC);
            List<Message> seenByPublic = new CopyOnWriteArrayList<>();
            broker.client(Scope.PUBLIC).subscribe("$RB.DLQ.open_all.>", m -> seenByPublic.add(m.copy()));
            failAlways(broker, "open.>", "worker");

            broker.publish("open.a", "x");
            Await.until("dead-lettered", () -> seenByPublic.size() == 1);
            Await.until("sent to the federation", () -> link.sent.contains("$RB.DLQ.open_all.worker"));
        }
    }
}
