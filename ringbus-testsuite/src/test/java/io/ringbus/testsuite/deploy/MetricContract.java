package io.ringbus.testsuite.deploy;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The meters of issue "Observability" (names, types and tags, as agreed for ringbus-core,
 * ringbus-server and ringbus-outbox) plus Micrometer's JVM binders, registered in a
 * {@link PrometheusMeterRegistry} and scraped: the series names and labels Prometheus will see,
 * as Micrometer really renders them ({@code .} to {@code _}, {@code _total}, {@code _seconds_bucket}).
 * Change the contract here and in the modules together.
 */
final class MetricContract {
    /** Labels Prometheus adds to every series of a target: the two standard ones and ours from prometheus.yml. */
    static final Set<String> TARGET_LABELS = Set.of("job", "instance", "component");

    private MetricContract() {
    }

    /** @return series name to the labels it carries, as scraped */
    static Map<String, Set<String>> series() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        core(registry, Tags.of("broker", "b"));
        server(registry, Tags.of("server", "s"));
        outbox(registry, Tags.of("outbox", "o", "relay", "r"));
        new JvmMemoryMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ClassLoaderMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        Map<String, Set<String>> series = new TreeMap<>();
        Pattern line = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{(.*)})? .*$");
        Pattern label = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"(?:[^\"\\\\]|\\\\.)*\"");
        for (String text : registry.scrape().split("\n")) {
            Matcher m = line.matcher(text);
            if (text.startsWith("#") || !m.matches()) {
                continue;
            }
            Set<String> labels = series.computeIfAbsent(m.group(1), k -> new TreeSet<>());
            if (m.group(3) != null) {
                Matcher l = label.matcher(m.group(3));
                while (l.find()) {
                    labels.add(l.group(1));
                }
            }
        }
        registry.close();
        return series;
    }

    private static void core(MeterRegistry r, Tags broker) {
        Counter.builder("ringbus.published").tags(broker).register(r).increment();
        Counter.builder("ringbus.delivered").tags(broker).tags("pattern", "p", "mode", "EVENT_LOOP").register(r).increment();
        Counter.builder("ringbus.dropped").tags(broker).tags("pattern", "p", "reason", "x").register(r).increment();
        Counter.builder("ringbus.handler.errors").tags(broker).tags("pattern", "p").register(r).increment();
        Timer.builder("ringbus.handler.latency").tags(broker).tags("pattern", "p", "mode", "EVENT_LOOP")
                .publishPercentileHistogram().register(r).record(java.time.Duration.ofMillis(1));
        gauges(r, broker, "ringbus.ring.remaining", "ringbus.ring.size", "ringbus.subscriptions");
        gauges(r, broker.and("pattern", "p"), "ringbus.subscription.pending", "ringbus.subscription.lag");
        Counter.builder("ringbus.watchdog.warnings").tags(broker).tags("mode", "WORKER").register(r).increment();
    }

    private static void server(MeterRegistry r, Tags server) {
        gauges(r, server, "ringbus.server.connections", "ringbus.server.subscriptions");
        for (String counter : new String[] {"ringbus.server.connections.accepted", "ringbus.server.bytes.in",
                "ringbus.server.bytes.out", "ringbus.server.messages.in", "ringbus.server.messages.out",
                "ringbus.server.slow.consumers", "ringbus.server.auth.failures",
                "ringbus.server.permission.violations"}) {
            Counter.builder(counter).tags(server).register(r).increment();
        }
    }

    private static void outbox(MeterRegistry r, Tags outbox) {
        gauges(r, outbox, "ringbus.outbox.pending", "ringbus.outbox.dead", "ringbus.outbox.in.flight");
        Tags sink = outbox.and("sink", "k");
        for (String counter : new String[] {"ringbus.outbox.delivered", "ringbus.outbox.retried",
                "ringbus.outbox.dead.lettered"}) {
            Counter.builder(counter).tags(sink).register(r).increment();
        }
        Timer.builder("ringbus.outbox.delivery.latency").tags(sink).publishPercentileHistogram().register(r)
                .record(java.time.Duration.ofMillis(5));
    }

    private static void gauges(MeterRegistry r, Tags tags, String... names) {
        for (String name : names) {
            Gauge.builder(name, () -> 1.0).tags(tags).register(r);
        }
    }
}
