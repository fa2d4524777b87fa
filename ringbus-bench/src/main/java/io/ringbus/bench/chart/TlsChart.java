package io.ringbus.bench.chart;

import io.ringbus.bench.network.ServerKind;
import io.ringbus.bench.network.TlsResults;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Draws a {@link TlsResults}: ringbus-server over nats-server per case (TLS and plaintext), then
 * the deliveries and the connections per second of both servers.
 */
final class TlsChart {
    private TlsChart() {
    }

    /**
     * @param d the results
     * @return the chart
     */
    static SvgBarChart draw(TlsResults d) {
        List<TlsResults.Row> rows = d.rows() == null ? List.of() : d.rows();
        TlsResults.Machine m = d.machine();
        List<String> subtitle = new ArrayList<>();
        if (m != null) {
            subtitle.add(String.format(Locale.ROOT, "%s vs ringbus-server (TLS: %s), %d cores, %s", m.natsServer(),
                    m.ringbusTlsProvider(), d.cores(), m.certificate()));
        }
        if (d.settings() != null) {
            subtitle.add(String.format(Locale.ROOT, "median of %d runs; natsload (nats.go)", d.settings().runs()));
        }
        SvgBarChart chart = new SvgBarChart("ringbus-server vs nats-server over TLS", subtitle);
        SvgBarChart.Panel ratios = chart.panel("ringbus-server / nats-server, same run (higher is better)", "TLS",
                "plaintext").reference("nats-server = 1x", 1.0).ratioAxis();
        SvgBarChart.Panel deliveries = chart.panel("deliveries per second", series());
        SvgBarChart.Panel connections = chart.panel("connections set up per second", series());
        List<String> cases = new ArrayList<>();
        for (TlsResults.Row r : rows) {
            if (!cases.contains(r.caseId())) {
                cases.add(r.caseId());
            }
        }
        for (String id : cases) {
            TlsResults.Row ringbusTls = find(rows, id, "tls", ServerKind.RINGBUS);
            TlsResults.Row ringbusPlain = find(rows, id, "plain", ServerKind.RINGBUS);
            TlsResults.Row any = rows.stream().filter(r -> r.caseId().equals(id)).findFirst().orElseThrow();
            ratios.row(any.caseLabel(), ratio(ringbusTls), ratio(ringbusPlain));
            if (ringbusTls != null && !Double.isNaN(ringbusTls.ratioToNats())) {
                ratios.note(String.format(Locale.ROOT, "%.2fx", ringbusTls.ratioToNats()));
            }
            SvgBarChart.Panel panel = any.unit().startsWith("connections") ? connections : deliveries;
            panel.row(any.caseLabel(), median(find(rows, id, "tls", ServerKind.NATS)), median(ringbusTls),
                    median(find(rows, id, "plain", ServerKind.NATS)), median(ringbusPlain));
        }
        return chart;
    }

    private static String[] series() {
        return new String[] {"nats-server TLS", "ringbus-server TLS", "nats-server plain", "ringbus-server plain"};
    }

    private static TlsResults.Row find(List<TlsResults.Row> rows, String id, String transport, ServerKind server) {
        for (TlsResults.Row r : rows) {
            if (r.caseId().equals(id) && r.transport().equals(transport) && server.label().equals(r.server())) {
                return r;
            }
        }
        return null;
    }

    private static double ratio(TlsResults.Row r) {
        return r == null ? Double.NaN : r.ratioToNats();
    }

    private static double median(TlsResults.Row r) {
        return r == null || r.failure() != null ? Double.NaN : r.median();
    }
}
