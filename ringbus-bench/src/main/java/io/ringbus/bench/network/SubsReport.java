package io.ringbus.bench.network;

import io.ringbus.bench.JvmDescription;
import io.ringbus.bench.TextTable;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The {@code subs} scenario's results: per server, natsload's steps (add and remove N
 * subscriptions, server RSS) and its routing measurement. Ratios are ringbus-server over
 * nats-server from the same run: time to add (lower is better) and routing while churning
 * (higher is better).
 *
 * @param connections connections the subscriptions were spread over
 * @param servers     one per server, in run order
 */
record SubsReport(int connections, List<ServerSubs> servers) {
    /**
     * @param server     the server
     * @param command    its command line
     * @param result     natsload's result, or {@code null} when it failed to run
     * @param failure    why natsload failed to run, or {@code null}
     * @param peakRssKiB the server's peak RSS over the scenario, -1 when unknown
     */
    record ServerSubs(ServerKind server, List<String> command, NatsLoadResult.Subs result, String failure,
                      long peakRssKiB) {
        List<NatsLoadResult.SubsStep> steps() {
            return result != null && result.steps() != null ? result.steps() : List.of();
        }

        /** @return the routing measurement, {@code null} when natsload failed to run */
        NatsLoadResult.Route route() {
            return result == null ? null : result.route();
        }

        /** @return whether natsload ran and its routing measurement verified */
        boolean routeVerified() {
            return route() != null && route().verified();
        }
    }

    /** Copies the list. */
    SubsReport {
        servers = List.copyOf(servers);
    }

    /** @return whether every server ran every step and the routing measurement verified */
    boolean passed() {
        for (ServerSubs s : servers) {
            if (s.failure() != null || s.result() == null || !s.routeVerified()) {
                return false;
            }
            for (NatsLoadResult.SubsStep step : s.steps()) {
                if (step.failure() != null) {
                    return false;
                }
            }
        }
        return true;
    }

    private NatsLoadResult.SubsStep step(ServerKind kind, int index) {
        for (ServerSubs s : servers) {
            if (s.server() == kind && index < s.steps().size()) {
                return s.steps().get(index);
            }
        }
        return null;
    }

    /** @return one row per count and server */
    String table() {
        TextTable table = new TextTable("subscriptions", "server", "add ms", "k subs/s", "RSS before MiB",
                "RSS added MiB", "RSS removed MiB", "remove ms", "add time vs " + ComparisonReport.BASELINE.label());
        int steps = servers.stream().mapToInt(s -> s.steps().size()).max().orElse(0);
        StringBuilder failures = new StringBuilder();
        for (int i = 0; i < steps; i++) {
            for (ServerSubs s : servers) {
                NatsLoadResult.SubsStep st = step(s.server(), i);
                if (st == null) {
                    continue;
                }
                String count = String.format(Locale.ROOT, "%,d", st.subscriptions());
                if (st.failure() != null) {
                    boolean timedOut = st.timedOut();
                    table.row(count, s.server().label(), timedOut ? "TIMED OUT" : "FAILED", "-", "-", "-", "-", "-", "-");
                    failures.append(timedOut ? "TIMED OUT " : "FAILED ").append(s.server().label()).append(' ')
                            .append(count).append(": ").append(st.failure()).append('\n');
                    continue;
                }
                NatsLoadResult.SubsStep base = step(ComparisonReport.BASELINE, i);
                String ratio = base == null || base.failure() != null ? "-"
                        : fmt("%.2f", st.addMillis() / base.addMillis());
                table.row(count, s.server().label(), fmt("%.0f", st.addMillis()),
                        fmt("%.0f", st.subscriptions() / st.addMillis()),
                        fmt("%.1f", st.rssBeforeMiB()), fmt("%.1f", st.rssAfterAddMiB()),
                        fmt("%.1f", st.rssAfterRemoveMiB()), fmt("%.0f", st.removeMillis()), ratio);
            }
        }
        for (ServerSubs s : servers) {
            if (s.failure() != null) {
                failures.append("FAILED ").append(s.server().label()).append(": ").append(s.failure()).append('\n');
            }
        }
        return "subscriptions over " + connections + " connections (subscribe, then flush); RSS of the server process\n"
                + table.render() + failures;
    }

    /** @return routing 1 -&gt; 1 quiet and while subscriptions churn, one row per server */
    String routeTable() {
        TextTable table = new TextTable("routing 1->1 16 B", "M msg/s quiet", "M msg/s churning", "sub+unsub/s",
                "verified", "churning vs " + ComparisonReport.BASELINE.label());
        ServerSubs base = servers.stream().filter(s -> s.server() == ComparisonReport.BASELINE).findFirst().orElse(null);
        for (ServerSubs s : servers) {
            NatsLoadResult.Route r = s.route();
            boolean ok = s.routeVerified();
            table.row(s.server().label(), ok ? fmt("%.2f", r.quietPerSecond() / 1e6) : "-",
                    ok ? fmt("%.2f", r.churnPerSecond() / 1e6) : "-",
                    ok ? fmt("%,.0f", r.churnSubscribeUnsubscribePerSecond()) : "-",
                    ok ? "yes" : "FAILED: " + (r == null ? null : r.failure()),
                    ok && base != null && base.routeVerified()
                            ? fmt("%.2f", r.churnPerSecond() / base.route().churnPerSecond()) : "-");
        }
        return table.render();
    }

    /**
     * @param jvm where the runner ran
     * @return the results document
     */
    SubsResults document(JvmDescription jvm) {
        List<SubsResults.Server> rows = new ArrayList<>();
        for (ServerSubs s : servers) {
            rows.add(new SubsResults.Server(s.server().label(), String.join(" ", s.command()),
                    s.peakRssKiB() < 0 ? Double.NaN : s.peakRssKiB() / 1024.0, s.failure(), s.steps(), s.route()));
        }
        return new SubsResults(SubsResults.SCENARIO, jvm.vm(), jvm.cores(), connections,
                ComparisonReport.BASELINE.label(), rows);
    }

    private static String fmt(String format, double value) {
        return String.format(Locale.ROOT, format, value);
    }
}
