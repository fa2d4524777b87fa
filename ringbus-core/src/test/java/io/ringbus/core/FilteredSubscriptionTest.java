package io.ringbus.core;

import io.ringbus.core.wire.NatsHeaderBlock;
import io.ringbus.testkit.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Filters on subscriptions ({@link SubscribeOptions#filter}): tested where the message is routed,
 * before it takes a place in the subscriber's buffer, in every mode, with wildcards, queue groups,
 * request/reply and scopes.
 */
@Timeout(60)
class FilteredSubscriptionTest {
    private static final MessageFilter EU = MessageFilter.of(m -> "eu".equals(m.headers().first("region")));

    private static Headers region(String region) {
        return Headers.of("region", region);
    }

    @ParameterizedTest
    @EnumSource(ExecutionMode.class)
    void aFilteredSubscriberGetsOnlyWhatItsFilterTakesAndCountsTheRest(ExecutionMode mode) {
        try (Broker broker = Broker.builder().name("filter").ringSize(256).eventLoops(2).build()) {
            RecordingHandler eu = new RecordingHandler();
            RecordingHandler all = new RecordingHandler();
            Subscription filtered = broker.subscribe("orders.*", eu, SubscribeOptions.defaults().mode(mode).filter(EU));
            broker.subscribe("orders.>", all, SubscribeOptions.defaults().mode(mode));
            for (int i = 0; i < 1_000; i++) {
                broker.publish("orders.created", null, region(i % 10 == 0 ? "eu" : "us"), i);
            }
            all.awaitCount(1_000);
            eu.awaitCount(100);
            Await.grace();
            assertThat(eu.payloads()).hasSize(100).allSatisfy(p -> assertThat((int) p % 10).isZero());
            assertThat(eu.payloads()).isSorted();
            assertThat(filtered.filtered()).isEqualTo(900);
            assertThat(filtered.delivered()).isEqualTo(100);
            BrokerStats.SubscriptionStats stats = broker.stats().subscriptions().stream()
                    .filter(s -> s.id() == filtered.id()).findFirst().orElseThrow();
            assertThat(stats.filtered()).isEqualTo(900);
            assertThat(stats.filter()).startsWith("predicate: ");
        }
    }

    @Test
    void aRejectedMessageTakesNoPlaceInABufferSoItCausesNoOverflow() throws Exception {
        try (Broker broker = Broker.builder().name("filter").ringSize(256).build()) {
            CountDownLatch release = new CountDownLatch(1);
            RecordingHandler seen = new RecordingHandler();
            Subscription slow = broker.subscribe("orders.created", message -> {
                seen.onMessage(message);
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, SubscribeOptions.defaults().mode(ExecutionMode.WORKER).bufferSize(4)
                    .overflow(OverflowPolicy.DROP_NEWEST).filter(EU));
            // 2,000 messages to a handler that is stuck, with room for four: only the eu ones queue.
            for (int i = 0; i < 2_000; i++) {
                broker.publish("orders.created", null, region(i % 1_000 == 0 ? "eu" : "us"), i);
            }
            // One in the stuck handler, one waiting in the buffer, the rest rejected before buffering.
            Await.until("all routed", () -> slow.filtered() == 1_998 && slow.pending() == 1,
                    () -> slow.filtered() + " filtered, " + slow.pending() + " pending");
            release.countDown();
            seen.awaitCount(2);
            assertThat(seen.payloads()).containsExactly(0, 1_000);
            assertThat(slow.dropped()).isZero();
            assertThat(slow.filtered()).isEqualTo(1_998);
        }
    }

    @ParameterizedTest
    @EnumSource(ExecutionMode.class)
    void aQueueGroupMemberGetsOnlyWhatItsFilterTakesAndAMessageNoneTakesIsCounted(ExecutionMode mode) {
        try (Broker broker = Broker.builder().name("filter").ringSize(256).eventLoops(2).build()) {
            List<String> regions = List.of("eu", "us", "ap");
            List<RecordingHandler> members = regions.stream().map(r -> new RecordingHandler()).toList();
            for (int i = 0; i < regions.size(); i++) {
                String wanted = regions.get(i);
                broker.subscribe("orders.*", members.get(i), SubscribeOptions.defaults().mode(mode).queueGroup("g")
                        .filter(MessageFilter.of(m -> wanted.equals(m.headers().first("region")))));
            }
            List<String> published = List.of("eu", "us", "ap", "sa");
            for (int i = 0; i < 400; i++) {
                broker.publish("orders.created", null, region(published.get(i % 4)), i);
            }
            for (int i = 0; i < regions.size(); i++) {
                members.get(i).awaitCount(100);
            }
            Await.until("the unmatched counted", () -> broker.stats().dropped().get(DropReason.FILTERED_BY_EVERY_MEMBER) == 100,
                    () -> broker.stats().dropped());
            Await.grace();
            for (int i = 0; i < regions.size(); i++) {
                String wanted = regions.get(i);
                assertThat(members.get(i).messages()).hasSize(100)
                        .allSatisfy(m -> assertThat(m.headers().first("region")).isEqualTo(wanted));
            }
            assertThat(broker.stats().dropped().get(DropReason.FILTERED_BY_EVERY_MEMBER)).isEqualTo(100);
        }
    }

    @Test
    void aFilteredResponderAnswersOnlyTheRequestsItTakes() throws Exception {
        try (Broker broker = Broker.builder().name("filter").build()) {
            broker.subscribe("prices", message -> broker.publish(message.replyTo(), "gold"),
                    SubscribeOptions.defaults().queueGroup("tiers")
                            .filter(MessageFilter.of(m -> "gold".equals(m.headers().first("tier")))));
            broker.subscribe("prices", message -> broker.publish(message.replyTo(), "basic"),
                    SubscribeOptions.defaults().queueGroup("tiers")
                            .filter(MessageFilter.of(m -> !"gold".equals(m.headers().first("tier")))));
            for (int i = 0; i < 10; i++) {
                CompletableFuture<Message> gold = broker.request("prices", Headers.of("tier", "gold"), "q",
                        Duration.ofSeconds(5));
                CompletableFuture<Message> basic = broker.request("prices", Headers.of("tier", "free"), "q",
                        Duration.ofSeconds(5));
                assertThat(gold.get(5, TimeUnit.SECONDS).payload()).isEqualTo("gold");
                assertThat(basic.get(5, TimeUnit.SECONDS).payload()).isEqualTo("basic");
            }
        }
    }

    @Test
    void aFilterSeesOnlyTheSubjectsItsScopeAllows() {
        try (Broker broker = Broker.builder().name("filter").build()) {
            broker.registerSubject("secret.>", Scope.PRIVATE);
            broker.registerSubject("open.>", Scope.PUBLIC);
            RecordingHandler handler = new RecordingHandler();
            Client publicClient = broker.newClient(Scope.PUBLIC);
            Subscription sub = publicClient.subscribe(">", handler, SubscribeOptions.defaults().filter(EU));
            broker.publish("secret.orders", null, region("eu"), "hidden");
            broker.publish("open.orders", null, region("eu"), "shown");
            broker.publish("open.orders", null, region("us"), "rejected");
            handler.awaitCount(1);
            Await.grace();
            assertThat(handler.payloads()).containsExactly("shown");
            // The PRIVATE subject never reached the filter: only the us message was rejected.
            assertThat(sub.filtered()).isEqualTo(1);
        }
    }

    @Test
    void aFilterThatThrowsRejectsTheMessageIsReportedAndDeliveryGoesOn() {
        RecordingHandler errors = new RecordingHandler();
        try (Broker broker = Broker.builder().name("filter")
                .errorHandler((error, message, subscription) -> errors.onMessage(message)).build()) {
            RecordingHandler handler = new RecordingHandler();
            Subscription sub = broker.subscribe("orders", handler, SubscribeOptions.defaults()
                    .filter(MessageFilter.of(m -> {
                        if ("boom".equals(m.payload())) {
                            throw new IllegalStateException("filter failed");
                        }
                        return true;
                    })));
            broker.publish("orders", "boom");
            broker.publish("orders", "fine");
            handler.awaitCount(1);
            assertThat(handler.payloads()).containsExactly("fine");
            assertThat(errors.payloads()).containsExactly("boom");
            assertThat(sub.filtered()).isEqualTo(1);
            assertThat(broker.stats().handlerErrors()).isEqualTo(1);
        }
    }

    @Test
    void aDurableSubscriptionRefusesAFilterNamingIt() {
        try (Broker broker = Broker.builder().name("filter").build()) {
            assertThatThrownBy(() -> broker.subscribe("orders", m -> { },
                    SubscribeOptions.defaults().mode(ExecutionMode.WORKER).durable("d").filter(EU)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("durable subscription takes no filter")
                    .hasMessageContaining("pattern='orders'");
        }
    }

    /**
     * Many subscriptions whose policies take exact values of one header are looked up by that
     * header's value (one lookup per message, not one evaluation per subscription): each still gets
     * exactly what its policy takes, in order, with its rejections counted, whether the headers are
     * in-process, a NATS block, absent or several values of the header.
     */
    @ParameterizedTest
    @EnumSource(value = ExecutionMode.class, names = {"EVENT_LOOP", "WORKER"})
    void manyExactHeaderFiltersAreLookedUpByValueAndEachGetsWhatItsPolicyTakes(ExecutionMode mode) {
        try (Broker broker = Broker.builder().name("filter").ringSize(256).eventLoops(2).build()) {
            int subscribers = 40;
            List<RecordingHandler> handlers = new java.util.ArrayList<>();
            List<Subscription> subs = new java.util.ArrayList<>();
            for (int i = 0; i < subscribers; i++) {
                RecordingHandler handler = new RecordingHandler();
                handlers.add(handler);
                // a tenth each; every fifth also needs amount > 10 (an AND: looked up, then tested)
                String policy = i % 5 == 0 ? "{\"region\":[\"r" + i % 10 + "\"],\"amount\":[{\"numeric\":[\">\",10]}]}"
                        : "{\"region\":[\"r" + i % 10 + "\",\"all\"]}";
                subs.add(broker.subscribe("orders", handler, SubscribeOptions.defaults().mode(mode)
                        .filter(MessageFilter.headers(policy))));
            }
            int messages = 1_000;
            for (int m = 0; m < messages; m++) {
                Headers headers = switch (m % 4) {
                    case 0 -> Headers.of("region", "r" + m % 10, "amount", String.valueOf(m % 20));
                    case 1 -> NatsHeaderBlock.wrap(("NATS/1.0\r\nregion: r" + m % 10 + "\r\namount: " + m % 20
                            + "\r\n\r\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                    case 2 -> Headers.of("amount", "50"); // no region: nobody
                    default -> Headers.of("region", "r" + m % 10, "region", "all", "amount", "99"); // two values
                };
                broker.publish("orders", null, headers, m);
            }
            int[] expected = new int[subscribers];
            for (int m = 0; m < messages; m++) {
                for (int i = 0; i < subscribers; i++) {
                    boolean takes = switch (m % 4) {
                        case 0, 1 -> m % 10 == i % 10 && (i % 5 != 0 || m % 20 > 10);
                        case 2 -> false;
                        default -> i % 5 != 0 || m % 10 == i % 10;
                    };
                    if (takes) {
                        expected[i]++;
                    }
                }
            }
            for (int i = 0; i < subscribers; i++) {
                int index = i;
                handlers.get(i).awaitCount(expected[i]);
                Await.until("filtered counted for " + i, () -> subs.get(index).filtered() == messages - expected[index],
                        () -> subs.get(index).filtered() + " filtered, expected " + (messages - expected[index]));
            }
            Await.grace();
            for (int i = 0; i < subscribers; i++) {
                assertThat(handlers.get(i).payloads()).as("subscriber %d", i).hasSize(expected[i]).isSorted();
            }
        }
    }
}
