package io.ringbus.bench.network;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * One case of the Go client's comparison, as natsload flags: the cases of the NATS authors'
 * {@code nats-bench} (publish only, 1 -&gt; 1, 1 -&gt; N, N -&gt; 1, N independent pairs) at 16 B and
 * 1 KiB, request/reply latency and one-way latency at a fixed rate.
 *
 * @param id      for {@code --go-cases}, e.g. {@code 1xNx16}, {@code pairs4x1024}, {@code reqrep}
 * @param label   in tables, e.g. {@code "1->4 16 B"}
 * @param latency whether the result is a latency (p50/p99) rather than a throughput
 * @param args    natsload's flags, {@code -url} and {@code -subject} excepted
 */
record GoCase(String id, String label, boolean latency, List<String> args) {
    /** Copies the flags. */
    GoCase {
        args = List.copyOf(args);
    }

    private static GoCase throughput(String id, String label, int size, long messages, String... flags) {
        List<String> args = new ArrayList<>(List.of("-mode", "throughput", "-size", Integer.toString(size),
                "-msgs", Long.toString(messages)));
        args.addAll(List.of(flags));
        return new GoCase(id, label + " " + (size % 1_024 == 0 ? size / 1_024 + " KiB" : size + " B"), false, args);
    }

    /**
     * The standard cases.
     *
     * @param fan           N in 1 -&gt; N, N -&gt; 1 and N pairs, &gt;= 2
     * @param smallMessages messages per run at 16 B
     * @param largeMessages messages per run at 1 KiB
     * @param requests      request/reply round trips per run
     * @param rate          one-way latency: messages per second
     * @param latencyFor    one-way latency: how long to publish
     * @return the cases, in run order
     */
    static List<GoCase> standard(int fan, long smallMessages, long largeMessages, long requests, int rate,
                                 Duration latencyFor) {
        List<GoCase> cases = new ArrayList<>();
        for (int size : new int[] {16, 1_024}) {
            long m = size == 16 ? smallMessages : largeMessages;
            String n = Integer.toString(fan);
            cases.add(throughput("pub" + size, "pub only", size, m, "-pubs", "1", "-subs", "0"));
            cases.add(throughput("1x1x" + size, "1->1", size, m, "-pubs", "1", "-subs", "1"));
            cases.add(throughput("1xNx" + size, "1->" + fan, size, m, "-pubs", "1", "-subs", n));
            cases.add(throughput("Nx1x" + size, fan + "->1", size, m, "-pubs", n, "-subs", "1"));
            cases.add(throughput("pairsNx" + size, fan + " pairs", size, m, "-pairs", n));
        }
        cases.add(new GoCase("reqrep", "request/reply 16 B", true,
                List.of("-mode", "reqrep", "-size", "16", "-msgs", Long.toString(requests))));
        cases.add(new GoCase("latency", "one-way 16 B at " + rate + "/s", true, List.of("-mode", "latency", "-size", "16",
                "-rate", Integer.toString(rate), "-duration", latencyFor.toMillis() + "ms")));
        return cases;
    }

    /**
     * The cores sweep's cases at 16 B: 1, 2, 4, ... up to N independent pairs, 1 -&gt; N and N -&gt; 1.
     *
     * @param fan      N, &gt;= 1
     * @param messages messages per run
     * @return the cases, in run order
     */
    static List<GoCase> sweep(int fan, long messages) {
        List<GoCase> cases = new ArrayList<>();
        for (int pairs = 1; pairs < fan; pairs *= 2) {
            cases.add(throughput("pairs" + pairs + "x16", pairs + (pairs == 1 ? " pair" : " pairs"), 16, messages,
                    "-pairs", Integer.toString(pairs)));
        }
        cases.add(throughput("pairsNx16", fan + " pairs", 16, messages, "-pairs", Integer.toString(fan)));
        cases.add(throughput("1xNx16", "1->" + fan, 16, messages, "-pubs", "1", "-subs", Integer.toString(fan)));
        cases.add(throughput("Nx1x16", fan + "->1", 16, messages, "-pubs", Integer.toString(fan), "-subs", "1"));
        return cases;
    }

    /**
     * @param all the cases to choose from
     * @param ids {@code --go-cases}; empty for all
     * @return the chosen cases, in the order of {@code ids}
     * @throws IllegalArgumentException naming an unknown id
     */
    static List<GoCase> select(List<GoCase> all, List<String> ids) {
        if (ids.isEmpty()) {
            return all;
        }
        List<GoCase> chosen = new ArrayList<>();
        for (String id : ids) {
            chosen.add(all.stream().filter(c -> c.id().equals(id)).findFirst().orElseThrow(() ->
                    new IllegalArgumentException("unknown Go case (use " + all.stream().map(GoCase::id).toList()
                            + "): go-case='" + id + "'")));
        }
        return chosen;
    }
}
