package io.ringbus.outbox;

import io.ringbus.testkit.Await;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.ringbus.core.Headers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A relay's Micrometer meters on H2 after known outcomes: exact delivered, retried and
 * dead-lettered counts per sink, one latency record per delivered row, and the pending, dead and
 * in-flight gauges.
 */
@Timeout(60)
class RelayMetricsTest {
    private static final RetryPolicy QUICK = new RetryPolicy(5, Duration.ofMillis(20), Duration.ofMillis(50), 0);

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private Outbox outbox;
    private Relay relay;

    /**
     * Fails the first attempt of each {@code retry} row, fails {@code poison} rows permanently,
     * fails every row with {@code down} always; delivers the rest.
     */
    private record ScriptedSink(String name, Set<Long> attempted) implements OutboxSink {
        ScriptedSink(String name) {
            this(name, ConcurrentHashMap.newKeySet());
        }

        @Override
        public int maxConcurrency() {
            return 4;
        }

        @Override
        public CompletionStage<?> deliver(OutboxEvent event) {
            String payload = new String(event.payload(), StandardCharsets.UTF_8);
            boolean first = attempted.add(event.id());
            if (payload.startsWith("poison")) {
                return CompletableFuture.failedFuture(new PermanentDeliveryException("poison: " + payload));
            }
            if (payload.startsWith("down") || (payload.startsWith("retry") && first)) {
                return CompletableFuture.failedFuture(new IllegalStateException("not now: " + payload));
            }
            return CompletableFuture.completedFuture(null);
        }
    }

    @BeforeEach
    void open() throws SQLException {
        outbox = Outbox.builder().jdbcUrl(TestDatabases.h2Url()).open();
    }

    @AfterEach
    void close() throws SQLException {
        if (relay != null) {
            relay.close(Duration.ofSeconds(10));
        }
        outbox.close();
    }

    private void publish(String subject, String payload, int times) throws SQLException {
        for (int i = 0; i < times; i++) {
            outbox.publish(subject, null, (payload + i).getBytes(StandardCharsets.UTF_8), Headers.EMPTY);
        }
    }

    private double counter(String name, String sink) {
        FunctionCounter counter = registry.find(name).tag("sink", sink).functionCounter();
        assertThat(counter).as("%s sink=%s", name, sink).isNotNull();
        return counter.count();
    }

    private double gauge(String name) {
        Gauge gauge = registry.find(name).tags("outbox", "public.ringbus_outbox", "relay", "metered").gauge();
        assertThat(gauge).as(name).isNotNull();
        return gauge.value();
    }

    private Timer latency(String sink) {
        Timer timer = registry.find("ringbus.outbox.delivery.latency").tag("sink", sink).timer();
        assertThat(timer).as("latency of sink %s", sink).isNotNull();
        return timer;
    }

    @Test
    void countsDeliveredRetriedAndDeadLetteredRowsPerSink() throws Exception {
        publish("orders.created", "ok", 10);
        publish("orders.created", "retry", 3);
        publish("orders.created", "poison", 2);
        publish("audit.login", "ok", 4);
        relay = outbox.relay().name("metered")
                .route("orders.>", new ScriptedSink("orders"))
                .route("audit.>", new ScriptedSink("audit"))
                .retryPolicy(QUICK).pollInterval(Duration.ofMillis(20)).countInterval(Duration.ofMillis(20))
                .meterRegistry(registry).start();
        Await.until("every row settled", () -> TestDatabases.counts(outbox).pending() == 0
                && relay.stats().delivered() == 17 && relay.stats().deadLettered() == 2);

        assertThat(counter("ringbus.outbox.delivered", "orders")).isEqualTo(13);
        assertThat(counter("ringbus.outbox.retried", "orders")).isEqualTo(3);
        assertThat(counter("ringbus.outbox.dead.lettered", "orders")).isEqualTo(2);
        assertThat(counter("ringbus.outbox.delivered", "audit")).isEqualTo(4);
        assertThat(counter("ringbus.outbox.retried", "audit")).isZero();
        assertThat(latency("orders").count()).isEqualTo(13);
        assertThat(latency("audit").count()).isEqualTo(4);
        assertThat(registry.find("ringbus.outbox.delivered").tags("outbox", "public.ringbus_outbox",
                "relay", "metered").functionCounters()).hasSize(2);
        Await.until("the relay counted again", () -> gauge("ringbus.outbox.pending") == 0
                && gauge("ringbus.outbox.dead") == 2);
        assertThat(gauge("ringbus.outbox.in.flight")).isZero();

        relay.close(Duration.ofSeconds(10));
        relay = null;
        assertThat(registry.getMeters()).as("closing the relay removes its meters").isEmpty();
    }

    @Test
    void pendingGaugeCountsRowsWaitingForARetry() throws Exception {
        publish("jobs.run", "down", 7);
        relay = outbox.relay().name("metered").sink(new ScriptedSink("jobs"))
                .retryPolicy(new RetryPolicy(5, Duration.ofHours(1), Duration.ofHours(1), 0))
                .pollInterval(Duration.ofMillis(20)).countInterval(Duration.ofMillis(20))
                .meterRegistry(registry).start();
        Await.until("every row failed once", () -> relay.stats().retried() == 7);
        Await.until("the relay counted", () -> gauge("ringbus.outbox.pending") == 7);
        assertThat(gauge("ringbus.outbox.dead")).isZero();
        assertThat(counter("ringbus.outbox.retried", "jobs")).isEqualTo(7);
        assertThat(counter("ringbus.outbox.delivered", "jobs")).isZero();
        assertThat(latency("jobs").count()).isZero();
        assertThat(outbox.counts().pending()).isEqualTo(7);
    }
}
