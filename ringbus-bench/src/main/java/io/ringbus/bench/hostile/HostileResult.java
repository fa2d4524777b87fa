package io.ringbus.bench.hostile;

import java.util.List;

/**
 * One attack against one server: whether it stayed up, and what the healthy clients saw meanwhile.
 *
 * @param attack       the attack's name
 * @param server       the server's label
 * @param alive        whether the server process still ran after the attack
 * @param outOfMemory  whether its log mentions OutOfMemoryError
 * @param healthyAfter whether a fresh client logged in and got a PONG after the attack
 * @param attackError  what stopped the attack early, or {@code null}
 * @param probes       the healthy clients' figures
 * @param cpuMillis    the server's user + system CPU time during the attack, or -1
 * @param seconds      how long the attack ran
 * @param notes        what the attack saw ({@link Target#note})
 */
record HostileResult(String attack, String server, boolean alive, boolean outOfMemory, boolean healthyAfter,
                     String attackError, List<Probe.Figures> probes, long cpuMillis, double seconds,
                     List<String> notes) {
    /** A healthy client's p99 round trip must stay under this (issue 25's goal, a benchmark). */
    static final double GOAL_P99_MILLIS = 50;
    /** A valid login must succeed within this (issue 25's goal, a benchmark). */
    static final double GOAL_LOGIN_MILLIS = 1_000;

    /** @return whether the server survived and every healthy client was answered every time */
    boolean survived() {
        return alive && !outOfMemory && healthyAfter && probes.stream().allMatch(p -> p.failed() == 0 && p.answered() > 0);
    }

    /** @return whether the latency goals held as well */
    boolean goalsMet() {
        return survived() && probes.stream().allMatch(p -> p.what().equals("valid login")
                ? p.maxMillis() <= GOAL_LOGIN_MILLIS : p.p99Millis() <= GOAL_P99_MILLIS);
    }

    /** @param what the probe's name @return its figures, or {@code null} */
    Probe.Figures probe(String what) {
        return probes.stream().filter(p -> p.what().equals(what)).findFirst().orElse(null);
    }
}
