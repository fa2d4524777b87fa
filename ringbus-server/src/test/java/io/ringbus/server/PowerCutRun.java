package io.ringbus.server;

import io.ringbus.testkit.Await;
import io.ringbus.testkit.PowerLossFileSystem;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Power cuts under acknowledged publishing: a server ({@link PowerCutTarget}) stores {@code orders.>}
 * on a {@link PowerLossFileSystem}; publishers of one client library ({@link PowerCutClient}: jnats
 * or nats.go, each publisher its own connection) publish with JetStream PubAcks; at a random
 * instant (drawn from the seed, logged) the server is killed with SIGKILL (the instant taken) and
 * the power cut, torn or not (drawn too); what the store holds is read back and checked against
 * the acknowledgements ({@link PowerCutLedger}: lost ids and how long before the kill they were
 * acknowledged); the server is started again on what survived (a refusal to start is a failure)
 * and publishing goes on, ids without an acknowledgement sent again first. Used by
 * {@code PowerCutPublishTest} (bin/test) and {@code PowerCutSoak} ({@code bin/soak power-loss}).
 */
final class PowerCutRun {
    private PowerCutRun() {
    }

    /**
     * How a run goes.
     *
     * @param mode         when names become durable
     * @param client       the client library the publishers use
     * @param cuts         power cuts in a row
     * @param seed         draws the instants and the torn cuts
     * @param publishers   publishers, each its own connection
     * @param window       acknowledgements each publisher has outstanding at most
     * @param payloadBytes each message's payload size
     * @param minLife      the shortest time a server life publishes after its first acknowledgement
     * @param maxLife      the longest
     */
    record Settings(PowerLossFileSystem.Mode mode, PowerCutClient client, int cuts, long seed, int publishers,
                    int window, int payloadBytes, Duration minLife, Duration maxLife) {
    }

    /**
     * What a run measured.
     *
     * @param server          the server
     * @param policy          its durability policy
     * @param mode            the names-durable mode
     * @param client          the publishers' client library
     * @param acknowledged    ids acknowledged
     * @param lost            acknowledged ids not read back (see {@link PowerCutLedger})
     * @param oldestLostNanos of the lost ids, the longest time from an acknowledgement to the kill
     *                        that lost it ({@link Long#MIN_VALUE} when none was lost)
     * @param duplicated      ids stored more than once
     * @param orderViolations ids read back out of their publisher's order
     * @param cleanRestarts   cuts after which the store was read and the server started again
     * @param cuts            cuts made
     * @param resent          ids sent again after a restart (acknowledgement lost with the server)
     * @param duplicateAcks   of those, acknowledged as duplicates (the store had them)
     * @param firstRetained   the first sequence the last read-back held (above 1: retention deleted)
     * @param notes           what else the target says ({@link PowerCutTarget#notes()})
     * @param failure         why the run stopped early (a refusal to start), or null
     */
    record Result(String server, String policy, String mode, String client, long acknowledged, long lost,
                  long oldestLostNanos, long duplicated, long orderViolations, int cleanRestarts, int cuts, long resent,
                  long duplicateAcks, long firstRetained, String notes, String failure) {
        /** The table's header, for {@link #row()}. */
        static final String HEADER = "| server | policy | names durable | client | acknowledged | acks per cut "
                + "| lost | oldest lost ack (ms) | duplicated | clean restarts / cuts |\n"
                + "|---|---|---|---|---|---|---|---|---|---|";

        /** @return a table row */
        String row() {
            double percent = acknowledged == 0 ? 0 : 100.0 * lost / acknowledged;
            return String.format(Locale.ROOT, "| %s | %s | %s | %s | %,d | %,d | %,d (%.2f %%) | %s | %,d | %d / %d |",
                    server, policy, mode, client, acknowledged, cuts == 0 ? 0 : acknowledged / cuts, lost, percent,
                    lost == 0 ? "-" : String.format(Locale.ROOT, "%.0f", oldestLostNanos / 1e6), duplicated,
                    cleanRestarts, cuts)
                    + (notes.isEmpty() ? "" : " " + notes) + (failure == null ? "" : " " + failure);
        }
    }

    /**
     * Runs it.
     *
     * @param target   the server
     * @param settings how
     * @param work     an empty directory for the mount and its backing directory
     * @param log      gets a line per cut
     * @return what it measured
     * @throws IOException when the file system cannot be mounted or fails
     */
    static Result run(PowerCutTarget target, Settings settings, Path work, Consumer<String> log)
            throws IOException, InterruptedException {
        Random random = new Random(settings.seed());
        PowerCutLedger ledger = new PowerCutLedger(settings.publishers());
        String mode = settings.mode().name().toLowerCase(Locale.ROOT);
        int clean = 0;
        int cuts = 0;
        String failure = null;
        try (PowerLossFileSystem fs = PowerLossFileSystem.mount(work.resolve("mnt"), work.resolve("disk"),
                settings.mode())) {
            Path dir = fs.mountPoint().resolve("data");
            try {
                int port = target.start(dir);
                for (int cut = 1; cut <= settings.cuts(); cut++) {
                    long life = settings.minLife().toMillis()
                            + random.nextLong(settings.maxLife().toMillis() - settings.minLife().toMillis() + 1);
                    boolean torn = random.nextBoolean();
                    long tornSeed = random.nextLong();
                    long killed = publishThenKill(target, port, settings, ledger, life);
                    if (torn) {
                        fs.cut(tornSeed);
                    } else {
                        fs.cut();
                    }
                    cuts++;
                    PowerLossFileSystem.Counters counters = fs.counters();
                    PowerCutLedger.Cut check = ledger.check(target.readBack(dir), killed);
                    log.accept(String.format(Locale.ROOT, "%s %s %s %s cut %d (after %d ms, %s): dropped %,d bytes, "
                                    + "%d files (dir fsyncs so far %d); %s", target.server(), target.policy(), mode,
                            settings.client().label(), cut, life, torn ? "torn, seed " + tornSeed : "not torn",
                            counters.lastCutBytesDropped(), counters.lastCutFilesDropped(), counters.dirFsyncs(),
                            check.line()));
                    if (cut < settings.cuts()) {
                        port = target.start(dir);
                    }
                    clean++;
                }
            } catch (AssertionError | RuntimeException e) {
                failure = "after cut " + cuts + ": " + e.getMessage();
                log.accept(target.server() + " " + target.policy() + " " + mode + " " + settings.client().label()
                        + " FAILED " + failure);
            } finally {
                target.kill();
            }
        }
        return new Result(target.server(), target.policy(), mode, settings.client().label(), ledger.acknowledged(),
                ledger.lost().size(), ledger.oldestLostNanos(), ledger.duplicated().size(), ledger.orderViolations(),
                clean, cuts, ledger.resent(), ledger.duplicateAcks(), ledger.retainedFrom(), target.notes(), failure);
    }

    /** @return the {@link System#nanoTime()} the server was killed at */
    private static long publishThenKill(PowerCutTarget target, int port, Settings settings, PowerCutLedger ledger,
                                        long lifeMillis) throws IOException, InterruptedException {
        AtomicLong acks = new AtomicLong();
        List<PowerCutPublisher> publishers = new ArrayList<>();
        long killed;
        try {
            for (int p = 0; p < settings.publishers(); p++) {
                publishers.add(settings.client().start(p, port, settings, ledger, acks));
            }
            Await.until("a first acknowledgement from " + target.server() + " to " + settings.client().label(),
                    Duration.ofSeconds(60), () -> acks.get() > 0);
            Thread.sleep(lifeMillis);
        } finally {
            killed = System.nanoTime();
            target.kill();
            AssertionError stuck = null;
            for (PowerCutPublisher publisher : publishers) {
                try {
                    publisher.stop();
                } catch (AssertionError e) { // the others are stopped all the same
                    stuck = stuck == null ? e : stuck;
                }
            }
            if (stuck != null) {
                throw stuck;
            }
        }
        return killed;
    }
}
