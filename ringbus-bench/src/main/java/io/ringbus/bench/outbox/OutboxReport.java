package io.ringbus.bench.outbox;

import io.ringbus.bench.JsonWriter;
import io.ringbus.bench.TextTable;

import java.util.List;
import java.util.Locale;

/**
 * The outbox scenario's tables and JSON, with the two goals: at least
 * {@value #GOAL_EVENTS_PER_SECOND} events/s relayed by one relay, and a commit-to-delivery p99 of
 * at most {@value #GOAL_P99_MILLIS} ms at 1,000 events/s with one relay.
 */
final class OutboxReport {
    /** Throughput goal for one ringbus relay, events per second. */
    static final double GOAL_EVENTS_PER_SECOND = 20_000;
    /** Latency goal for one ringbus relay at 1,000 events/s, p99 in milliseconds. */
    static final double GOAL_P99_MILLIS = 50;

    private final List<ThroughputResult> throughput;
    private final List<LatencyResult> latency;
    private final List<HttpResult> http;

    /**
     * @param throughput drains, in run order (may be empty)
     * @param latency    fixed-rate runs (may be empty)
     * @param http       HTTP runs (may be empty)
     */
    OutboxReport(List<ThroughputResult> throughput, List<LatencyResult> latency, List<HttpResult> http) {
        this.throughput = List.copyOf(throughput);
        this.latency = List.copyOf(latency);
        this.http = List.copyOf(http);
    }

    /** @return whether every run verified */
    boolean passed() {
        return throughput.stream().allMatch(ThroughputResult::verified)
                && latency.stream().allMatch(LatencyResult::verified)
                && http.stream().allMatch(HttpResult::verified);
    }

    /** @return the tables and the goal lines */
    String text() {
        StringBuilder out = new StringBuilder();
        if (!throughput.isEmpty()) {
            out.append("throughput: keyed backlog (").append(EventPayload.KEYS).append(" keys, ")
                    .append(EventPayload.BYTES).append(" B payloads) appended first, then drained into an in-process"
                            + " broker subscriber; events/s = backlog / (relay start -> last first delivery)\n");
            ThroughputResult naive = find(RelayContender.NAIVE.label());
            TextTable table = new TextTable("contender", "relays", "batch", "backlog", "fill s", "drain s", "events/s",
                    "vs naive", "batches", "delivered", "dup", "pending after", "result");
            for (ThroughputResult r : throughput) {
                table.row(r.contender(), Integer.toString(r.relays()), num(r.batchSize()), num(r.events()),
                        fixed(r.fillSeconds(), 1), fixed(r.drainSeconds(), 2), num(Math.round(r.eventsPerSecond())),
                        naive == null ? "-" : fixed(r.eventsPerSecond() / naive.eventsPerSecond(), 1),
                        num(r.batches()), num(r.delivered()), num(r.duplicates()), num(r.pendingAfter()),
                        r.verified() ? "ok" : "FAILED: " + r.failure());
            }
            out.append(table.render());
        }
        if (!latency.isEmpty()) {
            out.append('\n').append("latency: one keyed row per transaction at a fixed rate; commit() returned ->"
                    + " subscriber handled it, same JVM clock; after the warm-up\n");
            TextTable table = new TextTable("contender", "relays", "target/s", "achieved/s", "events", "p50 ms",
                    "p99 ms", "p99.9 ms", "max ms", "before commit", "dup", "missing", "result");
            for (LatencyResult r : latency) {
                table.row(r.contender(), Integer.toString(r.relays()), num(Math.round(r.targetRate())),
                        num(Math.round(r.achievedRate())), num(r.measuredEvents()), millis(r.p50Micros()),
                        millis(r.p99Micros()), millis(r.p999Micros()), millis(r.maxMicros()), num(r.beforeCommit()),
                        num(r.duplicates()), num(r.missing()), r.verified() ? "ok" : "FAILED: " + r.failure());
            }
            out.append(table.render());
        }
        if (!http.isEmpty()) {
            out.append('\n').append("http (seed 002): unkeyed backlog -> 1 ringbus relay -> local endpoint answering"
                    + " after ").append(http.get(0).latencyMillis()).append(" ms; ideal = events x latency /"
                    + " concurrency; wave floor = batches x ceil(batch / concurrency) x latency / parallel batches\n");
            TextTable table = new TextTable("maxConcurrency", "batch", "parallel", "events", "elapsed s", "ideal s",
                    "elapsed/ideal", "wave floor s", "events/s", "peak in flight", "dup", "result");
            for (HttpResult r : http) {
                table.row(Integer.toString(r.maxConcurrency()), num(r.batchSize()), num(r.parallelBatches()),
                        num(r.events()),
                        fixed(r.elapsedSeconds(), 2), fixed(r.idealSeconds(), 2), fixed(r.ratioToIdeal(), 2),
                        fixed(r.waveSeconds(), 2), num(Math.round(r.eventsPerSecond())), num(r.peakInFlight()),
                        num(r.duplicates()), r.verified() ? "ok" : "FAILED: " + r.failure());
            }
            out.append(table.render());
        }
        String goals = goals();
        if (!goals.isEmpty()) {
            out.append('\n').append(goals);
        }
        return out.toString();
    }

    private String goals() {
        StringBuilder out = new StringBuilder();
        ThroughputResult one = find(RelayContender.RINGBUS_1.label());
        if (one != null) {
            out.append(String.format(Locale.ROOT, "goal: >= %,.0f events/s by one relay: %s (%,.0f events/s)%n",
                    GOAL_EVENTS_PER_SECOND, one.eventsPerSecond() >= GOAL_EVENTS_PER_SECOND ? "MET" : "MISSED",
                    one.eventsPerSecond()));
        }
        for (LatencyResult r : latency) {
            if (r.contender().equals(RelayContender.RINGBUS_1.label())) {
                out.append(String.format(Locale.ROOT, "goal: commit->delivery p99 <= %.0f ms at %,.0f events/s,"
                                + " one relay: %s (p99 %.1f ms at %,.0f events/s achieved)%n", GOAL_P99_MILLIS,
                        r.targetRate(), r.p99Micros() / 1e3 <= GOAL_P99_MILLIS ? "MET" : "MISSED",
                        r.p99Micros() / 1e3, r.achievedRate()));
            }
        }
        return out.toString();
    }

    private ThroughputResult find(String contender) {
        return throughput.stream().filter(r -> r.contender().equals(contender)).findFirst().orElse(null);
    }

    /**
     * Writes the results as members of the current JSON object.
     *
     * @param json a writer positioned inside an object
     */
    void writeMembers(JsonWriter json) {
        json.name("throughput").beginArray();
        for (ThroughputResult r : throughput) {
            json.beginObject().name("contender").value(r.contender()).name("relays").value(r.relays())
                    .name("batchSize").value(r.batchSize()).name("events").value(r.events())
                    .name("fillSeconds").value(r.fillSeconds()).name("drainSeconds").value(r.drainSeconds())
                    .name("eventsPerSecond").value(r.eventsPerSecond()).name("delivered").value(r.delivered())
                    .name("duplicates").value(r.duplicates()).name("pendingAfter").value(r.pendingAfter())
                    .name("batches").value(r.batches()).name("verified").value(r.verified())
                    .name("failure").value(r.failure()).endObject();
        }
        json.endArray();
        json.name("latency").beginArray();
        for (LatencyResult r : latency) {
            json.beginObject().name("contender").value(r.contender()).name("relays").value(r.relays())
                    .name("targetRate").value(r.targetRate()).name("achievedRate").value(r.achievedRate())
                    .name("measuredEvents").value(r.measuredEvents()).name("p50Micros").value(r.p50Micros())
                    .name("p99Micros").value(r.p99Micros()).name("p999Micros").value(r.p999Micros())
                    .name("maxMicros").value(r.maxMicros()).name("deliveredBeforeCommitReturned").value(r.beforeCommit())
                    .name("duplicates").value(r.duplicates()).name("missing").value(r.missing())
                    .name("verified").value(r.verified()).name("failure").value(r.failure()).endObject();
        }
        json.endArray();
        json.name("http").beginArray();
        for (HttpResult r : http) {
            json.beginObject().name("maxConcurrency").value(r.maxConcurrency()).name("batchSize").value(r.batchSize())
                    .name("parallelBatches").value(r.parallelBatches()).name("events").value(r.events()).name("latencyMillis").value(r.latencyMillis())
                    .name("elapsedSeconds").value(r.elapsedSeconds()).name("idealSeconds").value(r.idealSeconds())
                    .name("ratioToIdeal").value(r.ratioToIdeal()).name("waveFloorSeconds").value(r.waveSeconds())
                    .name("eventsPerSecond").value(r.eventsPerSecond()).name("peakInFlight").value(r.peakInFlight())
                    .name("duplicates").value(r.duplicates()).name("verified").value(r.verified())
                    .name("failure").value(r.failure()).endObject();
        }
        json.endArray();
        json.name("goals").beginObject();
        ThroughputResult one = find(RelayContender.RINGBUS_1.label());
        json.name("oneRelayEventsPerSecondMin").value(GOAL_EVENTS_PER_SECOND);
        json.name("oneRelayEventsPerSecondMet");
        if (one == null) {
            json.nullValue();
        } else {
            json.value(one.eventsPerSecond() >= GOAL_EVENTS_PER_SECOND);
        }
        json.name("oneRelayP99MillisMax").value(GOAL_P99_MILLIS);
        LatencyResult lat = latency.stream().filter(r -> r.contender().equals(RelayContender.RINGBUS_1.label()))
                .findFirst().orElse(null);
        json.name("oneRelayP99Met");
        if (lat == null) {
            json.nullValue();
        } else {
            json.value(lat.p99Micros() / 1e3 <= GOAL_P99_MILLIS);
        }
        json.endObject();
    }

    private static String num(long value) {
        return String.format(Locale.ROOT, "%,d", value);
    }

    private static String fixed(double value, int decimals) {
        return String.format(Locale.ROOT, "%." + decimals + "f", value);
    }

    private static String millis(long micros) {
        return fixed(micros / 1e3, 1);
    }
}
