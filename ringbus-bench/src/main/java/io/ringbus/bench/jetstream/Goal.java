package io.ringbus.bench.jetstream;

import io.ringbus.core.FsyncPolicy;

import java.util.Locale;

/**
 * Issue 26's goal for a ringbus-server row: a rate at least {@code minimum} times a base, either
 * nats-server's rate in the same run or (sync publish under {@code always}) the disk's own fsync
 * rate measured in the same run. Publishing is judged at nats-server's loss window or tighter
 * ({@code interval}, and async publish under {@code always} too); reads under every policy.
 * Besides, in every ringbus row, the server's CPU per message must not exceed nats-server's.
 *
 * @param minimum the least ratio that meets it
 * @param base    what the rate is divided by
 */
record Goal(double minimum, Base base) {
    /** The most CPU per message ringbus-server may spend, over nats-server's. */
    static final double MAX_CPU_RATIO = 1.0;

    /** What a rate is compared with. */
    enum Base { NATS, DISK_FSYNC }

    /**
     * @param c      the case
     * @param policy ringbus-server's policy
     * @return the rate goal, or {@code null} when issue 26 sets none for that case and policy
     */
    static Goal of(JsCase c, FsyncPolicy policy) {
        return switch (c.kind()) {
            case ASYNC_PUBLISH -> policy == FsyncPolicy.INTERVAL || policy == FsyncPolicy.ALWAYS
                    ? new Goal(1.0, Base.NATS) : null;
            case SYNC_PUBLISH -> switch (policy) {
                case INTERVAL -> new Goal(1.0, Base.NATS);
                case ALWAYS -> new Goal(0.8, Base.DISK_FSYNC);
                default -> null;
            };
            case KV_PUT -> policy == FsyncPolicy.INTERVAL ? new Goal(1.0, Base.NATS) : null;
            case READ -> new Goal(c == JsCase.KV_GET ? 1.0 : 2.0, Base.NATS);
        };
    }

    /** @return e.g. {@code >= 1.0x nats} or {@code >= 0.8x disk fsync/s} */
    String text() {
        return String.format(Locale.ROOT, ">= %.1fx %s", minimum, base == Base.NATS ? "nats" : "disk fsync/s");
    }

    /**
     * The verdict of a ringbus row.
     *
     * @param goal      the rate goal, or {@code null}
     * @param goalRatio the row's rate over the goal's base (NaN when unknown)
     * @param cpuRatio  its CPU per message over nats-server's (NaN when unknown)
     * @param failed    whether the row failed
     * @return {@code yes}, {@code no: rate}, {@code no: cpu}, {@code no: rate, cpu}, {@code failed}, or
     *         {@code ?} when a figure needed is missing
     */
    static String verdict(Goal goal, double goalRatio, double cpuRatio, boolean failed) {
        if (failed) {
            return "failed";
        }
        boolean rateKnown = goal == null || !Double.isNaN(goalRatio);
        if (!rateKnown || Double.isNaN(cpuRatio)) {
            return "?";
        }
        boolean rateMet = goal == null || goalRatio >= goal.minimum();
        boolean cpuMet = cpuRatio <= MAX_CPU_RATIO;
        if (rateMet && cpuMet) {
            return "yes";
        }
        return "no: " + (rateMet ? "" : "rate") + (!rateMet && !cpuMet ? ", " : "") + (cpuMet ? "" : "cpu");
    }
}
