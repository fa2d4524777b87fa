package io.ringbus.bench.network;

import io.ringbus.bench.Median;

import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * The measured natsload runs of one Go case on one server with one CPU placement, or why the case
 * failed.
 *
 * @param server     the server
 * @param plan       where server and load generator ran
 * @param c          the case
 * @param runs       natsload's result per measured run ({@link NatsLoadResult.Throughput} or
 *                   {@link NatsLoadResult.Latency}), each verified
 * @param failure    {@code null}, or what failed (natsload's verdict, a timeout, a crash)
 * @param serverCpuNanos the server process's user + system CPU time summed over the measured runs
 *                   (read just before and just after each natsload process), -1 when unknown
 * @param peakRssKiB the server's peak RSS (VmHWM) when its last case ended, -1 when unknown
 */
record GoResult(ServerKind server, CorePlan plan, GoCase c, List<NatsLoadResult> runs, String failure,
                long serverCpuNanos, long peakRssKiB) {
    /** Copies the runs. */
    GoResult {
        runs = List.copyOf(runs);
    }

    /** @return whether every run verified */
    boolean passed() {
        return failure == null && !runs.isEmpty();
    }

    /**
     * @param metric a figure of one run, NaN where the run does not measure it
     * @return its median over the runs, NaN when the case failed
     */
    double median(ToDoubleFunction<NatsLoadResult> metric) {
        if (!passed()) {
            return Double.NaN;
        }
        return Median.of(runs.stream().mapToDouble(metric).toArray());
    }

    /**
     * @return the server's CPU time per message over the measured runs, in nanoseconds: per delivery,
     *         per message published where nothing subscribes, per round trip or message sent in a
     *         latency case; NaN when unknown or the case failed
     */
    double cpuNanosPerMessage() {
        if (!passed()) {
            return Double.NaN;
        }
        long messages = 0;
        for (NatsLoadResult run : runs) {
            messages += messagesOf(run);
        }
        return ServerCpu.nanosPer(serverCpuNanos, messages);
    }

    /**
     * @param run a natsload run
     * @return what the server's CPU time of the run is divided by (see {@link #cpuNanosPerMessage})
     */
    static long messagesOf(NatsLoadResult run) {
        return switch (run) {
            case NatsLoadResult.Throughput t -> t.deliveries() > 0 ? t.deliveries() : t.messages();
            case NatsLoadResult.Latency l -> l.messages();
            default -> 0;
        };
    }

    /** @return the headline figure: median deliveries/s, or p99 in microseconds for a latency case */
    double headline() {
        return c.latency() ? median(GoResult::p99Micros) : median(GoResult::deliveriesPerSecond);
    }

    /**
     * @param run a throughput run
     * @return its published messages per second, NaN for any other run
     */
    static double publishedPerSecond(NatsLoadResult run) {
        return run instanceof NatsLoadResult.Throughput t ? t.publishedPerSecond() : Double.NaN;
    }

    /**
     * @param run a throughput run
     * @return its deliveries per second, NaN for any other run
     */
    static double deliveriesPerSecond(NatsLoadResult run) {
        return run instanceof NatsLoadResult.Throughput t ? t.deliveriesPerSecond() : Double.NaN;
    }

    /**
     * @param run a latency run
     * @return its median latency in microseconds, NaN for any other run
     */
    static double p50Micros(NatsLoadResult run) {
        return run instanceof NatsLoadResult.Latency l ? l.p50Micros() : Double.NaN;
    }

    /**
     * @param run a latency run
     * @return its p99 latency in microseconds, NaN for any other run
     */
    static double p99Micros(NatsLoadResult run) {
        return run instanceof NatsLoadResult.Latency l ? l.p99Micros() : Double.NaN;
    }
}
