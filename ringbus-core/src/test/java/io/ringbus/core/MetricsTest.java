package io.ringbus.core;

import io.ringbus.testkit.Await;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The broker's Micrometer meters after known traffic: exact counts per pattern tag and mode,
 * drops by reason, handler errors, watchdog warnings, gauges, and the bound on pattern tags.
 */
@Timeout(60)
class MetricsTest {
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    private BrokerBuilder metered(String name) {
        return Broker.builder().name(name).ringSize(1024).meterRegistry(registry);
    }

    private double counter(String name, String... tags) {
        FunctionCounter counter = registry.find(name).tags(tags).functionCounter();
        assertThat(counter).as("%s %s", name, List.of(tags)).isNotNull();
        return counter.count();
    }

    private double gauge(String name, String... tags) {
        Gauge gauge = registry.find(name).tags(tags).gauge();
        assertThat(gauge).as("%s %s", name, List.of(tags)).isNotNull();
        return gauge.value();
    }

    private Timer latency(String pattern, ExecutionMode mode) {
        Timer timer = registry.find("ringbus.handler.latency").tags("pattern", pattern, "mode", mode.name()).timer();
        assertThat(timer).as("latency of %s %s", pattern, mode).isNotNull();
        return timer;
    }

    @Test
    void countsPublishedAndDeliveredPerPatternAndModeWithOneSeriesPerPattern() {
        try (Broker broker = metered("m-counts").build()) {
            SubscribeOptions worker = SubscribeOptions.defaults().mode(ExecutionMode.WORKER);
            SubscribeOptions virtual = SubscribeOptions.defaults().mode(ExecutionMode.VIRTUAL);
            broker.subscribe("orders.>", message -> { });
            broker.subscribe("orders.>", message -> { });
            broker.subscribe("orders.>", message -> { }, worker);
            broker.subscribe("orders.*.created", message -> { }, worker);
            broker.subscribe("audit.>", message -> { }, virtual);
            for (int i = 0; i < 1_000; i++) {
                broker.publish("orders.eu.created", i);
            }
            for (int i = 0; i < 500; i++) {
                broker.publish("audit.login", i);
            }
            Await.until("all delivered", () -> broker.stats().delivered() == 4 * 1_000 + 500,
                    broker::stats);

            assertThat(counter("ringbus.published", "broker", "m-counts")).isEqualTo(1_500);
            assertThat(counter("ringbus.delivered", "pattern", "orders.>", "mode", "EVENT_LOOP")).isEqualTo(2_000);
            assertThat(counter("ringbus.delivered", "pattern", "orders.>", "mode", "WORKER")).isEqualTo(1_000);
            assertThat(counter("ringbus.delivered", "pattern", "orders.*.created", "mode", "WORKER")).isEqualTo(1_000);
            assertThat(counter("ringbus.delivered", "pattern", "audit.>", "mode", "VIRTUAL")).isEqualTo(500);
            // Two event-loop subscriptions of orders.> are one series; no series per raw subject.
            assertThat(registry.find("ringbus.delivered").tags("pattern", "orders.>", "mode", "EVENT_LOOP")
                    .functionCounters()).hasSize(1);
            assertThat(registry.find("ringbus.delivered").functionCounters()).hasSize(4);
            assertThat(registry.getMeters()).allSatisfy(meter ->
                    assertThat(meter.getId().getTag("pattern")).isNotIn("orders.eu.created", "audit.login"));
            // Every handler call is timed, once.
            assertThat(latency("orders.>", ExecutionMode.EVENT_LOOP).count()).isEqualTo(2_000);
            assertThat(latency("orders.>", ExecutionMode.WORKER).count()).isEqualTo(1_000);
            assertThat(latency("orders.*.created", ExecutionMode.WORKER).count()).isEqualTo(1_000);
            assertThat(latency("audit.>", ExecutionMode.VIRTUAL).count()).isEqualTo(500);
            assertThat(latency("audit.>", ExecutionMode.VIRTUAL).totalTime(java.util.concurrent.TimeUnit.NANOSECONDS))
                    .isPositive();

            assertThat(gauge("ringbus.subscriptions")).isEqualTo(5);
            assertThat(gauge("ringbus.ring.size")).isEqualTo(1024);
            Await.until("the ring is free", () -> gauge("ringbus.ring.remaining") == 1024);
            assertThat(counter("ringbus.handler.errors", "pattern", "orders.>")).isZero();
            assertThat(registry.find("ringbus.dropped").meters()).as("no drop, no dropped series").isEmpty();
            assertThat(registry.find("ringbus.published").tag("broker", "m-counts").meters()).hasSize(1);
        }
        assertThat(registry.getMeters()).as("closing the broker removes its meters").isEmpty();
    }

    @Test
    void unsubscribedSubscriptionsKeepTheirDeliveriesInThePatternTotal() {
        try (Broker broker = metered("m-retire").build()) {
            Subscription first = broker.subscribe("jobs.>", message -> { });
            broker.subscribe("jobs.>", message -> { });
            for (int i = 0; i < 10; i++) {
                broker.publish("jobs.a", i);
            }
            Await.until("delivered twice", () -> broker.stats().delivered() == 20, broker::stats);
            first.unsubscribe();
            for (int i = 0; i < 5; i++) {
                broker.publish("jobs.a", i);
            }
            Await.until("delivered to the one left", () -> broker.stats().delivered() == 25, broker::stats);
            assertThat(counter("ringbus.delivered", "pattern", "jobs.>", "mode", "EVENT_LOOP")).isEqualTo(25);
            assertThat(latency("jobs.>", ExecutionMode.EVENT_LOOP).count()).isEqualTo(25);
            assertThat(gauge("ringbus.subscriptions")).isEqualTo(1);
        }
    }

    @Test
    void countsDropsByPatternAndReason() {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try (Broker broker = metered("m-drops").build()) {
            broker.subscribe("feed.>", message -> {
                entered.countDown();
                Await.quietly(release);
            }, SubscribeOptions.defaults().mode(ExecutionMode.WORKER).bufferSize(2)
                    .overflow(OverflowPolicy.DROP_NEWEST));
            broker.subscribe("other.>", message -> { });
            broker.publish("feed.x", 0);
            Await.latch(entered, "the handler holds the first message");
            for (int i = 1; i < 10; i++) {
                broker.publish("feed.x", i);
            }
            // The buffer takes 2 of the 9; 7 are dropped.
            Await.until("7 dropped", () -> broker.stats().droppedTotal() == 7, broker::stats);
            assertThat(gauge("ringbus.subscription.pending", "pattern", "feed.>")).isEqualTo(2);
            release.countDown();
            Await.until("3 delivered", () -> broker.stats().delivered() == 3, broker::stats);

            assertThat(counter("ringbus.dropped", "pattern", "feed.>", "reason", "OVERFLOW_DROP_NEWEST")).isEqualTo(7);
            assertThat(registry.find("ringbus.dropped").meters()).as("only the reason that happened").hasSize(1);
            assertThat(registry.find("ringbus.dropped").tag("pattern", "other.>").meters()).isEmpty();
            assertThat(counter("ringbus.delivered", "pattern", "feed.>", "mode", "WORKER")).isEqualTo(3);
            assertThat(latency("feed.>", ExecutionMode.WORKER).count()).isEqualTo(3);
            Await.until("buffer empty", () -> gauge("ringbus.subscription.pending", "pattern", "feed.>") == 0);
        } finally {
            release.countDown();
        }
    }

    @Test
    void countsHandlerErrorsPerPatternAndTimesFailingCalls() {
        try (Broker broker = metered("m-errors").errorHandler((error, message, subscription) -> { }).build()) {
            AtomicInteger calls = new AtomicInteger();
            broker.subscribe("risky.>", message -> {
                if (calls.incrementAndGet() % 2 == 1) {
                    throw new IllegalStateException("odd call");
                }
            });
            broker.subscribe("safe.>", message -> { }, SubscribeOptions.defaults().mode(ExecutionMode.WORKER));
            for (int i = 0; i < 10; i++) {
                broker.publish("risky.op", i);
                broker.publish("safe.op", i);
            }
            Await.until("all delivered", () -> broker.stats().delivered() == 20, broker::stats);
            assertThat(counter("ringbus.handler.errors", "pattern", "risky.>")).isEqualTo(5);
            assertThat(counter("ringbus.handler.errors", "pattern", "safe.>")).isZero();
            assertThat(broker.stats().handlerErrors()).isEqualTo(5);
            assertThat(latency("risky.>", ExecutionMode.EVENT_LOOP).count()).isEqualTo(10);
        }
    }

    @Test
    void lagCountsWhatIsPublishedAndNotYetHandled() {
        CountDownLatch entered = new CountDownLatch(2);
        CountDownLatch release = new CountDownLatch(1);
        try (Broker broker = metered("m-lag").eventLoops(2).build()) {
            // Event loop 0: an event-loop handler that blocks; loop 1: a worker that blocks.
            broker.subscribe("inline.>", message -> {
                entered.countDown();
                Await.quietly(release);
            });
            broker.subscribe("buffered.>", message -> {
                entered.countDown();
                Await.quietly(release);
            }, SubscribeOptions.defaults().mode(ExecutionMode.WORKER));
            broker.publish("inline.a", 0);
            broker.publish("buffered.a", 0);
            Await.latch(entered, "both handlers hold their first message");
            for (int i = 1; i <= 4; i++) {
                broker.publish("buffered.a", i);
            }
            // Ring: inline.a, buffered.a, then 4 x buffered.a (sequences 0..5). Loop 0 is stuck
            // on sequence 0: all 6 are not dispatched by it. Loop 1 dispatched all 6 and its
            // worker buffer holds 4 (the fifth is in the handler).
            Await.until("4 buffered", () -> gauge("ringbus.subscription.pending", "pattern", "buffered.>") == 4);
            Await.until("loop 1 done", () -> gauge("ringbus.subscription.lag", "pattern", "buffered.>") == 4);
            assertThat(gauge("ringbus.subscription.lag", "pattern", "inline.>")).isEqualTo(6);
            assertThat(gauge("ringbus.subscription.pending", "pattern", "inline.>")).isZero();
            assertThat(gauge("ringbus.ring.remaining")).isEqualTo(1024 - 6);
            release.countDown();
            Await.until("drained", () -> gauge("ringbus.subscription.lag", "pattern", "inline.>") == 0
                    && gauge("ringbus.subscription.lag", "pattern", "buffered.>") == 0);
        } finally {
            release.countDown();
        }
    }

    @Test
    void countsWatchdogWarningsByMode() {
        List<BlockedHandler> warnings = new CopyOnWriteArrayList<>();
        CountDownLatch warned = new CountDownLatch(2);
        try (Broker broker = metered("m-watchdog").watchdogInterval(Duration.ofMillis(10))
                .blockedHandlerListener(warning -> {
                    warnings.add(warning);
                    warned.countDown();
                }).build()) {
            CountDownLatch done = new CountDownLatch(1);
            broker.subscribe("slow.x", message -> {
                Await.quietly(warned);
                done.countDown();
            }, SubscribeOptions.defaults().maxExecuteTime(Duration.ofMillis(20)));
            broker.publish("slow.x", 1);
            Await.latch(done, "the blocked handler returned");
            Await.grace();
            assertThat(counter("ringbus.watchdog.warnings", "mode", "EVENT_LOOP")).isEqualTo(warnings.size())
                    .isGreaterThanOrEqualTo(2);
            assertThat(counter("ringbus.watchdog.warnings", "mode", "WORKER")).isZero();
            assertThat(counter("ringbus.watchdog.warnings", "mode", "VIRTUAL")).isZero();
        }
    }

    @Test
    void patternsBeyondTheLimitAreReportedAsOtherAndCounted() {
        try (Broker broker = metered("m-limit").meterPatternLimit(2).build()) {
            Subscription a = broker.subscribe("a.>", message -> { });
            broker.subscribe("b.>", message -> { });
            broker.subscribe("c.>", message -> { });
            broker.subscribe("d.>", message -> { });
            broker.subscribe("d.>", message -> { });
            for (String subject : List.of("a.1", "b.1", "c.1", "d.1")) {
                for (int i = 0; i < 3; i++) {
                    broker.publish(subject, i);
                }
            }
            Await.until("all delivered", () -> broker.stats().delivered() == 15, broker::stats);
            assertThat(patternTags("ringbus.delivered")).containsExactlyInAnyOrder("a.>", "b.>", "_other");
            assertThat(counter("ringbus.delivered", "pattern", "_other")).isEqualTo(9);
            Meter overflow = registry.find("ringbus.pattern.overflow").counter();
            assertThat(overflow).isNotNull();
            assertThat(registry.find("ringbus.pattern.overflow").counter().count()).isEqualTo(3);

            // The last subscription of a.> gone: its series go and free a place.
            a.unsubscribe();
            broker.subscribe("e.>", message -> { });
            assertThat(patternTags("ringbus.delivered")).containsExactlyInAnyOrder("b.>", "e.>", "_other");
            // Reply inboxes share one tag, whatever their unique prefix.
            broker.subscribe("_INBOX.abc.*", message -> { });
            broker.subscribe("_INBOX.def.*", message -> { });
            assertThat(registry.find("ringbus.pattern.overflow").counter().count()).isEqualTo(5);
        }
    }

    @Test
    void inboxPatternsShareOneTag() {
        try (Broker broker = metered("m-inbox").build()) {
            broker.subscribe("_INBOX.abc.*", message -> { });
            broker.subscribe("_INBOX.def.*", message -> { });
            broker.subscribe("svc.echo", message -> broker.publish(message.replyTo(), "pong"));
            broker.request("svc.echo", "ping", Duration.ofSeconds(10)).join();
            broker.publish("_INBOX.abc.1", 1);
            broker.publish("_INBOX.def.1", 1);
            Await.until("delivered", () -> broker.stats().delivered() == 4, broker::stats);
            assertThat(patternTags("ringbus.delivered")).containsExactlyInAnyOrder("_INBOX.>", "svc.echo");
            // Two client inboxes plus the broker's own reply subscription.
            assertThat(counter("ringbus.delivered", "pattern", "_INBOX.>")).isEqualTo(3);
        }
    }

    @Test
    void sampledLatencyTimesOneCallInN() {
        try (Broker broker = metered("m-sampled").handlerLatencySampling(4).build()) {
            broker.subscribe("tick.>", message -> { });
            for (int i = 0; i < 102; i++) {
                broker.publish("tick.a", i);
            }
            Await.until("all delivered", () -> broker.stats().delivered() == 102, broker::stats);
            // Calls number 0, 4, 8, ..., 100 of the subscription.
            assertThat(latency("tick.>", ExecutionMode.EVENT_LOOP).count()).isEqualTo(26);
            assertThat(counter("ringbus.delivered", "pattern", "tick.>")).isEqualTo(102);

            broker.subscribe("tock.>", message -> { }, SubscribeOptions.defaults().mode(ExecutionMode.WORKER)
                    .ordered(false).maxConcurrency(4));
            for (int i = 0; i < 40; i++) {
                broker.publish("tock.a", i);
            }
            Await.until("all delivered", () -> broker.stats().delivered() == 142, broker::stats);
            // Unordered drainers number their calls with one counter: still exactly 1 in 4.
            assertThat(latency("tock.>", ExecutionMode.WORKER).count()).isEqualTo(10);
        }
    }

    @Test
    void meterSettingsAreValidatedNamingTheValue() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Broker.builder().meterPatternLimit(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("meterPatternLimit=0");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Broker.builder().handlerLatencySampling(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("handlerLatencySampling=0");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Broker.builder().handlerLatencySampling(48))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("handlerLatencySampling=48");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Broker.builder().meterRegistry(null))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("meterRegistry");
    }

    private List<String> patternTags(String name) {
        return registry.find(name).meters().stream().map(meter -> meter.getId().getTag("pattern")).toList();
    }
}
