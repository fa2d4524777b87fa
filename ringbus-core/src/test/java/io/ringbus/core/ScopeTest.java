package io.ringbus.core;

import io.ringbus.testkit.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** Subject scopes, their resolution by pattern specificity, and scoped clients. */
@Timeout(30)
class ScopeTest {

    private static Broker newBroker() {
        return Broker.builder().name("scope").ringSize(256).build();
    }

    @Test
    void scopesAreOrderedFromPublicToRoot() {
        assertThat(Scope.values()).containsExactly(Scope.PUBLIC, Scope.FEDERATED, Scope.PRIVATE, Scope.ROOT);
        assertThat(Scope.ROOT.includes(Scope.PUBLIC)).isTrue();
        assertThat(Scope.PRIVATE.includes(Scope.PRIVATE)).isTrue();
        assertThat(Scope.FEDERATED.includes(Scope.PRIVATE)).isFalse();
        assertThat(Scope.PUBLIC.includes(Scope.FEDERATED)).isFalse();
    }

    @Test
    void unregisteredSubjectHasTheDefaultScope() {
        try (Broker broker = newBroker()) {
            assertThat(broker.scopeOf("anything.at.all")).isEqualTo(Scope.PRIVATE);
        }
        try (Broker broker = Broker.builder().name("scope").defaultScope(Scope.PUBLIC).build()) {
            assertThat(broker.scopeOf("anything.at.all")).isEqualTo(Scope.PUBLIC);
        }
    }

    @Test
    void subjectTakesScopeOfMostSpecificRegisteredPattern() {
        try (Broker broker = newBroker()) {
            broker.registerSubject("a.>", Scope.PUBLIC);
            broker.registerSubject("a.*", Scope.FEDERATED);
            broker.registerSubject("a.b", Scope.ROOT);
            broker.registerSubject("a.*.c", Scope.PRIVATE);
            broker.registerSubject("a.b.>", Scope.FEDERATED);

            assertThat(broker.scopeOf("a.b")).as("literal beats * and >").isEqualTo(Scope.ROOT);
            assertThat(broker.scopeOf("a.x")).as("* beats >").isEqualTo(Scope.FEDERATED);
            assertThat(broker.scopeOf("a.x.y")).as("only a.> matches").isEqualTo(Scope.PUBLIC);
            assertThat(broker.scopeOf("a.x.c")).as("a.*.c beats a.> at token 2").isEqualTo(Scope.PRIVATE);
            assertThat(broker.scopeOf("a.b.c")).as("a.b.> beats a.*.c at token 2").isEqualTo(Scope.FEDERATED);
            assertThat(broker.scopeOf("a.b.c.d")).isEqualTo(Scope.FEDERATED);
            assertThat(broker.scopeOf("a")).as("a.> does not match a").isEqualTo(Scope.PRIVATE);
            assertThat(broker.scopeOf("b")).isEqualTo(Scope.PRIVATE);
        }
    }

    @Test
    void specificityIsComparedTokenByTokenFromTheLeft() {
        try (Broker broker = newBroker()) {
            // Both have one literal and are as long: the literal first token decides.
            broker.registerSubject("*.b", Scope.ROOT);
            broker.registerSubject("a.>", Scope.PUBLIC);
            assertThat(broker.scopeOf("a.b")).isEqualTo(Scope.PUBLIC);
            assertThat(broker.scopeOf("x.b")).isEqualTo(Scope.ROOT);

            broker.registerSubject("c.*.*", Scope.FEDERATED);
            broker.registerSubject("c.>", Scope.ROOT);
            assertThat(broker.scopeOf("c.d.e")).as("* beats > at token 2").isEqualTo(Scope.FEDERATED);

            broker.registerSubject("d.*.>", Scope.PUBLIC);
            broker.registerSubject("d.>", Scope.ROOT);
            assertThat(broker.scopeOf("d.e.f")).as("d.*.> is longer and beats d.> at token 2")
                    .isEqualTo(Scope.PUBLIC);
            assertThat(broker.scopeOf("d.e")).as("d.*.> needs three tokens").isEqualTo(Scope.ROOT);

            broker.registerSubject(">", Scope.FEDERATED);
            assertThat(broker.scopeOf("zz.top")).isEqualTo(Scope.FEDERATED);
            assertThat(broker.scopeOf("a.b")).isEqualTo(Scope.PUBLIC);
        }
    }

    @Test
    void registeringAPatternAgainReplacesItsScope() {
        try (Broker broker = newBroker()) {
            broker.registerSubject("news.>", Scope.PUBLIC);
            assertThat(broker.scopeOf("news.today")).isEqualTo(Scope.PUBLIC);
            broker.registerSubject("news.>", Scope.ROOT);
            assertThat(broker.scopeOf("news.today")).isEqualTo(Scope.ROOT);
        }
    }

    @Test
    void brokerIsRootAndClientsHaveTheirScope() {
        try (Broker broker = newBroker()) {
            assertThat(broker.scope()).isEqualTo(Scope.ROOT);
            for (Scope scope : Scope.values()) {
                assertThat(broker.client(scope).scope()).isEqualTo(scope);
            }
            broker.registerSubject("root.only", Scope.ROOT);
            RecordingHandler handler = new RecordingHandler();
            Subscription subscription = broker.subscribe("root.only", handler);
            assertThat(subscription.scope()).isEqualTo(Scope.ROOT);
            broker.publish("root.only", 1);
            broker.client(Scope.ROOT).publish("root.only", 2);
            handler.awaitCount(2);
            assertThat(handler.payloads()).containsExactly(1, 2);
            assertThatThrownBy(() -> broker.client(Scope.PRIVATE).publish("root.only", 3))
                    .isInstanceOf(ScopeViolationException.class);
        }
    }

    @Test
    void publicClientCannotPublishAbovePublic() {
        try (Broker broker = newBroker()) {
            broker.registerSubject("news.>", Scope.PUBLIC);
            broker.registerSubject("secret.>", Scope.PRIVATE);
            RecordingHandler all = new RecordingHandler();
            broker.subscribe(">", all);
            Client client = broker.client(Scope.PUBLIC);

            ScopeViolationException refused = catchThrowableOfType(ScopeViolationException.class,
                    () -> client.publish("secret.plans", "leak"));
            assertThat(refused).isNotNull();
            assertThat(refused.getMessage()).contains("secret.plans", "PRIVATE", "PUBLIC");
            assertThat(refused.subject()).isEqualTo("secret.plans");
            assertThat(refused.subjectScope()).isEqualTo(Scope.PRIVATE);
            assertThat(refused.clientScope()).isEqualTo(Scope.PUBLIC);
            assertThatThrownBy(() -> client.tryPublish("secret.plans", "leak"))
                    .isInstanceOf(ScopeViolationException.class).hasMessageContaining("secret.plans");
            assertThatThrownBy(() -> client.publish("unregistered.subject", "leak"))
                    .as("the default scope is PRIVATE").isInstanceOf(ScopeViolationException.class);
            assertThatThrownBy(() -> client.request("secret.plans", "leak", Duration.ofSeconds(5)))
                    .isInstanceOf(ScopeViolationException.class).hasMessageContaining("secret.plans");
            assertThat(broker.stats().published()).isZero();

            client.publish("news.fence", "fence");
            all.awaitPayload("fence");
            assertThat(all.payloads()).containsExactly("fence");
        }
    }

    @Test
    void federatedClientPublishesUpToFederated() {
        try (Broker broker = newBroker()) {
            broker.registerSubject("pub", Scope.PUBLIC);
            broker.registerSubject("fed", Scope.FEDERATED);
            RecordingHandler all = new RecordingHandler();
            broker.subscribe(">", all);
            Client client = broker.client(Scope.FEDERATED);
            client.publish("pub", 1);
            client.publish("fed", 2);
            assertThatThrownBy(() -> client.publish("priv", 3)).isInstanceOf(ScopeViolationException.class);
            all.awaitCount(2);
            assertThat(all.payloads()).containsExactly(1, 2);
        }
    }

    @Test
    void publicClientCannotSubscribeToALiteralSubjectAbovePublic() {
        try (Broker broker = newBroker()) {
            broker.registerSubject("secret.>", Scope.PRIVATE);
            Client client = broker.client(Scope.PUBLIC);
            ScopeViolationException refused = catchThrowableOfType(ScopeViolationException.class,
                    () -> client.subscribe("secret.plans", message -> { }));
            assertThat(refused).isNotNull();
            assertThat(refused.getMessage()).contains("secret.plans", "PRIVATE", "PUBLIC");
            assertThat(broker.stats().subscriptions()).isEmpty();
        }
    }

    @Test
    void publicClientPublishesAndSubscribesOnPublicSubjects() {
        try (Broker broker = newBroker()) {
            broker.registerSubject("news.>", Scope.PUBLIC);
            Client client = broker.client(Scope.PUBLIC);
            RecordingHandler viaClient = new RecordingHandler();
            Subscription subscription = client.subscribe("news.today", viaClient);
            assertThat(subscription.scope()).isEqualTo(Scope.PUBLIC);
            RecordingHandler viaBroker = new RecordingHandler();
            broker.subscribe("news.today", viaBroker);

            broker.publish("news.today", "from broker");
            client.publish("news.today", "from client");
            viaClient.awaitCount(2);
            viaBroker.awaitCount(2);
            assertThat(viaClient.payloads()).containsExactly("from broker", "from client");
            assertThat(viaBroker.payloads()).containsExactly("from broker", "from client");
        }
    }

    @Test
    void wildcardSubscriberSeesOnlySubjectsWithinItsScope() {
        try (Broker broker = newBroker()) {
            broker.registerSubject("pub.>", Scope.PUBLIC);
            broker.registerSubject("fed.>", Scope.FEDERATED);
            broker.registerSubject("root.>", Scope.ROOT);
            RecordingHandler publicAll = new RecordingHandler();
            RecordingHandler federatedAll = new RecordingHandler();
            RecordingHandler privateAll = new RecordingHandler();
            RecordingHandler rootAll = new RecordingHandler();
            broker.client(Scope.PUBLIC).subscribe(">", publicAll);
            broker.client(Scope.FEDERATED).subscribe(">", federatedAll);
            broker.client(Scope.PRIVATE).subscribe(">", privateAll);
            broker.subscribe(">", rootAll);
            RecordingHandler publicStar = new RecordingHandler();
            broker.client(Scope.PUBLIC).subscribe("*.x", publicStar);

            for (String subject : List.of("pub.x", "fed.x", "priv.x", "root.x", "pub.x")) {
                broker.publish(subject, subject);
            }
            broker.publish("pub.fence", "fence");
            for (RecordingHandler handler : List.of(publicAll, federatedAll, privateAll, rootAll)) {
                handler.awaitPayload("fence");
            }
            assertThat(publicAll.payloads()).containsExactly("pub.x", "pub.x", "fence");
            assertThat(federatedAll.payloads()).containsExactly("pub.x", "fed.x", "pub.x", "fence");
            assertThat(privateAll.payloads()).containsExactly("pub.x", "fed.x", "priv.x", "pub.x", "fence");
            assertThat(rootAll.payloads()).containsExactly("pub.x", "fed.x", "priv.x", "root.x", "pub.x", "fence");
            broker.publish("pub.x", "star fence");
            publicStar.awaitPayload("star fence");
            assertThat(publicStar.payloads()).containsExactly("pub.x", "pub.x", "star fence");
        }
    }

    @Test
    void wildcardSubscriberFollowsRegistrationsMadeAfterItSubscribed() {
        try (Broker broker = newBroker()) {
            broker.registerSubject("fence", Scope.PUBLIC);
            RecordingHandler publicAll = new RecordingHandler();
            broker.client(Scope.PUBLIC).subscribe(">", publicAll);
            List<Object> expected = new ArrayList<>();
            int[] fences = {0};
            Runnable fence = () -> {
                String payload = "fence " + fences[0]++;
                broker.publish("fence", payload);
                expected.add(payload);
                publicAll.awaitPayload(payload);
                assertThat(publicAll.payloads()).containsExactlyElementsOf(expected);
            };

            broker.publish("fresh.topic", "private by default");
            fence.run();

            broker.registerSubject("fresh.>", Scope.PUBLIC);
            broker.publish("fresh.topic", "now public");
            expected.add("now public");
            fence.run();

            broker.registerSubject("fresh.topic", Scope.ROOT);
            broker.publish("fresh.topic", "now root");
            broker.publish("fresh.other", "still public");
            expected.add("still public");
            fence.run();

            broker.registerSubject("fresh.>", Scope.PRIVATE);
            broker.publish("fresh.other", "private again");
            fence.run();

            broker.registerSubject("fresh.>", Scope.PUBLIC);
            broker.registerSubject("fresh.topic", Scope.PUBLIC);
            broker.publish("fresh.topic", "public again");
            expected.add("public again");
            fence.run();
        }
    }

    @Test
    void literalSubscriberOfPublicClientStopsReceivingWhenSubjectIsRegisteredHigher() {
        try (Broker broker = newBroker()) {
            broker.registerSubject("feed", Scope.PUBLIC);
            broker.registerSubject("fence", Scope.PUBLIC);
            RecordingHandler feed = new RecordingHandler();
            RecordingHandler fence = new RecordingHandler();
            Client client = broker.client(Scope.PUBLIC);
            client.subscribe("feed", feed);
            client.subscribe("fence", fence);
            broker.publish("feed", 1);
            feed.awaitCount(1);

            broker.registerSubject("feed", Scope.PRIVATE);
            broker.publish("feed", 2);
            broker.publish("fence", "fence");
            fence.awaitCount(1);
            Await.grace();
            assertThat(feed.payloads()).as("a PUBLIC subscription must not see a PRIVATE subject")
                    .containsExactly(1);
        }
    }

    @Test
    void scopesHoldWhenTheRouteCacheOverflows() {
        try (Broker broker = Broker.builder().name("scope").ringSize(256).routeCacheSize(16).build()) {
            broker.registerSubject("pub.>", Scope.PUBLIC);
            RecordingHandler publicAll = new RecordingHandler();
            RecordingHandler rootAll = new RecordingHandler();
            broker.client(Scope.PUBLIC).subscribe(">", publicAll);
            broker.subscribe(">", rootAll);
            List<Object> publicExpected = new ArrayList<>();
            List<Object> rootExpected = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                String subject = (i % 2 == 0 ? "pub." : "priv.") + i;
                broker.publish(subject, subject);
                rootExpected.add(subject);
                if (i % 2 == 0) {
                    publicExpected.add(subject);
                }
            }
            broker.registerSubject("pub.>", Scope.ROOT);
            for (int i = 0; i < 200; i += 2) {
                broker.publish("pub." + i, "again");
                rootExpected.add("again");
            }
            broker.registerSubject("fence", Scope.PUBLIC);
            broker.publish("fence", "fence");
            publicExpected.add("fence");
            rootExpected.add("fence");
            publicAll.awaitPayload("fence");
            rootAll.awaitPayload("fence");
            assertThat(publicAll.payloads()).containsExactlyElementsOf(publicExpected);
            assertThat(rootAll.payloads()).containsExactlyElementsOf(rootExpected);
        }
    }

    @Test
    void publicClientRequestsAndRepliesOnPublicSubjects() throws Exception {
        try (Broker broker = newBroker()) {
            broker.registerSubject("svc.>", Scope.PUBLIC);
            Client client = broker.client(Scope.PUBLIC);
            client.subscribe("svc.echo", message -> client.publish(message.replyTo(), "echo " + message.payload()));
            Message reply = client.request("svc.echo", "hi", Duration.ofSeconds(10)).get(20, TimeUnit.SECONDS);
            assertThat(reply.payload()).isEqualTo("echo hi");
            Message fromRoot = broker.request("svc.echo", "root", Duration.ofSeconds(10)).get(20, TimeUnit.SECONDS);
            assertThat(fromRoot.payload()).isEqualTo("echo root");
        }
    }
    @Test
    void publicWildcardNeverSeesAboveScopeSubjectsWhileRegistrationsChange() throws Exception {
        int subjects = 64;
        try (Broker broker = Broker.builder().name("scope").ringSize(256).routeCacheSize(16).build()) {
            ConcurrentLinkedQueue<String> leaked = new ConcurrentLinkedQueue<>();
            AtomicInteger seen = new AtomicInteger();
            // Odd subjects are never PUBLIC at any moment: a PUBLIC subscriber must never get one.
            broker.client(Scope.PUBLIC).subscribe(">", message -> {
                String subject = message.subject();
                if (subject.startsWith("t.") && Integer.parseInt(subject.substring(2)) % 2 == 1) {
                    leaked.add(subject);
                }
                seen.incrementAndGet();
            }, SubscribeOptions.defaults().mode(ExecutionMode.WORKER));
            AtomicBoolean running = new AtomicBoolean(true);
            Thread publisher = Thread.ofPlatform().name("scope-publisher").start(() -> {
                Random random = new Random(11);
                while (running.get()) {
                    broker.publish("t." + random.nextInt(subjects), "x");
                }
            });
            Scope[] odd = {Scope.FEDERATED, Scope.PRIVATE, Scope.ROOT};
            Random random = new Random(12);
            for (int round = 0; round < 2_000; round++) {
                int i = random.nextInt(subjects);
                Scope scope = i % 2 == 0 ? Scope.values()[random.nextInt(4)] : odd[random.nextInt(3)];
                broker.registerSubject("t." + i, scope);
                if (round % 100 == 0) {
                    broker.registerSubject("t.*", odd[random.nextInt(3)]);
                    broker.registerSubject("t.>", Scope.PUBLIC);
                }
            }
            for (int i = 0; i < subjects; i += 2) {
                broker.registerSubject("t." + i, Scope.PUBLIC);
            }
            int before = seen.get();
            Await.until("the public subscriber keeps receiving", () -> seen.get() > before + 100, seen::get);
            running.set(false);
            publisher.join();
            assertThat(leaked).as("subjects above PUBLIC delivered to a PUBLIC subscriber").isEmpty();
        }
    }
}
