package io.ringbus.bench.network;

import io.ringbus.bench.Median;

import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * The measured runs of one case on one server, or why the case failed.
 *
 * @param server  the server
 * @param c       the case
 * @param runs    the measured runs, in run order; at least one unless the case failed
 * @param failure {@code null}, or what failed (a run that lost messages, timed out, ...);
 *                the runs before the failure are kept but not reported
 * @param serverCpuNanos the server process's user + system CPU time summed over the measured runs
 *                (read just before and just after each), -1 when unknown
 */
public record CaseResult(ServerKind server, NetworkCase c, List<RunOutcome> runs, String failure,
                         long serverCpuNanos) {
    /**
     * @throws IllegalArgumentException when a case that did not fail has no run
     */
    public CaseResult {
        if (runs.isEmpty() && failure == null) {
            throw new IllegalArgumentException("at least one measured run is needed: runs=0");
        }
        runs = List.copyOf(runs);
    }

    /**
     * A case whose runs all verified, the server's CPU time not measured.
     *
     * @param server the server
     * @param c      the case
     * @param runs   the measured runs; at least one
     */
    public CaseResult(ServerKind server, NetworkCase c, List<RunOutcome> runs) {
        this(server, c, runs, null, -1);
    }

    /**
     * @return the server's CPU time per delivery over the measured runs (per message published
     *         where nothing subscribes), in nanoseconds; NaN when unknown or the case failed
     */
    public double cpuNanosPerDelivery() {
        if (!passed()) {
            return Double.NaN;
        }
        long deliveries = 0;
        for (RunOutcome r : runs) {
            deliveries += r.deliveries() > 0 ? r.deliveries() : r.messages();
        }
        return ServerCpu.nanosPer(serverCpuNanos, deliveries);
    }

    /** @return whether every run verified */
    public boolean passed() {
        return failure == null;
    }

    /** @return the median time to the last delivery, in milliseconds */
    public double medianMillis() {
        return median(r -> r.deliverNanos() / 1e6);
    }

    /** @return the fastest run's time to the last delivery, in milliseconds */
    public double minMillis() {
        return !passed() ? Double.NaN : runs.stream().mapToDouble(r -> r.deliverNanos() / 1e6).min().orElseThrow();
    }

    /** @return the slowest run's time to the last delivery, in milliseconds */
    public double maxMillis() {
        return !passed() ? Double.NaN : runs.stream().mapToDouble(r -> r.deliverNanos() / 1e6).max().orElseThrow();
    }

    /** @return the median of the runs' published messages per second */
    public double medianPublishedPerSecond() {
        return median(RunOutcome::publishedPerSecond);
    }

    /** @return the median of the runs' deliveries per second */
    public double medianDeliveriesPerSecond() {
        return median(RunOutcome::deliveriesPerSecond);
    }

    private double median(ToDoubleFunction<RunOutcome> metric) {
        if (!passed()) {
            return Double.NaN;
        }
        return Median.of(runs.stream().mapToDouble(metric).toArray());
    }
}
