package io.ringbus.bench.network;

import io.ringbus.bench.TextTable;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.ToLongFunction;

/**
 * One server's soak: the per-second samples and natsload's account of the load.
 *
 * @param server   the server
 * @param command  its command line
 * @param samples  one per second
 * @param load     natsload's account of the load, or {@code null} when it failed to run
 * @param failure  why natsload failed to run, or {@code null}
 * @param exitCode the server's exit code after SIGTERM, -1 when it had to be killed
 */
record SoakReport(ServerKind server, List<String> command, List<SoakSampler.Sample> samples, NatsLoadResult.Soak load,
                  String failure, int exitCode) {
    /** Copies the samples. */
    SoakReport {
        samples = List.copyOf(samples);
    }

    /** @return seconds whose {@code /healthz} answered 200 */
    long healthyAnswers() {
        return samples.stream().filter(SoakSampler.Sample::healthy).count();
    }

    /** @return whether /healthz answered every time, the fast readers got everything and natsload saw no error */
    boolean passed() {
        return failure == null && load != null && !samples.isEmpty() && healthyAnswers() == samples.size()
                && load.fastGotEverything() && load.problems() != null && load.problems().isEmpty();
    }

    /** @return the summary table */
    String table() {
        TextTable table = new TextTable(server.label() + " soak", "min", "max", "last");
        row(table, "heap used MiB (/metrics)", s -> s.heapBytes() < 0 ? -1 : s.heapBytes() / 1024, 1024);
        row(table, "RSS MiB (/proc VmRSS)", SoakSampler.Sample::rssKiB, 1024);
        table.row("/healthz answered", healthyAnswers() + "/" + samples.size(), "", "");
        if (load != null) {
            table.row("seconds of load", fmt("%.0f", load.seconds()), "", "");
            table.row("published (4 publishers, 16/16/256/1024 B)", count(load.published()),
                    count(load.ratePerPublisher()) + "/s each", "");
            if (load.fast() != null) {
                for (int i = 0; i < load.fast().size(); i++) {
                    NatsLoadResult.Fast f = load.fast().get(i);
                    table.row("fast subscriber " + i + " received", count(f.received()) + "/" + count(f.expected()),
                            f.failure() == null ? "in order" : "", "");
                }
            }
            table.row("slow nats.go subscriber (1 ms/msg): handled, dropped by client",
                    count(load.slowClientHandled()), count(load.slowClientDropped()), "");
            table.row("slow socket (4 KiB/10 ms): MiB read, cut by server", fmt("%.1f", load.slowSocketBytes() / 1048576.0),
                    String.valueOf(load.slowSocketCutByServer()), "");
            table.row("socket that never reads: cut by server", String.valueOf(load.stuckSocketCutByServer()), "", "");
            table.row("churned connections, failed", count(load.churnConnections()), count(load.churnFailures()), "");
        }
        table.row("server exit code after SIGTERM", exitCode < 0 ? "killed" : Integer.toString(exitCode), "", "");
        table.row("result", passed() ? "PASS" : "FAIL", "", "");
        StringBuilder out = new StringBuilder(table.render());
        if (failure != null) {
            out.append("FAILED: ").append(failure).append('\n');
        }
        if (load != null && load.problems() != null && !load.problems().isEmpty()) {
            List<String> p = load.problems();
            out.append("natsload problems: ").append(p.subList(0, Math.min(5, p.size()))).append('\n');
        }
        return out.toString();
    }

    private void row(TextTable table, String label, ToLongFunction<SoakSampler.Sample> metric, double divisor) {
        long[] values = samples.stream().mapToLong(metric).filter(v -> v >= 0).toArray();
        if (values.length == 0) {
            table.row(label, "-", "-", "-");
            return;
        }
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        for (long v : values) {
            min = Math.min(min, v);
            max = Math.max(max, v);
        }
        table.row(label, fmt("%.1f", min / divisor), fmt("%.1f", max / divisor), fmt("%.1f", values[values.length - 1] / divisor));
    }

    /** @return this server's part of the results document */
    SoakResults.Server section() {
        List<SoakResults.Sample> rows = new ArrayList<>();
        for (SoakSampler.Sample s : samples) {
            rows.add(new SoakResults.Sample(s.atMillis(), s.healthy(), s.heapBytes(), s.rssKiB()));
        }
        return new SoakResults.Server(server.label(), String.join(" ", command), passed(), failure, healthyAnswers(),
                exitCode, rows, load);
    }

    private static String count(long value) {
        return String.format(Locale.ROOT, "%,d", value);
    }

    private static String fmt(String format, double value) {
        return String.format(Locale.ROOT, format, value);
    }
}
