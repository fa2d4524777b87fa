package io.ringbus.bench.network;

import java.util.ArrayList;
import java.util.List;

/**
 * One case of the {@code tls} scenario, as natsload flags: 1 -&gt; 1 at 16 B and 1 KiB and 1 -&gt; N
 * at 16 B (deliveries per second), and connection set-up (connections per second), each run over
 * TLS and, for context, in plaintext.
 *
 * @param id    e.g. {@code 1x1x16}, {@code connect4}
 * @param label in tables, e.g. {@code "1->4 16 B"}
 * @param unit  what the figure counts: {@code deliveries/s} or {@code connections/s}
 * @param args  natsload's flags, {@code -url}, {@code -subject} and {@code -tls-ca} excepted
 */
record TlsCase(String id, String label, String unit, List<String> args) {
    /** The unit of the throughput cases. */
    static final String DELIVERIES = "deliveries/s";
    /** The unit of the connection cases. */
    static final String CONNECTIONS = "connections/s";

    /** Copies the flags. */
    TlsCase {
        args = List.copyOf(args);
    }

    /** @return whether the case measures connection set-up */
    boolean connect() {
        return CONNECTIONS.equals(unit);
    }

    /**
     * @param fan           N in 1 -&gt; N, &gt;= 2
     * @param smallMessages messages per run at 16 B
     * @param kibMessages   messages per run at 1 KiB
     * @param connects      connections per connection run
     * @param warmConnects  unmeasured connections before them, in the same natsload run
     * @param parallel      one connection case per value: connections opened at a time
     * @return the cases, in run order
     */
    static List<TlsCase> standard(int fan, long smallMessages, long kibMessages, int connects, int warmConnects,
                                  List<Integer> parallel) {
        List<TlsCase> cases = new ArrayList<>();
        cases.add(throughput("1x1x16", "1->1 16 B", 16, smallMessages, 1));
        cases.add(throughput("1x1x1024", "1->1 1 KiB", 1_024, kibMessages, 1));
        cases.add(throughput("1xNx16", "1->" + fan + " 16 B", 16, smallMessages, fan));
        for (int p : parallel) {
            cases.add(new TlsCase("connect" + p, p == 1 ? "connect, 1 at a time" : "connect, " + p + " at a time",
                    CONNECTIONS, List.of("-mode", "connect", "-connects", Integer.toString(connects), "-parallel",
                    Integer.toString(p), "-warmup", Integer.toString(warmConnects))));
        }
        return cases;
    }

    private static TlsCase throughput(String id, String label, int size, long messages, int subscribers) {
        return new TlsCase(id, label, DELIVERIES, List.of("-mode", "throughput", "-pubs", "1", "-subs",
                Integer.toString(subscribers), "-size", Integer.toString(size), "-msgs", Long.toString(messages)));
    }

    /**
     * @param run natsload's result of this case
     * @return the run's figure in {@link #unit()}
     */
    double figure(NatsLoadResult run) {
        return switch (run) {
            case NatsLoadResult.Throughput t -> t.deliveriesPerSecond();
            case NatsLoadResult.Connect c -> c.connectionsPerSecond();
            default -> Double.NaN;
        };
    }

    /**
     * @param run natsload's result of this case
     * @return what the server did in the run, which its CPU time is divided by: deliveries (messages
     *         published where nothing subscribes), or connections opened and closed, the unmeasured
     *         warm-up ones included; 0 for any other result
     */
    long operations(NatsLoadResult run) {
        return switch (run) {
            case NatsLoadResult.Throughput t -> t.deliveries() > 0 ? t.deliveries() : t.messages();
            case NatsLoadResult.Connect c -> c.connections() + warmConnects();
            default -> 0;
        };
    }

    private long warmConnects() {
        int at = args.indexOf("-warmup");
        return at < 0 || at + 1 >= args.size() ? 0 : Long.parseLong(args.get(at + 1));
    }

    /**
     * @param run natsload's result of this case
     * @return {@code null} when the run verified, else why not
     */
    static String verdict(NatsLoadResult run) {
        return switch (run) {
            case NatsLoadResult.Throughput t -> t.verified() ? null : String.valueOf(t.failure());
            case NatsLoadResult.Connect c -> c.verified() ? null : String.valueOf(c.failure());
            default -> "natsload printed a " + run.mode() + " result, not a throughput or connect one";
        };
    }
}
