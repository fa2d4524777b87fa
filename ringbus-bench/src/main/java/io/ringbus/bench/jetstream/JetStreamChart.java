package io.ringbus.bench.jetstream;

import io.ringbus.bench.chart.SvgBarChart;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Draws a {@link JetStreamResults}: per case, each ringbus-server policy's rate over nats-server's,
 * then its CPU time per message over nats-server's.
 */
public final class JetStreamChart {
    private JetStreamChart() {
    }

    /**
     * @param d the results
     * @return the chart
     */
    public static SvgBarChart draw(JetStreamResults d) {
        List<JetStreamResults.Row> rows = d.rows() == null ? List.of() : d.rows();
        List<String> subtitle = new ArrayList<>();
        if (d.machine() != null) {
            subtitle.add(String.format(Locale.ROOT, "%s -js (file store, default sync) vs ringbus-server, %d cores"
                    + " shared with the load generator (nats.go %s)", d.machine().natsServer(), d.cores(),
                    d.machine().natsGo()));
        }
        if (d.settings() != null) {
            subtitle.add(String.format(Locale.ROOT, "median of %d rounds; replay of %,d messages",
                    d.settings().rounds(), d.settings().replayMessages()));
        }
        List<String> policies = new ArrayList<>();
        List<String> cases = new ArrayList<>();
        for (JetStreamResults.Row r : rows) {
            if (!"nats-server".equals(r.server()) && !policies.contains(r.policy())) {
                policies.add(r.policy());
            }
            if (!cases.contains(r.caseLabel())) {
                cases.add(r.caseLabel());
            }
        }
        String[] series = policies.stream().map(p -> "ringbus " + p).toArray(String[]::new);
        SvgBarChart chart = new SvgBarChart("ringbus-server JetStream vs nats-server 2.9 JetStream", subtitle);
        SvgBarChart.Panel rate = chart.panel("rate, ringbus-server / nats-server, same run (higher is better)", series)
                .reference("nats-server = 1x", 1.0).ratioAxis();
        SvgBarChart.Panel cpu = chart.panel("server CPU per message, ringbus-server / nats-server (lower is better)",
                series).reference("nats-server = 1x", 1.0).ratioAxis();
        for (String c : cases) {
            double[] rates = new double[policies.size()];
            double[] cpus = new double[policies.size()];
            for (int i = 0; i < policies.size(); i++) {
                JetStreamResults.Row r = find(rows, c, policies.get(i));
                rates[i] = r == null ? Double.NaN : finite(r.ratioToNats());
                cpus[i] = r == null ? Double.NaN : finite(r.cpuRatioToNats());
            }
            rate.row(c, rates);
            cpu.row(c, cpus);
        }
        return chart;
    }

    private static JetStreamResults.Row find(List<JetStreamResults.Row> rows, String caseLabel, String policy) {
        for (JetStreamResults.Row r : rows) {
            if (r.caseLabel().equals(caseLabel) && r.policy().equals(policy) && !"nats-server".equals(r.server())) {
                return r;
            }
        }
        return null;
    }

    private static double finite(double v) {
        return Double.isFinite(v) ? v : Double.NaN;
    }
}
