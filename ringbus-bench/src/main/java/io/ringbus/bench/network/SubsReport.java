package io.ringbus.bench.network;

import io.ringbus.bench.JsonWriter;
import io.ringbus.bench.TextTable;

import java.util.List;
import java.util.Locale;
import java.util.Map;

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
     * @param result     natsload's JSON, or {@code null} when it failed to run
     * @param failure    why natsload failed to run, or {@code null}
     * @param peakRssKiB the server's peak RSS over the scenario, -1 when unknown
     */
    record ServerSubs(ServerKind server, List<String> command, Map<?, ?> result, String failure, long peakRssKiB) {
        List<?> steps() {
            return result != null && result.get("steps") instanceof List<?> l ? l : List.of();
        }

        Map<?, ?> route() {
            return result != null && result.get("route") instanceof Map<?, ?> m ? m : Map.of();
        }
    }

    /** Copies the list. */
    SubsReport {
        servers = List.copyOf(servers);
    }

    /** @return whether every server ran every step and the routing measurement verified */
    boolean passed() {
        for (ServerSubs s : servers) {
            if (s.failure() != null || s.result() == null || !Boolean.TRUE.equals(s.route().get("verified"))) {
                return false;
            }
            for (Object o : s.steps()) {
                if (((Map<?, ?>) o).get("failure") != null) {
                    return false;
                }
            }
        }
        return true;
    }

    private Map<?, ?> step(ServerKind kind, int index) {
        for (ServerSubs s : servers) {
            if (s.server() == kind && index < s.steps().size()) {
                return (Map<?, ?>) s.steps().get(index);
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
                Map<?, ?> st = step(s.server(), i);
                if (st == null) {
                    continue;
                }
                String count = String.format(Locale.ROOT, "%,.0f", num(st, "subscriptions"));
                if (st.get("failure") != null) {
                    boolean timedOut = Boolean.TRUE.equals(st.get("timedOut"));
                    table.row(count, s.server().label(), timedOut ? "TIMED OUT" : "FAILED", "-", "-", "-", "-", "-", "-");
                    failures.append(timedOut ? "TIMED OUT " : "FAILED ").append(s.server().label()).append(' ')
                            .append(count).append(": ").append(st.get("failure")).append('\n');
                    continue;
                }
                Map<?, ?> base = step(ComparisonReport.BASELINE, i);
                String ratio = base == null || base.get("failure") != null ? "-"
                        : fmt("%.2f", num(st, "addMillis") / num(base, "addMillis"));
                table.row(count, s.server().label(), fmt("%.0f", num(st, "addMillis")),
                        fmt("%.0f", num(st, "subscriptions") / num(st, "addMillis")),
                        fmt("%.1f", num(st, "rssBeforeMiB")), fmt("%.1f", num(st, "rssAfterAddMiB")),
                        fmt("%.1f", num(st, "rssAfterRemoveMiB")), fmt("%.0f", num(st, "removeMillis")), ratio);
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
        Map<?, ?> base = servers.stream().filter(s -> s.server() == ComparisonReport.BASELINE).map(ServerSubs::route)
                .findFirst().orElse(Map.of());
        for (ServerSubs s : servers) {
            Map<?, ?> r = s.route();
            boolean ok = Boolean.TRUE.equals(r.get("verified"));
            table.row(s.server().label(), ok ? fmt("%.2f", num(r, "quietPerSecond") / 1e6) : "-",
                    ok ? fmt("%.2f", num(r, "churnPerSecond") / 1e6) : "-",
                    ok ? fmt("%,.0f", num(r, "churnSubscribeUnsubscribePerSecond")) : "-",
                    ok ? "yes" : "FAILED: " + r.get("failure"),
                    ok && Boolean.TRUE.equals(base.get("verified"))
                            ? fmt("%.2f", num(r, "churnPerSecond") / num(base, "churnPerSecond")) : "-");
        }
        return table.render();
    }

    /**
     * @param json a writer positioned inside the document's object
     */
    void writeMembers(JsonWriter json) {
        json.name("connections").value(connections);
        json.name("baseline").value(ComparisonReport.BASELINE.label());
        json.name("servers").beginArray();
        for (ServerSubs s : servers) {
            json.beginObject().name("name").value(s.server().label())
                    .name("command").value(String.join(" ", s.command()))
                    .name("peakRssMiB").value(s.peakRssKiB() < 0 ? Double.NaN : s.peakRssKiB() / 1024.0)
                    .name("failure").value(s.failure())
                    .name("steps").parsedValue(s.steps())
                    .name("route").parsedValue(s.route())
                    .endObject();
        }
        json.endArray();
    }

    private static double num(Map<?, ?> m, String key) {
        return m.get(key) instanceof Double d ? d : Double.NaN;
    }

    private static String fmt(String format, double value) {
        return String.format(Locale.ROOT, format, value);
    }
}
