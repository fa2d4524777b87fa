package io.ringbus.bench.storage;

import io.ringbus.bench.TextTable;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The storage scenario's ratios, tables and goals: each ringbus publish run divided by the peer's
 * run of the same case, each ringbus read by the peer's read of the same part, and issue 17's goals
 * judged on them. Immutable once built.
 */
final class StorageReport {
    /** Issue 17: records per second of 128 B under INTERVAL. */
    static final double INTERVAL_GOAL = 1_000_000;
    /** Issue 17: replayed records per second. */
    static final double REPLAY_GOAL = 5_000_000;
    /** Issue 17: restart with a log of this size ... */
    static final long RESTART_GOAL_BYTES = 1L << 30;
    /** ... in less than this. */
    static final double RESTART_GOAL_MILLIS = 1_000;
    /** Issue 30: open and serve after a cut, at 1 and 10 GiB, in less than this. */
    static final double RECOVERY_GOAL_MILLIS = 1_000;

    private final StorageResults.Fsync fsync;
    private final List<StorageResults.PublishRow> publish;
    private final List<StorageResults.ReadRow> read;
    private final List<StorageResults.RestartRow> restart;
    private final List<StorageResults.RecoveryRow> recovery;
    private final List<StorageResults.GoalRow> goals;

    /**
     * @param fsync   the disk's fsync rate
     * @param publish publish runs, both systems, ratios NaN
     * @param read    read runs, both systems, ratios NaN
     * @param restart restarts, both systems
     * @param recovery recovery restarts, both servers
     * @param policies the ringbus policies that ran
     */
    StorageReport(StorageResults.Fsync fsync, List<StorageResults.PublishRow> publish, List<StorageResults.ReadRow> read,
                  List<StorageResults.RestartRow> restart, List<StorageResults.RecoveryRow> recovery,
                  List<String> policies) {
        this.fsync = fsync;
        this.publish = withRatios(publish);
        this.read = withReadRatios(read);
        this.restart = List.copyOf(restart);
        this.recovery = List.copyOf(recovery);
        this.goals = judge(policies);
    }

    private static boolean ringbus(String system) {
        return "ringbus".equals(system);
    }

    private static List<StorageResults.PublishRow> withRatios(List<StorageResults.PublishRow> rows) {
        List<StorageResults.PublishRow> out = new ArrayList<>();
        for (StorageResults.PublishRow r : rows) {
            StorageResults.PublishRow peer = ringbus(r.system()) ? peerOf(rows, r) : null;
            double ratio = peer == null || peer.failure() != null || r.failure() != null ? Double.NaN
                    : r.perSecond() / peer.perSecond();
            out.add(new StorageResults.PublishRow(r.system(), r.policy(), r.mode(), r.payloadBytes(), r.publishers(),
                    r.messages(), r.seconds(), r.perSecond(), r.p50Micros(), r.p99Micros(), r.maxMicros(), ratio,
                    r.failure()));
        }
        return List.copyOf(out);
    }

    private static StorageResults.PublishRow peerOf(List<StorageResults.PublishRow> rows, StorageResults.PublishRow r) {
        for (StorageResults.PublishRow p : rows) {
            if (!ringbus(p.system()) && p.mode().equals(r.mode()) && p.payloadBytes() == r.payloadBytes()
                    && p.publishers() == r.publishers()) {
                return p;
            }
        }
        return null;
    }

    private static List<StorageResults.ReadRow> withReadRatios(List<StorageResults.ReadRow> rows) {
        List<StorageResults.ReadRow> out = new ArrayList<>();
        for (StorageResults.ReadRow r : rows) {
            StorageResults.ReadRow peer = null;
            if (ringbus(r.system())) {
                for (StorageResults.ReadRow p : rows) {
                    if (!ringbus(p.system()) && p.part().equals(r.part())) {
                        peer = p;
                    }
                }
            }
            double ratio = peer == null || peer.failure() != null || r.failure() != null ? Double.NaN
                    : r.perSecond() / peer.perSecond();
            out.add(new StorageResults.ReadRow(r.part(), r.system(), r.reader(), r.messages(), r.seconds(),
                    r.perSecond(), ratio, r.failure()));
        }
        return List.copyOf(out);
    }

    private List<StorageResults.GoalRow> judge(List<String> policies) {
        List<StorageResults.GoalRow> out = new ArrayList<>();
        for (String policy : policies) {
            StorageResults.PublishRow worst = null;
            StorageResults.PublishRow best = null;
            for (StorageResults.PublishRow r : publish) {
                if (ringbus(r.system()) && r.policy().equals(policy) && !Double.isNaN(r.ratioToJetStream())) {
                    worst = worst == null || r.ratioToJetStream() < worst.ratioToJetStream() ? r : worst;
                    best = best == null || r.ratioToJetStream() > best.ratioToJetStream() ? r : best;
                }
            }
            String goal = "durable publish >= 1.0x JetStream, " + policy;
            out.add(worst == null ? new StorageResults.GoalRow(goal, "not measured", null)
                    : new StorageResults.GoalRow(goal, String.format(Locale.ROOT, "%.2fx (%s) to %.2fx (%s)",
                    worst.ratioToJetStream(), PublishCase.label(worst.mode(), worst.payloadBytes(), worst.publishers()),
                    best.ratioToJetStream(), PublishCase.label(best.mode(), best.payloadBytes(), best.publishers())),
                    worst.ratioToJetStream() >= 1.0));
        }
        StorageResults.PublishRow fastest = null;
        for (StorageResults.PublishRow r : publish) {
            if (ringbus(r.system()) && r.policy().equals("INTERVAL") && r.payloadBytes() == 128 && r.failure() == null
                    && (fastest == null || r.perSecond() > fastest.perSecond())) {
                fastest = r;
            }
        }
        String intervalGoal = "INTERVAL: >= 1,000,000 records/s of 128 B";
        out.add(fastest == null ? new StorageResults.GoalRow(intervalGoal, "not measured", null)
                : new StorageResults.GoalRow(intervalGoal, String.format(Locale.ROOT, "%,.0f /s (%s)",
                fastest.perSecond(), PublishCase.label(fastest.mode(), fastest.payloadBytes(), fastest.publishers())),
                fastest.perSecond() >= INTERVAL_GOAL));
        StorageResults.ReadRow replay = null;
        StorageResults.ReadRow floor = null;
        for (StorageResults.ReadRow r : read) {
            if (ringbus(r.system()) && r.part().equals("replay") && r.failure() == null) {
                if (r.reader().startsWith("durable consumer")) {
                    replay = r;
                } else {
                    floor = r;
                }
            }
        }
        String replayGoal = "replay >= 5,000,000 records/s";
        out.add(replay == null ? new StorageResults.GoalRow(replayGoal, "not measured", null)
                : new StorageResults.GoalRow(replayGoal, String.format(Locale.ROOT,
                "%,.0f /s by durable consumer%s", replay.perSecond(), floor == null ? ""
                        : String.format(Locale.ROOT, " (raw log reader %,.0f /s)", floor.perSecond())),
                replay.perSecond() >= REPLAY_GOAL));
        StorageResults.RestartRow largest = null;
        for (StorageResults.RestartRow r : restart) {
            if (ringbus(r.system()) && r.failure() == null && (largest == null || r.logBytes() > largest.logBytes())) {
                largest = r;
            }
        }
        String restartGoal = "restart with a 1 GiB log < 1 s";
        if (largest == null) {
            out.add(new StorageResults.GoalRow(restartGoal, "not measured", null));
        } else if (largest.logBytes() < RESTART_GOAL_BYTES * 95 / 100) {
            out.add(new StorageResults.GoalRow(restartGoal, String.format(Locale.ROOT,
                    "not run at 1 GiB (--restart-mib 1024); %.0f MiB: %.0f ms", largest.logBytes() / 1048576.0,
                    largest.firstRecordMillis()), null));
        } else {
            out.add(new StorageResults.GoalRow(restartGoal, String.format(Locale.ROOT, "%.0f ms (%.0f MiB)",
                    largest.firstRecordMillis(), largest.logBytes() / 1048576.0),
                    largest.firstRecordMillis() < RESTART_GOAL_MILLIS));
        }
        out.add(recoveryGoal());
        return List.copyOf(out);
    }

    /** Issue 30: ringbus-server opens and serves after a cut in under a second, 1 GiB and 10 GiB. */
    private StorageResults.GoalRow recoveryGoal() {
        String goal = "ringbus-server serves after a cut < 1 s, 1 and 10 GiB (issue 30)";
        StorageResults.RecoveryRow slowest = null;
        List<String> sizes = new ArrayList<>();
        for (StorageResults.RecoveryRow r : recovery) {
            if (r.system().startsWith("ringbus") && r.scenario().equals("cut") && r.failure() == null) {
                sizes.add(String.format(Locale.ROOT, "%.0f ms at %.1f GiB", r.firstAckMillis(), r.logBytes() / 1073741824.0));
                slowest = slowest == null || r.firstAckMillis() > slowest.firstAckMillis() ? r : slowest;
            }
        }
        if (slowest == null) {
            return new StorageResults.GoalRow(goal, "not measured (bin/bench storage recovery)", null);
        }
        return new StorageResults.GoalRow(goal, String.join(", ", sizes), slowest.firstAckMillis() < RECOVERY_GOAL_MILLIS);
    }

    /** @return whether every run completed without a failure */
    boolean passed() {
        return publish.stream().allMatch(r -> r.failure() == null) && read.stream().allMatch(r -> r.failure() == null)
                && restart.stream().allMatch(r -> r.failure() == null)
                && recovery.stream().allMatch(r -> r.failure() == null);
    }

    /**
     * @param head the document's settings and machine, its lists empty
     * @return the document with the runs, ratios and goals
     */
    StorageResults document(StorageResults head) {
        return new StorageResults(head.scenario(), head.jvm(), head.cores(), head.machine(), head.settings(), fsync,
                publish, read, restart, recovery, goals);
    }

    /** @return the tables, ending with a newline */
    String text() {
        StringBuilder out = new StringBuilder();
        if (fsync != null) {
            out.append(String.format(Locale.ROOT, "disk: %,.0f fsyncs/s (%d B write + force, p50 %.0f us, p99 %.0f us):"
                    + " the most ALWAYS publishes one thread can get%n%n", fsync.perSecond(), fsync.bytes(),
                    fsync.p50Micros(), fsync.p99Micros()));
        }
        TextTable table = new TextTable("case", "ringbus policy", "ringbus msg/s", "p50 us", "p99 us", "JetStream msg/s",
                "p50 us", "p99 us", "ratio");
        for (StorageResults.PublishRow r : publish) {
            if (!ringbus(r.system())) {
                continue;
            }
            StorageResults.PublishRow peer = peerOf(publish, r);
            table.row(PublishCase.label(r.mode(), r.payloadBytes(), r.publishers()), r.policy(),
                    rate(r.perSecond(), r.failure()), micros(r.p50Micros()), micros(r.p99Micros()),
                    peer == null ? "-" : rate(peer.perSecond(), peer.failure()),
                    peer == null ? "-" : micros(peer.p50Micros()), peer == null ? "-" : micros(peer.p99Micros()),
                    ratio(r.ratioToJetStream()));
        }
        if (!publish.isEmpty()) {
            out.append("durable publish (ringbus in-process append; JetStream: nats.go over loopback, file store default)\n");
            out.append(table.render()).append('\n');
        }
        TextTable reads = new TextTable("part", "system", "reader", "records", "seconds", "records/s", "ratio");
        for (StorageResults.ReadRow r : read) {
            reads.row(r.part(), r.system(), r.reader(), String.format(Locale.ROOT, "%,d", r.messages()),
                    String.format(Locale.ROOT, "%.2f", r.seconds()), rate(r.perSecond(), r.failure()),
                    ratio(r.ratioToJetStream()));
        }
        if (!read.isEmpty()) {
            out.append(reads.render()).append('\n');
        }
        TextTable restarts = new TextTable("restart", "log MiB", "records", "open ms", "stream ms", "first record ms",
                "slowest ms");
        for (StorageResults.RestartRow r : restart) {
            restarts.row(r.system(), String.format(Locale.ROOT, "%.0f", r.logBytes() / 1048576.0),
                    String.format(Locale.ROOT, "%,d", r.records()), millis(r.openMillis()), millis(r.streamMillis()),
                    r.failure() != null ? "FAILED" : millis(r.firstRecordMillis()), millis(r.maxFirstRecordMillis()));
        }
        if (!restart.isEmpty()) {
            out.append(restarts.render()).append('\n');
        }
        if (!recovery.isEmpty()) {
            out.append(recoveryTable()).append('\n');
        }
        TextTable goalTable = new TextTable("goal (issue 17, 30)", "measured", "met");
        for (StorageResults.GoalRow g : goals) {
            goalTable.row(g.goal(), g.measured(), g.met() == null ? "-" : g.met() ? "yes" : "NO");
        }
        out.append(goalTable.render());
        for (StorageResults.PublishRow r : publish) {
            appendFailure(out, r.system() + " " + r.policy() + " " + PublishCase.label(r.mode(), r.payloadBytes(),
                    r.publishers()), r.failure());
        }
        for (StorageResults.ReadRow r : read) {
            appendFailure(out, r.system() + " " + r.part() + " " + r.reader(), r.failure());
        }
        for (StorageResults.RestartRow r : restart) {
            appendFailure(out, r.system() + " restart", r.failure());
        }
        for (StorageResults.RecoveryRow r : recovery) {
            appendFailure(out, r.system() + " recovery " + r.scenario(), r.failure());
        }
        return out.toString();
    }

    /** @return the recovery part's table, its scenarios and how the stores were filled */
    private String recoveryTable() {
        TextTable table = new TextTable("server", "scenario", "log", "messages", "page cache", "first PubAck ms",
                "slowest ms", "store open ms", "read at open");
        StringBuilder notes = new StringBuilder();
        for (StorageResults.RecoveryRow r : recovery) {
            table.row(r.system(), r.scenario(), String.format(Locale.ROOT, "%.2f GiB", r.logBytes() / 1073741824.0),
                    String.format(Locale.ROOT, "%,d x %,d B", r.messages(), r.payloadBytes()), r.pageCache(),
                    r.failure() != null ? "FAILED" : millis(r.firstAckMillis()), millis(r.slowestMillis()),
                    millis(r.storeOpenMillis()), r.openReadBytes() < 0 ? "-"
                            : String.format(Locale.ROOT, "%,.1f MiB", r.openReadBytes() / 1048576.0));
            String note = String.format(Locale.ROOT, "  %s: filled %s%s%n", r.system(), r.filledBy(),
                    r.cut() == null ? "" : "; cut: " + r.cut());
            if (r.cut() != null && notes.indexOf(note) < 0) {
                notes.append(note);
            }
        }
        return "recovery: process start to the first PubAck with the next sequence (jnats over loopback), median of"
                + " the runs; killed = SIGKILL, cut = SIGKILL and what a power cut can take that the server never"
                + " forced\n" + table.render() + notes;
    }

    private static void appendFailure(StringBuilder out, String what, String failure) {
        if (failure != null) {
            out.append("FAILED ").append(what).append(": ").append(failure).append('\n');
        }
    }

    private static String rate(double perSecond, String failure) {
        return failure != null ? "FAILED" : Double.isNaN(perSecond) ? "-" : String.format(Locale.ROOT, "%,.0f", perSecond);
    }

    private static String micros(double value) {
        return Double.isNaN(value) ? "-" : String.format(Locale.ROOT, "%,.0f", value);
    }

    private static String millis(double value) {
        return Double.isNaN(value) ? "-" : String.format(Locale.ROOT, "%,.1f", value);
    }

    private static String ratio(double value) {
        return Double.isNaN(value) ? "-" : String.format(Locale.ROOT, "%.2fx", value);
    }

    /** @return the goals, in order */
    List<StorageResults.GoalRow> goals() {
        return goals;
    }
}
