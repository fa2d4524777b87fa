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
 * on a {@link PowerLossFileSystem}; jnats publishers ({@link PowerCutPublisher}) publish with
 * JetStream PubAcks; at a random instant (drawn from the seed, logged) the server is killed with
 * SIGKILL and the power cut, torn or not (drawn too); what the store holds is read back and checked
 * against the acknowledgements ({@link PowerCutLedger}); the server is started again on what
 * survived (a refusal to start is a failure) and publishing goes on, ids without an acknowledgement
 * sent again first. Used by {@code PowerCutPublishTest} (bin/test) and {@code PowerCutSoak}
 * ({@code bin/soak power-loss}).
 */
final class PowerCutRun {
    private PowerCutRun() {
    }

    /**
     * How a run goes.
     *
     * @param mode         when names become durable
     * @param cuts         power cuts in a row
     * @param seed         draws the instants and the torn cuts
     * @param publishers   publishers, each its own connection
     * @param window       acknowledgements each publisher has outstanding at most
     * @param payloadBytes each message's payload size
     * @param minLife      the shortest time a server life publishes after its first acknowledgement
     * @param maxLife      the longest
     */
    record Settings(PowerLossFileSystem.Mode mode, int cuts, long seed, int publishers, int window, int payloadBytes,
                    Duration minLife, Duration maxLife) {
    }

    /**
     * What a run measured.
     *
     * @param server          the server
     * @param policy          its durability policy
     * @param mode            the names-durable mode
     * @param acknowledged    ids acknowledged
     * @param lost            acknowledged ids not read back (see {@link PowerCutLedger})
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
    record Result(String server, String policy, String mode, long acknowledged, long lost, long duplicated,
                  long orderViolations, int cleanRestarts, int cuts, long resent, long duplicateAcks, long firstRetained,
                  String notes, String failure) {
        /** @return a table row */
        String row() {
            double percent = acknowledged == 0 ? 0 : 100.0 * lost / acknowledged;
            return String.format(Locale.ROOT, "| %s | %s | %s | %,d | %,d (%.2f %%) | %,d | %d / %d |", server, policy,
                    mode, acknowledged, lost, percent, duplicated, cleanRestarts, cuts)
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
                    publishThenKill(target, port, settings, ledger, life);
                    if (torn) {
                        fs.cut(tornSeed);
                    } else {
                        fs.cut();
                    }
                    cuts++;
                    PowerLossFileSystem.Counters counters = fs.counters();
                    String check = ledger.check(target.readBack(dir));
                    log.accept(String.format(Locale.ROOT, "%s %s %s cut %d (after %d ms, %s): dropped %,d bytes, "
                                    + "%d files (dir fsyncs so far %d); %s", target.server(), target.policy(), mode, cut,
                            life, torn ? "torn, seed " + tornSeed : "not torn", counters.lastCutBytesDropped(),
                            counters.lastCutFilesDropped(), counters.dirFsyncs(), check));
                    if (cut < settings.cuts()) {
                        port = target.start(dir);
                    }
                    clean++;
                }
            } catch (AssertionError | RuntimeException e) {
                failure = "after cut " + cuts + ": " + e.getMessage();
                log.accept(target.server() + " " + target.policy() + " " + mode + " FAILED " + failure);
            } finally {
                target.kill();
            }
        }
        return new Result(target.server(), target.policy(), mode, ledger.acknowledged(), ledger.lost().size(),
                ledger.duplicated().size(), ledger.orderViolations(), clean, cuts, ledger.resent(),
                ledger.duplicateAcks(), ledger.retainedFrom(), target.notes(), failure);
    }

    private static void publishThenKill(PowerCutTarget target, int port, Settings settings, PowerCutLedger ledger,
                                        long lifeMillis) throws InterruptedException {
        AtomicLong acks = new AtomicLong();
        List<PowerCutPublisher> publishers = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int p = 0; p < settings.publishers(); p++) {
            PowerCutPublisher publisher = new PowerCutPublisher(p, port, settings.window(), settings.payloadBytes(),
                    ledger, acks);
            publishers.add(publisher);
            threads.add(Thread.ofPlatform().name("powercut-publisher-" + p).start(publisher));
        }
        try {
            Await.until("a first acknowledgement from " + target.server(), Duration.ofSeconds(60),
                    () -> acks.get() > 0);
            Thread.sleep(lifeMillis);
        } finally {
            target.kill();
            publishers.forEach(PowerCutPublisher::stop);
            for (Thread thread : threads) {
                thread.join(30_000);
            }
        }
    }
}
