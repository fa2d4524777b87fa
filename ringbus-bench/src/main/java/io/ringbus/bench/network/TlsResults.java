package io.ringbus.bench.network;

import io.ringbus.bench.JvmDescription;

import java.util.List;

/**
 * The {@code tls} scenario's results document ({@code bin/bench tls --json},
 * {@code bench-results/tls.json}), written by {@link TlsReport#document} and read by the chart.
 * A {@code double} that was not measured is NaN (JSON {@code null}). Immutable.
 *
 * @param scenario always {@code tls}
 * @param jvm      where the runner ran
 * @param cores    the processors the runner's JVM could use (the servers and natsload share them)
 * @param machine  the servers' versions, ringbus-server's TLS provider and the certificate
 * @param settings the workload
 * @param rows     one per transport, case and server, in run order
 * @param goal     issue 12's goal and the verdict
 */
public record TlsResults(String scenario, JvmDescription.Vm jvm, int cores, Machine machine, Settings settings,
                         List<Row> rows, Goal goal) {
    /** The value of {@code scenario}. */
    public static final String SCENARIO = "tls";

    /**
     * @param kernel             {@code os.name} and {@code os.version}
     * @param natsServer         {@code nats-server --version}
     * @param ringbusTlsProvider the provider ringbus-server logged at start-up, e.g. {@code OpenSSL (BoringSSL)}
     * @param certificate        what both servers served
     */
    public record Machine(String kernel, String natsServer, String ringbusTlsProvider, String certificate) {
    }

    /**
     * @param warmupRuns        unmeasured runs per case and server
     * @param runs              measured runs per case and server; the median is reported
     * @param smallMessages     messages per run at 16 B
     * @param kibMessages       messages per run at 1 KiB
     * @param connects          connections per connection run
     * @param warmConnects      unmeasured connections at the start of each connection run
     * @param ringbusHeap       ringbus-server's {@code -Xmx}
     * @param requestedProvider ringbus-server's {@code tls.provider}
     */
    public record Settings(int warmupRuns, int runs, long smallMessages, long kibMessages, int connects,
                           int warmConnects, String ringbusHeap, String requestedProvider) {
    }

    /**
     * One case on one server over one transport.
     *
     * @param transport   {@code tls} or {@code plain}
     * @param caseId      e.g. {@code 1x1x16}
     * @param caseLabel   e.g. {@code 1->1 16 B}
     * @param unit        {@code deliveries/s} or {@code connections/s}
     * @param server      {@code ringbus-server} or {@code nats-server}
     * @param runs        each measured run's figure
     * @param median      their median, NaN when the case failed
     * @param ratioToNats ringbus-server's median over nats-server's in the same transport and case (NaN for
     *                    nats-server's rows, or when either failed)
     * @param cpuNanosPerOp  the server process's user + system CPU time over the measured runs, per delivery
     *                    (throughput cases) or per connection opened and closed (connection cases, the
     *                    warm-up connections of each run counted); NaN when unknown
     * @param cpuRatioToNats ringbus-server's CPU per operation over nats-server's (NaN for nats-server's rows,
     *                    or when either is unknown)
     * @param failure     what failed, or {@code null}
     */
    public record Row(String transport, String caseId, String caseLabel, String unit, String server, List<Double> runs,
                      double median, double ratioToNats, double cpuNanosPerOp, double cpuRatioToNats,
                      String failure) {
    }

    /**
     * @param goal     what issue 12 asks
     * @param measured the lowest TLS ratio and its case
     * @param met      whether every TLS ratio is at least 1.0; {@code null} when none was measured
     */
    public record Goal(String goal, String measured, Boolean met) {
    }
}
