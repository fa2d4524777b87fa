package io.ringbus.bench.network;

import io.ringbus.bench.TextTable;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The {@code tls} scenario's ratios, table and goal: each ringbus-server row divided by
 * nats-server's row of the same transport and case, from the same run. Immutable once built.
 */
final class TlsReport {
    /** Issue 12's goal over TLS. */
    static final String GOAL = "TLS throughput and connection set-up >= 1.0x nats-server";
    static final String TLS = "tls";
    static final String PLAIN = "plain";

    private final List<TlsResults.Row> rows;
    private final TlsResults.Goal goal;

    /** @param rows every transport, case and server, ratios NaN */
    TlsReport(List<TlsResults.Row> rows) {
        List<TlsResults.Row> out = new ArrayList<>();
        for (TlsResults.Row r : rows) {
            TlsResults.Row nats = ServerKind.RINGBUS.label().equals(r.server()) ? peerOf(rows, r) : null;
            double ratio = nats == null || nats.failure() != null || r.failure() != null ? Double.NaN
                    : r.median() / nats.median();
            double cpuRatio = nats == null ? Double.NaN : r.cpuNanosPerOp() / nats.cpuNanosPerOp();
            out.add(new TlsResults.Row(r.transport(), r.caseId(), r.caseLabel(), r.unit(), r.server(), r.runs(),
                    r.median(), ratio, r.cpuNanosPerOp(), Double.isFinite(cpuRatio) ? cpuRatio : Double.NaN,
                    r.failure()));
        }
        this.rows = List.copyOf(out);
        this.goal = judge(this.rows);
    }

    private static TlsResults.Row peerOf(List<TlsResults.Row> rows, TlsResults.Row r) {
        for (TlsResults.Row p : rows) {
            if (ServerKind.NATS.label().equals(p.server()) && p.transport().equals(r.transport())
                    && p.caseId().equals(r.caseId())) {
                return p;
            }
        }
        return null;
    }

    private static TlsResults.Goal judge(List<TlsResults.Row> rows) {
        TlsResults.Row worst = null;
        for (TlsResults.Row r : rows) {
            if (TLS.equals(r.transport()) && !Double.isNaN(r.ratioToNats())
                    && (worst == null || r.ratioToNats() < worst.ratioToNats())) {
                worst = r;
            }
        }
        return worst == null ? new TlsResults.Goal(GOAL, "not measured", null)
                : new TlsResults.Goal(GOAL, String.format(Locale.ROOT, "lowest %.2fx (%s)", worst.ratioToNats(),
                worst.caseLabel()), worst.ratioToNats() >= 1.0);
    }

    /** @return whether every run of every case verified */
    boolean passed() {
        return rows.stream().allMatch(r -> r.failure() == null);
    }

    /** @return the rows, ratios filled in */
    List<TlsResults.Row> rows() {
        return rows;
    }

    /**
     * @return the table: per case, both servers over TLS and in plaintext, and the ratios; then each
     *         server's CPU per operation (ns per delivery or per connection) and ringbus over nats; then the goal
     */
    String text() {
        boolean plain = rows.stream().anyMatch(r -> PLAIN.equals(r.transport()));
        List<String> header = new ArrayList<>(List.of("case", "unit", "nats TLS", "ringbus TLS", "ratio TLS",
                "nats cpu ns/op TLS", "ringbus cpu ns/op TLS", "cpu ratio TLS"));
        if (plain) {
            header.addAll(List.of("nats plain", "ringbus plain", "ratio plain", "nats cpu ns/op plain",
                    "ringbus cpu ns/op plain", "cpu ratio plain"));
        }
        TextTable table = new TextTable(header.toArray(String[]::new));
        List<String> cases = new ArrayList<>();
        for (TlsResults.Row r : rows) {
            if (!cases.contains(r.caseId())) {
                cases.add(r.caseId());
            }
        }
        for (String id : cases) {
            TlsResults.Row any = rows.stream().filter(r -> r.caseId().equals(id)).findFirst().orElseThrow();
            List<String> cells = new ArrayList<>(List.of(any.caseLabel(), any.unit()));
            for (String transport : plain ? List.of(TLS, PLAIN) : List.of(TLS)) {
                TlsResults.Row nats = find(id, transport, ServerKind.NATS);
                TlsResults.Row ringbus = find(id, transport, ServerKind.RINGBUS);
                cells.add(figure(nats));
                cells.add(figure(ringbus));
                cells.add(ringbus == null || Double.isNaN(ringbus.ratioToNats()) ? "-"
                        : String.format(Locale.ROOT, "%.2fx", ringbus.ratioToNats()));
                cells.add(cpu(nats));
                cells.add(cpu(ringbus));
                cells.add(ringbus == null || Double.isNaN(ringbus.cpuRatioToNats()) ? "-"
                        : String.format(Locale.ROOT, "%.2fx", ringbus.cpuRatioToNats()));
            }
            table.row(cells.toArray(String[]::new));
        }
        return table.render() + String.format(Locale.ROOT, "goal: %s: %s%s%n", goal.goal(), goal.measured(),
                goal.met() == null ? "" : goal.met() ? ", met" : ", NOT met");
    }

    private TlsResults.Row find(String caseId, String transport, ServerKind server) {
        for (TlsResults.Row r : rows) {
            if (r.caseId().equals(caseId) && r.transport().equals(transport) && r.server().equals(server.label())) {
                return r;
            }
        }
        return null;
    }

    private static String cpu(TlsResults.Row r) {
        return r == null || r.failure() != null || Double.isNaN(r.cpuNanosPerOp()) ? "-"
                : String.format(Locale.ROOT, "%,.0f", r.cpuNanosPerOp());
    }

    private static String figure(TlsResults.Row r) {
        if (r == null) {
            return "-";
        }
        return r.failure() != null ? "FAILED" : String.format(Locale.ROOT, "%,.0f", r.median());
    }

    /**
     * @param head the document without rows and goal
     * @return the document with this report's rows and goal
     */
    TlsResults document(TlsResults head) {
        return new TlsResults(head.scenario(), head.jvm(), head.cores(), head.machine(), head.settings(), rows, goal);
    }
}
