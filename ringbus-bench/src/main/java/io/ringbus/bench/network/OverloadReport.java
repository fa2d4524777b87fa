package io.ringbus.bench.network;

import io.ringbus.bench.TextTable;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;

/**
 * The overload runs' results as text and JSON members.
 *
 * @param maxPending   max_pending of the slow-consumer variant's servers, in bytes
 * @param slowFactor   slow consumers' rate = unloaded publish rate / this
 * @param slowConsumer one per server
 * @param block        the BLOCK variant, or {@code null} when ringbus-server did not run
 */
public record OverloadReport(long maxPending, int slowFactor, List<SlowConsumerResult> slowConsumer,
                             BlockResult block) {
    /** Copies the list. */
    public OverloadReport {
        slowConsumer = List.copyOf(slowConsumer);
    }

    /** @return whether every slow-consumer run kept its fast subscriber whole, and BLOCK (when it ran) lost nothing */
    public boolean passed() {
        return slowConsumer.stream().allMatch(r -> r.failure() == null) && (block == null || block.passed());
    }

    /** @return both variants' tables with a line of explanation each */
    public String text() {
        StringBuilder out = new StringBuilder();
        if (!slowConsumer.isEmpty()) {
            TextTable table = new TextTable("slow consumer (NATS semantics)", "M msg/s unloaded", "M msg/s overload",
                    "fast sub", "slow jnats: handled", "jnats backlog", "jnats dropped", "slow socket: read", "cut by server",
                    "server slow consumers", "peak RSS MiB");
            StringBuilder failures = new StringBuilder();
            for (SlowConsumerResult r : slowConsumer) {
                if (r.failure() != null) {
                    table.row(r.server().label(), "FAILED", "-", "-", "-", "-", "-", "-", "-", "-", "-");
                    failures.append("FAILED ").append(r.server().label()).append(" slow consumers: ").append(r.failure())
                            .append('\n');
                    continue;
                }
                table.row(r.server().label(), fmt("%.2f", r.unloadedPublishRate() / 1e6),
                        fmt("%.2f", r.overloadPublishRate() / 1e6), r.fastReceived() + "/" + r.messages(),
                        Long.toString(r.jnatsSlowHandled()), Long.toString(r.jnatsSlowPending()),
                        Long.toString(r.jnatsSlowDropped()),
                        Long.toString(r.socketSlowReceived()),
                        r.socketSlowDisconnected() ? "yes" + (r.socketSlowError() == null ? "" : " (" + r.socketSlowError() + ")") : "no",
                        Long.toString(r.serverSlowConsumers()), fmt("%.1f", r.peakRssKiB() / 1024.0));
            }
            out.append("slow consumers at 1/").append(slowFactor).append(" of the unloaded publish rate, max_pending ")
                    .append(maxPending >> 20).append(" MiB. slow socket = a client that reads slowly (the server sees it);")
                    .append(" slow jnats = a slow handler,\nwhose backlog jnats' reader thread keeps in the client (the server")
                    .append(" never sees it). Counts are taken when the fast subscriber has every message.\n")
                    .append(table.render()).append(failures);
        }
        if (block != null) {
            BlockResult b = block;
            TextTable table = new TextTable("BLOCK backpressure (ringbus-server embedded)", "value");
            table.row("heap / ring / subscriber buffer", "-Xmx" + b.heap() + " / " + b.ringSize() + " / " + b.bufferSize())
                    .row("published by " + b.publishers() + " jnats publishers", Long.toString(b.messages()))
                    .row("received by the BLOCK subscriber", Long.toString(b.received()))
                    .row("lost or out of order", b.verdict() == null ? "none" : b.verdict())
                    .row("publish M msg/s unloaded", fmt("%.3f", b.unloadedPublishRate() / 1e6))
                    .row("publish M msg/s overloaded", fmt("%.3f", b.overloadPublishRate() / 1e6))
                    .row("subscriber target M msg/s", fmt("%.3f", b.consumerRate() / 1e6))
                    .row("publishers slowed by", fmt("%.1fx", b.unloadedPublishRate() / b.overloadPublishRate()))
                    .row("server publishPauses", Long.toString(b.publishPauses()))
                    .row("broker dropped", Long.toString(b.brokerDropped()))
                    .row("peak heap MiB (sum of pool peaks)", fmt("%.1f", b.peakHeapBytes() / 1048576.0))
                    .row("peak RSS MiB", fmt("%.1f", b.peakRssKiB() / 1024.0))
                    .row("child exit code", b.exitCode() + (b.exitCode() == 0 ? " (normal)" : b.exitCode() == 3 ? " (OutOfMemoryError)" : ""))
                    .row("result", b.passed() ? "PASS: nothing lost, no OOM" : "FAIL");
            out.append(out.isEmpty() ? "" : "\n").append("BLOCK subscriber at 1/").append(slowFactor)
                    .append(" of the unloaded publish rate: backpressure reaches the publishers over TCP\n")
                    .append(table.render());
        }
        return out.toString();
    }

    /** @return the results as the {@code overload} part of the results document */
    public NetworkResults.Overload section() {
        List<NetworkResults.SlowConsumerRow> rows = new ArrayList<>();
        for (SlowConsumerResult r : slowConsumer) {
            rows.add(new NetworkResults.SlowConsumerRow(r.server().label(), r.failure(), r.messages(),
                    r.unloadedPublishRate(), r.overloadPublishRate(), r.slowRate(), r.fastReceived(),
                    r.jnatsSlowHandled(), r.jnatsSlowPending(), r.jnatsSlowDropped(), r.jnatsSlowDisconnected(),
                    r.socketSlowReceived(), r.socketSlowDisconnected(), r.socketSlowError(), r.serverSlowConsumers(),
                    r.peakRssKiB() / 1024.0));
        }
        NetworkResults.Block b = block == null ? null : new NetworkResults.Block(block.passed(), block.messages(),
                block.publishers(), block.heap(), block.ringSize(), block.bufferSize(), block.received(),
                block.verdict(), block.unloadedPublishRate(), block.overloadPublishRate(), block.consumerRate(),
                block.brokerDropped(), block.peakHeapBytes() / 1048576.0, block.peakRssKiB() / 1024.0,
                block.exitCode(), new LinkedHashMap<>(block.serverStats()));
        return new NetworkResults.Overload(maxPending, slowFactor, rows, b);
    }

    private static String fmt(String format, double value) {
        return String.format(Locale.ROOT, format, value);
    }
}
