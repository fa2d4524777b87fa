package io.ringbus.bench.federation;

import io.ringbus.bench.JvmDescription;

import java.util.List;

/**
 * The federation scenario's results document ({@code bin/bench federation --json},
 * {@code bench-results/federation.json}). Immutable.
 *
 * @param scenario   always {@code federation}
 * @param jvm        where it ran
 * @param cores      the processors the JVM could use
 * @param natsServer {@code nats-server --version}
 * @param messages   messages per run
 * @param payload    payload bytes
 * @param window     durable publish: appends outstanding at most
 * @param rows       every case, ringbus and its floor
 */
public record FederationResults(String scenario, JvmDescription.Vm jvm, int cores, String natsServer, long messages,
                                int payload, int window, List<Row> rows) {
    /** The value of {@code scenario}. */
    public static final String SCENARIO = "federation";

    /**
     * One case's median run.
     *
     * @param name     the case ({@code 1 -> 1}, {@code 1 -> 3 fan-out}, {@code durable publish})
     * @param system   {@code ringbus} (nodes linked by NatsFederation) or {@code jnats} (the floor)
     * @param rate     messages per second received by every receiver (durable: acknowledged)
     * @param p50Micros median publish-to-receive latency, NaN where not measured
     * @param p99Micros 99th percentile, NaN where not measured
     * @param ratio    ringbus's rate over the floor's in the same case, NaN for the floor
     */
    public record Row(String name, String system, double rate, double p50Micros, double p99Micros, double ratio) {
    }
}
