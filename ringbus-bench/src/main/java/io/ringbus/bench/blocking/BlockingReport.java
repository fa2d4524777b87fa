package io.ringbus.bench.blocking;

import io.ringbus.bench.HumanDurationConverter;
import io.ringbus.bench.JvmDescription;
import io.ringbus.bench.TextTable;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The blocking scenarios' results as tables and as JSON.
 *
 * @param jvm          where it ran
 * @param sendInterval the steady sender's interval
 * @param block        the steady receiver's blocking time
 * @param ringSize     the steady scenario's ring and buffer size
 * @param steady       steady-sender results, possibly empty
 * @param burst        burst results, possibly empty
 */
public record BlockingReport(JvmDescription jvm, Duration sendInterval, Duration block, int ringSize,
                             List<SteadyResult> steady, List<BurstResult> burst) {

    /** @return the steady-sender table, or an empty string when it did not run */
    public String steadyTable() {
        if (steady.isEmpty()) {
            return "";
        }
        TextTable table = new TextTable("receiver", "sent/min", "received/min", "schedule/min", "max publish ms",
                "sender");
        for (SteadyResult r : steady) {
            table.row(r.setup().label(), fmt("%.0f", r.sentPerMinute()), fmt("%.0f", r.receivedPerMinute()),
                    fmt("%.0f", r.scheduledPerMinute()), fmt("%.1f", r.maxPublishMillis()),
                    r.senderSlowed() ? "slowed by backpressure" : "on schedule");
        }
        return "steady sender (seed 001): one send every " + HumanDurationConverter.format(sendInterval)
                + ", receiver blocks " + HumanDurationConverter.format(block) + " per message, ring/buffer "
                + ringSize + ", window " + HumanDurationConverter.format(steady.getFirst().window())
                + ", counts scaled to one minute\n" + table.render();
    }

    /** @return the burst table, or an empty string when it did not run */
    public String burstTable() {
        if (burst.isEmpty()) {
            return "";
        }
        TextTable table = new TextTable("handler", "latency", "messages", "time ms", "ideal ms", "efficiency", "msg/s");
        for (BurstResult r : burst) {
            table.row(r.setup().label(), HumanDurationConverter.format(r.latency()), Integer.toString(r.messages()),
                    fmt("%.1f", r.millis()), fmt("%.1f", r.idealMillis()), fmt("%.2f", r.efficiency()),
                    fmt("%.0f", r.messagesPerSecond()));
        }
        return "burst (seeds 002/004): all messages published at once, handler blocks for the latency;"
                + " ideal = messages x latency / concurrency\n" + table.render();
    }

    /** @return both tables' data and the run's description, as the results document */
    public BlockingResults document() {
        List<BlockingResults.SteadyRow> steadyRows = new ArrayList<>();
        for (SteadyResult r : steady) {
            steadyRows.add(new BlockingResults.SteadyRow(r.setup().label(), r.window().toMillis(), r.sent(), r.received(),
                    r.sentPerMinute(), r.receivedPerMinute(), r.scheduledPerMinute(), r.maxPublishMillis(),
                    r.senderSlowed()));
        }
        List<BlockingResults.Burst> burstRows = new ArrayList<>();
        for (BurstResult r : burst) {
            burstRows.add(new BlockingResults.Burst(r.setup().label(), r.setup().mode().name(), r.setup().concurrency(),
                    r.latency().toNanos() / 1e6, r.messages(), r.millis(), r.idealMillis(), r.efficiency(),
                    r.messagesPerSecond()));
        }
        return new BlockingResults(BlockingResults.SCENARIO, jvm.vm(), jvm.cores(), new BlockingResults.Steady(
                sendInterval.toNanos() / 1e6, block.toNanos() / 1e6, ringSize, steadyRows), burstRows);
    }

    private static String fmt(String format, double value) {
        return String.format(Locale.ROOT, format, value);
    }
}
