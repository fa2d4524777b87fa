package io.ringbus.bench.jetstream;

import io.ringbus.bench.Median;
import io.ringbus.bench.TextTable;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The jetstream scenario's rows: per case, server and policy the median of its rounds, each
 * ringbus-server row divided by nats-server's row of the same case (rate and CPU per message),
 * and judged against issue 26's goals ({@link Goal}). Immutable once built.
 */
final class JetStreamReport {
    private final List<JetStreamResults.Row> rows;

    /**
     * @param cases          the cases, in table order
     * @param contenders     the servers, in table order (nats-server first)
     * @param samples        every round's samples
     * @param fsyncPerSecond the disk's fsync rate, NaN when not measured
     */
    JetStreamReport(List<JsCase> cases, List<Contender> contenders, List<Sample> samples, double fsyncPerSecond) {
        List<JetStreamResults.Row> out = new ArrayList<>();
        for (JsCase c : cases) {
            Aggregate nats = null;
            for (Contender contender : contenders) {
                List<Sample> mine = samples.stream().filter(s -> s.jsCase() == c && s.contender().equals(contender))
                        .toList();
                if (mine.isEmpty()) {
                    continue;
                }
                Aggregate a = new Aggregate(mine);
                if (contender.isNats()) {
                    nats = a;
                    out.add(a.row(c, contender, Double.NaN, Double.NaN, null, Double.NaN, null));
                    continue;
                }
                double ratio = nats == null ? Double.NaN : a.perSecond / nats.perSecond;
                // nats-server's CPU can be under one clock tick in a short step: no ratio then
                double cpuRatio = nats == null || !(nats.cpuMicros > 0) ? Double.NaN : a.cpuMicros / nats.cpuMicros;
                Goal goal = Goal.of(c, contender.policy());
                double goalRatio = goal == null ? Double.NaN
                        : goal.base() == Goal.Base.NATS ? ratio : a.perSecond / fsyncPerSecond;
                String met = Goal.verdict(goal, goalRatio, cpuRatio, a.failedRounds > 0);
                out.add(a.row(c, contender, ratio, cpuRatio, goal, goalRatio, met));
            }
        }
        this.rows = List.copyOf(out);
    }

    /** @return the rows, in table order */
    List<JetStreamResults.Row> rows() {
        return rows;
    }

    /** @return whether every row was measured in every round */
    boolean allMeasured() {
        return rows.stream().allMatch(r -> r.failedRounds() == 0);
    }

    /** @return the table, then a line per failure and per row whose publishes stalled */
    String text() {
        TextTable table = new TextTable("case", "server", "policy", "rate/s", "vs nats", "cpu us/msg", "cpu vs nats",
                "goal", "met");
        String lastCase = null;
        for (JetStreamResults.Row r : rows) {
            String caseCell = r.caseLabel().equals(lastCase) ? "" : r.caseLabel();
            lastCase = r.caseLabel();
            String goal = "-";
            if (r.goal() != null) {
                goal = r.goal() + (r.goal().contains("disk") ? String.format(Locale.ROOT, " (%s)", ratio(r.goalRatio()))
                        : "");
            } else if (r.met() != null) {
                goal = "cpu only";
            }
            table.row(caseCell, r.server(), r.policy(), r.rounds() == 0 ? "FAILED" : String.format(Locale.ROOT, "%,.0f",
                    r.perSecond()), ratio(r.ratioToNats()), Double.isNaN(r.cpuMicrosPerMessage()) ? "-"
                    : String.format(Locale.ROOT, "%.1f", r.cpuMicrosPerMessage()), ratio(r.cpuRatioToNats()), goal,
                    r.met() == null ? "-" : r.met());
        }
        StringBuilder text = new StringBuilder(table.render());
        for (JetStreamResults.Row r : rows) {
            String who = r.caseLabel() + ", " + r.server() + " " + r.policy();
            if (r.failure() != null) {
                text.append(String.format(Locale.ROOT, "FAILED %s (%d of %d rounds): %s%n", who, r.failedRounds(),
                        r.failedRounds() + r.rounds(), r.failure()));
            }
            if (r.stalls() > 0) {
                text.append(String.format(Locale.ROOT, "stalled %s: nats.go refused %d async publishes (window full"
                        + " for 200 ms), retried%n", who, r.stalls()));
            }
        }
        return text.toString();
    }

    private static String ratio(double r) {
        return Double.isNaN(r) ? "-" : String.format(Locale.ROOT, "%.2fx", r);
    }

    /** One case on one server over the rounds. */
    private static final class Aggregate {
        final int rounds;
        final int failedRounds;
        final double perSecond;
        final List<Double> runs = new ArrayList<>();
        final double cpuMicros;
        final long stalls;
        final String failure;

        Aggregate(List<Sample> samples) {
            List<Double> cpu = new ArrayList<>();
            long stalled = 0;
            String firstFailure = null;
            for (Sample s : samples) {
                stalled += s.stalls();
                if (s.ok()) {
                    runs.add(s.perSecond());
                    if (!Double.isNaN(s.cpuMicrosPerMessage())) {
                        cpu.add(s.cpuMicrosPerMessage());
                    }
                } else if (firstFailure == null) {
                    firstFailure = "round " + s.round() + ": " + s.failure();
                }
            }
            this.rounds = runs.size();
            this.failedRounds = samples.size() - runs.size();
            this.perSecond = median(runs);
            this.cpuMicros = median(cpu);
            this.stalls = stalled;
            this.failure = firstFailure;
        }

        private static double median(List<Double> values) {
            return values.isEmpty() ? Double.NaN : Median.of(values.stream().mapToDouble(Double::doubleValue).toArray());
        }

        JetStreamResults.Row row(JsCase c, Contender contender, double ratio, double cpuRatio, Goal goal, double goalRatio,
                                 String met) {
            return new JetStreamResults.Row(c.id(), c.label(), contender.server(), contender.policyName(), rounds,
                    failedRounds, perSecond, List.copyOf(runs), cpuMicros, ratio, cpuRatio, goal == null ? null
                    : goal.text(), goalRatio, met, stalls, failure);
        }
    }
}
