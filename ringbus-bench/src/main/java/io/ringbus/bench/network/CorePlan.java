package io.ringbus.bench.network;

import java.util.ArrayList;
import java.util.List;

/**
 * Where the server and the load generator run in one step of the cores sweep: the server on CPUs
 * {@code 0..k-1} ({@code taskset -c}), the load generator on the others when any are left,
 * otherwise on the same CPUs as the server, which the report says.
 *
 * @param cores      the server's CPUs, k; 0 for not pinned at all
 * @param serverCpus {@code taskset -c} list of the server, {@code null} when not pinned
 * @param loadCpus   {@code taskset -c} list of the load generator, {@code null} when not pinned
 * @param shared     whether the load generator shares the server's CPUs
 */
record CorePlan(int cores, String serverCpus, String loadCpus, boolean shared) {
    /** Nothing pinned: server and load generator wherever the OS puts them. */
    static final CorePlan UNPINNED = new CorePlan(0, null, null, true);

    /**
     * @param cores     the server's CPU count, &gt;= 1
     * @param available CPUs of this machine (numbered 0..available-1)
     * @return the plan
     * @throws IllegalArgumentException when {@code cores} is out of 1..available
     */
    static CorePlan of(int cores, int available) {
        if (cores < 1 || cores > available) {
            throw new IllegalArgumentException("cores must be in 1.." + available + " (this machine's CPUs): cores=" + cores);
        }
        String server = cores == 1 ? "0" : "0-" + (cores - 1);
        if (cores < available) {
            String load = cores == available - 1 ? Integer.toString(cores) : cores + "-" + (available - 1);
            return new CorePlan(cores, server, load, false);
        }
        return new CorePlan(cores, server, server, true);
    }

    /**
     * @param cores     the requested core counts
     * @param available this machine's CPUs
     * @param skipped   receives a line for each count larger than the machine
     * @return the plans for the counts the machine has
     */
    static List<CorePlan> sweep(List<Integer> cores, int available, List<String> skipped) {
        List<CorePlan> plans = new ArrayList<>();
        for (int k : cores) {
            if (k > available) {
                skipped.add("cores=" + k + " skipped: this machine has " + available + " CPUs");
            } else {
                plans.add(of(k, available));
            }
        }
        return plans;
    }

    /** @return e.g. "server 0-1, load 2-7", or "not pinned" */
    String describe() {
        if (serverCpus == null) {
            return "not pinned";
        }
        return "server on CPU " + serverCpus + ", load generator on " + loadCpus
                + (shared ? " (shared: no CPU left for the load generator)" : "");
    }

    /**
     * @param command a command line
     * @return it behind {@code taskset -c <serverCpus>}, or unchanged when not pinned
     */
    List<String> pinServer(List<String> command) {
        if (serverCpus == null) {
            return command;
        }
        List<String> pinned = new ArrayList<>(List.of("taskset", "-c", serverCpus));
        pinned.addAll(command);
        return pinned;
    }
}
