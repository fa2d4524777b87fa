package io.ringbus.outbox.internal;

import io.ringbus.core.Backoff;
import io.ringbus.outbox.OutboxEvent;
import io.ringbus.outbox.PermanentDeliveryException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One of a relay's threads: claim a batch, deliver it through the sinks, settle it, commit; wait
 * when idle; reconnect when the database fails. See {@code Relay} for the contract. A relay with
 * several loops has several batches in flight; they exclude each other as separate relays do.
 *
 * <p>Threading: one platform thread runs the loop and owns the connection; deliveries complete
 * on the sinks' threads and only write their outcome slot and complete futures; the loop reads the
 * outcomes after all of the batch's futures completed (that completion orders the writes).
 */
public final class RelayLoop implements Runnable, RelayWorker {
    private static final Logger LOG = LoggerFactory.getLogger(RelayLoop.class);
    /**
     * Waits after a database failure, in milliseconds: 100 ms, doubling to 5 s; back to the start
     * once the database answers. Shared by every reconnecting loop of the outbox (this one,
     * {@link WalRelayLoop}, {@link PgListener}).
     */
    static final Backoff RECONNECT_MILLIS = new Backoff(100, 5_000);
    static final int SWEEP_CHUNK = 10_000;
    /** How long one sweep pass may hold a loop (or a WAL relay's settles); the rest follows after a batch. */
    static final long SWEEP_BUDGET_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    private static final long BLOCKED_WAIT_MILLIS = 20;
    private static final long BALANCE_CHECK_MILLIS = 250;
    /** How long a loop keeps polling at the busy pace after its last claim that found rows. */
    private static final long BUSY_LINGER_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    /**
     * Rows the first claim takes: a backlog's first rows go out after a short claim rather than
     * after a whole batch's; each claim that finds rows then doubles it, up to the batch size.
     */
    static final int FIRST_CLAIM = 32;
    private static final CompletableFuture<Boolean> NOT_DELIVERED = CompletableFuture.completedFuture(false);
    private static final CompletableFuture<Boolean> DELIVERED = CompletableFuture.completedFuture(true);

    private final DataSource dataSource;
    private final OutboxStatements statements;
    private final RelaySettings settings;
    private final Routes routes;
    private final Semaphore wakeups = new Semaphore(0);
    private final Thread thread;
    private final LoopCounters counters = new LoopCounters();
    private volatile long pending = -1;
    private volatile long dead = -1;
    private volatile boolean closed;
    private volatile long lastRowsNanos = System.nanoTime() - BUSY_LINGER_NANOS - 1;
    private long nextCountNanos;
    private long nextSweepNanos;
    private int lastSettled;
    /** Rows the next claim takes: {@value #FIRST_CLAIM} at the start, doubling up to the batch size. */
    private int limit;
    /** Whether this loop counts the rows and sweeps (the relay's first loop): the others only claim. */
    private final boolean housekeeper;
    /**
     * Whether the loop waits at the busy pace: it found rows lately and looks again within
     * {@code busyPollMillis} anyway, so appends do not cut that wait short (each cut would be one
     * more claim and commit of a few rows; letting rows gather makes batches grow with the load).
     */
    private volatile boolean pacing;
    /** Set by {@link #drain}: whether its wait is at the busy pace rather than idle. */
    private boolean pacedWait;
    /** PostgreSQL: this loop's name among the members that lease buckets; unique per start. */
    private final String member;
    /** PostgreSQL: the buckets held at the last lease round, ascending. */
    private int[] held = new int[0];
    /** PostgreSQL: how the batch is split among the held buckets. */
    private final BucketShares shares = new BucketShares();
    private long nextLeaseNanos;
    private long nextBalanceCheckNanos;

    /**
     * @param dataSource    where the outbox lives
     * @param statements    its statements
     * @param settings      the relay's configuration
     * @param routeChannels the sink channel of each route, shared by the relay's loops
     * @param index         this loop's number within its relay, for the thread name
     */
    public RelayLoop(DataSource dataSource, OutboxStatements statements, RelaySettings settings,
                     List<SinkChannel> routeChannels, int index) {
        this.dataSource = dataSource;
        this.statements = statements;
        this.settings = settings;
        this.routes = new Routes(settings.routes(), routeChannels);
        String suffix = settings.parallelBatches() > 1 ? "-" + index : "";
        this.housekeeper = index == 0;
        this.limit = Math.min(settings.batchSize(), FIRST_CLAIM);
        this.member = settings.name() + suffix + "@" + ProcessHandle.current().pid() + "-"
                + Long.toHexString(java.util.concurrent.ThreadLocalRandom.current().nextLong());
        this.thread = Thread.ofPlatform().name("ringbus-outbox-" + settings.name() + suffix).daemon(true).unstarted(this);
    }

    /** Starts the loop. */
    @Override
    public void start() {
        long now = System.nanoTime();
        nextCountNanos = now;
        nextSweepNanos = now;
        thread.start();
    }

    /**
     * An append in this JVM: wakes the loop and has it look at the busy pace for a while, since
     * the hint comes before the rows' commit.
     */
    public void appended() {
        lastRowsNanos = System.nanoTime();
        if (!pacing) {
            wakeUp();
        }
    }

    @Override
    public void wakeUp() {
        if (wakeups.availablePermits() == 0) {
            wakeups.release();
        }
    }

    @Override
    public void run() {
        long backoff = RECONNECT_MILLIS.initial();
        boolean failing = false;
        while (!closed) {
            long waitMillis;
            boolean paced = false;
            boolean idle = false;
            // The connection is held while there is work and returned to the pool before waiting.
            try (Connection connection = dataSource.getConnection()) {
                connection.setAutoCommit(false);
                if (failing) {
                    LOG.info("outbox relay {} reconnected", settings.name());
                    failing = false;
                }
                waitMillis = drain(connection);
                paced = pacedWait;
                idle = !paced;
                backoff = RECONNECT_MILLIS.initial();
            } catch (SQLException e) {
                counters.databaseErrors.increment();
                if (closed) {
                    break;
                }
                LOG.warn("outbox relay {}: database failed, retrying in {} ms: {}", settings.name(), backoff, e.toString());
                failing = true;
                waitMillis = backoff;
                backoff = RECONNECT_MILLIS.next(backoff);
            } catch (RuntimeException e) {
                LOG.error("outbox relay {}: unexpected failure, retrying in {} ms", settings.name(), backoff, e);
                waitMillis = backoff;
                backoff = RECONNECT_MILLIS.next(backoff);
            }
            if (!closed) {
                waitForWork(waitMillis, paced, idle);
            }
        }
        leave();
    }

    /** PostgreSQL: gives the buckets back at once on a clean stop, rather than when leases expire. */
    private void leave() {
        if (!statements.leased()) {
            return;
        }
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(true);
            statements.leave(connection, member);
        } catch (SQLException | RuntimeException e) {
            LOG.debug("outbox relay {}: could not give its buckets back; they free when the lease ends ({} ms)",
                    settings.name(), settings.leaseMillis(), e);
        }
        held = new int[0];
    }

    /**
     * PostgreSQL: a lease round when due (renew, rebalance), committed on its own. Between rounds,
     * a read of the live members every {@value #BALANCE_CHECK_MILLIS} ms brings the round forward
     * when this loop holds more or fewer buckets than its fair share, so a member that joins or
     * leaves is balanced within a fraction of a second rather than a third of the lease.
     */
    private void leaseIfDue(Connection connection) throws SQLException {
        long now = System.nanoTime();
        if (!statements.leased()) {
            return;
        }
        if (now - nextLeaseNanos < 0) {
            if (now - nextBalanceCheckNanos < 0) {
                return;
            }
            nextBalanceCheckNanos = now + TimeUnit.MILLISECONDS.toNanos(BALANCE_CHECK_MILLIS);
            int[] check = statements.balanceCheck(connection, settings.leaseMillis());
            connection.commit();
            int fair = OutboxStatements.fairShare(Math.max(settings.parallelBatches(), check[0]));
            // Over the share: give back now. Under it: only when there is a free bucket to take
            // (shares are rounded up, so some members stay under for good).
            boolean over = held.length > fair;
            boolean canTake = held.length < fair && check[1] > 0;
            if (!over && !canTake) {
                return;
            }
        }
        try {
            held = statements.leaseRound(connection, member, settings.leaseMillis(), settings.parallelBatches());
            connection.commit();
        } catch (SQLException | RuntimeException e) {
            rollbackQuietly(connection);
            held = new int[0];
            throw e;
        }
        nextLeaseNanos = now + TimeUnit.MILLISECONDS.toNanos(Math.max(1, settings.leaseMillis() / 3));
    }

    /** Runs batches while they come back full; returns how long to wait before looking again. */
    private long drain(Connection connection) throws SQLException {
        while (!closed) {
            leaseIfDue(connection);
            int asked = limit;
            int claimed = batch(connection);
            if (claimed > 0) {
                limit = Math.min(settings.batchSize(), asked * 2);
            }
            // Not between the full batches of a backlog (unless a whole interval late): the count
            // and the sweep read the table and would hold the claims back.
            if (housekeeper && (claimed < asked || overdue())) {
                housekeeping(connection);
            }
            if (claimed == 0) {
                // Shortly after rows came, keep polling: more are likely, and NOTIFY may be off.
                pacedWait = busy();
                return pacedWait ? Math.min(settings.pollMillis(), settings.busyPollMillis()) : settings.pollMillis();
            }
            pacedWait = true;
            lastRowsNanos = System.nanoTime();
            if (lastSettled == 0) {
                // Everything claimed waits behind rows another relay holds: give it time.
                return Math.min(settings.pollMillis(), BLOCKED_WAIT_MILLIS);
            }
            if (claimed < asked) {
                // Rows keep coming: look again soon instead of waiting for their NOTIFY, whose
                // delivery lags under a steady stream of commits (p99 ~40-80 ms at 1,000 commits/s
                // here, against ~5 ms when looking every 2 ms; see the outbox benchmark).
                return Math.min(settings.pollMillis(), settings.busyPollMillis());
            }
        }
        return 0;
    }

    private int batch(Connection connection) throws SQLException {
        long claimNanos = System.nanoTime();
        List<ClaimedRow> rows = statements.leased() ? claimLeased(connection)
                : statements.claim(connection, limit, settings.eventIdPrefix());
        lastSettled = 0;
        if (rows.isEmpty()) {
            connection.commit();
            return 0;
        }
        counters.batches.increment();
        counters.inFlight.set(rows.size());
        try {
            Outcome[] outcomes = deliver(rows, claimNanos);
            settle(connection, rows, outcomes);
        } catch (SQLException | RuntimeException e) {
            rollbackQuietly(connection);
            throw e;
        } finally {
            counters.inFlight.set(0);
        }
        return rows.size();
    }

    /**
     * Claims from each held bucket a share of the batch weighted by what it gave last time, so
     * that a backlog in a few buckets (a hot key) still fills batches within a few rounds.
     */
    private List<ClaimedRow> claimLeased(Connection connection) throws SQLException {
        int[] buckets = held;
        if (buckets.length == 0) {
            return List.of();
        }
        int[][] split = shares.split(buckets, limit);
        List<ClaimedRow> rows = statements.claimLeased(connection, member, split[0], split[1],
                settings.eventIdPrefix(), claimDeletes());
        shares.record(split[0], rows);
        return rows;
    }

    private Outcome[] deliver(List<ClaimedRow> rows, long claimNanos) {
        int n = rows.size();
        Outcome[] outcomes = new Outcome[n];
        List<CompletableFuture<Boolean>> chains = new ArrayList<>();
        Map<String, CompletableFuture<Boolean>> tails = new HashMap<>();
        for (int i = 0; i < n; i++) {
            ClaimedRow row = rows.get(i);
            String key = row.event().key();
            if (key == null) {
                chains.add(deliverOne(row, i, outcomes, claimNanos));
                continue;
            }
            if (row.blocked()) {
                continue; // an earlier row of this key is elsewhere: leave this one for later
            }
            int index = i;
            CompletableFuture<Boolean> tail = tails.get(key);
            CompletableFuture<Boolean> next;
            if (tail == null || tail.isDone()) {
                // The key's previous row is settled (a synchronous sink completes it at once): no
                // future to chain on; a failed one holds this row back as the chain would.
                next = tail == null || tail.getNow(false) ? deliverOne(row, i, outcomes, claimNanos) : NOT_DELIVERED;
            } else {
                next = tail.thenCompose(ok -> ok ? deliverOne(row, index, outcomes, claimNanos) : NOT_DELIVERED);
            }
            tails.put(key, next);
        }
        chains.addAll(tails.values());
        // A synchronous sink has completed every chain already: wait only for those still running.
        chains.removeIf(chain -> chain.isDone() && !chain.isCompletedExceptionally());
        try {
            if (!chains.isEmpty()) {
                CompletableFuture.allOf(chains.toArray(new CompletableFuture<?>[0])).get();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("relay " + settings.name() + " interrupted while delivering", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("relay " + settings.name() + ": a delivery chain failed", e.getCause());
        }
        return outcomes;
    }

    private CompletableFuture<Boolean> deliverOne(ClaimedRow row, int index, Outcome[] outcomes, long claimNanos) {
        OutboxEvent event = row.event();
        SinkChannel channel = routes.route(event.subject());
        if (channel == null) {
            outcomes[index] = new Outcome(null, -1, "no route matches subject " + event.subject());
            return NOT_DELIVERED;
        }
        CompletableFuture<Throwable> submitted = channel.submit(event);
        if (submitted.isDone()) {
            // Delivered inline (a synchronous sink): no dependent future per row.
            return outcome(row, index, outcomes, claimNanos, channel, submitted.join()) ? DELIVERED : NOT_DELIVERED;
        }
        return submitted.thenApply(failure -> outcome(row, index, outcomes, claimNanos, channel, failure));
    }

    /** Records the outcome of one delivery; returns whether the row was delivered. */
    private boolean outcome(ClaimedRow row, int index, Outcome[] outcomes, long claimNanos, SinkChannel channel,
                            Throwable failure) {
        if (failure == null) {
            channel.recordDelivered(row.ageMicros() + (System.nanoTime() - claimNanos) / 1000);
            outcomes[index] = Outcome.DELIVERED;
            return true;
        }
        Throwable cause = unwrap(failure);
        int failures = row.event().attempts() + 1;
        if (cause instanceof PermanentDeliveryException || failures >= settings.retryPolicy().maxAttempts()) {
            channel.recordDead();
            outcomes[index] = new Outcome(channel, -1, describe(cause, failures));
        } else {
            channel.recordRetried();
            outcomes[index] = new Outcome(channel, settings.retryPolicy().backoffMillis(failures),
                    describe(cause, failures));
        }
        return false;
    }

    /** @return whether the claim deletes its rows (PostgreSQL, delivered rows deleted): settled by the commit */
    private boolean claimDeletes() {
        return statements.leased() && settings.deleteDelivered();
    }

    private void settle(Connection connection, List<ClaimedRow> rows, Outcome[] outcomes) throws SQLException {
        if (claimDeletes()) {
            if (allDelivered(outcomes)) {
                // The claim deleted the rows; committing now that they are delivered settles them.
                connection.commit();
                counters.delivered.add(rows.size());
                lastSettled = rows.size();
                return;
            }
            // Some failed or were held back behind a failed row of their key: undo the claim's
            // deletion (every row pending again, as it was), then settle by id as when marking.
            connection.rollback();
        }
        long[] deliveredIds = new long[rows.size()];
        int deliveredCount = 0;
        List<OutboxStatements.Failure> failures = new ArrayList<>();
        int retries = 0;
        int deaths = 0;
        for (int i = 0; i < outcomes.length; i++) {
            Outcome outcome = outcomes[i];
            if (outcome == null) {
                continue;
            }
            long id = rows.get(i).event().id();
            if (outcome == Outcome.DELIVERED) {
                deliveredIds[deliveredCount++] = id;
            } else {
                failures.add(new OutboxStatements.Failure(id, outcome.delayMillis(), outcome.error()));
                if (outcome.delayMillis() < 0) {
                    deaths++;
                } else {
                    retries++;
                }
            }
        }
        long[] delivered = java.util.Arrays.copyOf(deliveredIds, deliveredCount);
        if (failures.isEmpty() && deliveredCount > 0) {
            statements.deliveredAndCommit(connection, delivered, settings.deleteDelivered());
        } else {
            statements.delivered(connection, delivered, settings.deleteDelivered());
            statements.failed(connection, failures);
            connection.commit();
        }
        counters.delivered.add(deliveredCount);
        counters.retried.add(retries);
        counters.deadLettered.add(deaths);
        lastSettled = deliveredCount + failures.size();
    }

    private static boolean allDelivered(Outcome[] outcomes) {
        for (Outcome outcome : outcomes) {
            if (outcome != Outcome.DELIVERED) {
                return false;
            }
        }
        return true;
    }

    /** @return whether the count is due for longer than its own interval */
    private boolean overdue() {
        return System.nanoTime() - nextCountNanos > TimeUnit.MILLISECONDS.toNanos(settings.countMillis());
    }

    private void housekeeping(Connection connection) throws SQLException {
        long now = System.nanoTime();
        if (now - nextCountNanos >= 0) {
            nextCountNanos = now + TimeUnit.MILLISECONDS.toNanos(settings.countMillis());
            long[] counts = statements.countPendingAndDead(connection);
            connection.commit();
            pending = counts[0];
            dead = counts[1];
        }
        if (now - nextSweepNanos >= 0) {
            nextSweepNanos = now + TimeUnit.MILLISECONDS.toNanos(settings.sweepMillis());
            OutboxStatements.Swept swept = statements.sweep(connection, settings.retentionMillis(), SWEEP_CHUNK,
                    SWEEP_BUDGET_NANOS);
            if (!swept.finished()) {
                nextSweepNanos = System.nanoTime(); // the rest at the next housekeeping, after a batch
            }
            if (swept.rows() > 0) {
                LOG.debug("outbox relay {} swept {} delivered or archived rows", settings.name(), swept.rows());
            }
        }
    }

    /**
     * @param millis how long to wait
     * @param paced  a wait at the busy pace, which only {@link #stop()} ends early; otherwise a
     *               wake-up (an append, NOTIFY) does too
     * @param idle   the wait of a loop that found nothing lately (not a wait after a failure)
     */
    private void waitForWork(long millis, boolean paced, boolean idle) {
        pacing = paced;
        if (idle && busy() && millis > settings.busyPollMillis()) {
            // An append came after drain() chose to idle, while appends did not wake the loop.
            millis = settings.busyPollMillis();
        }
        try {
            if (!paced) {
                if (wakeups.tryAcquire(millis, TimeUnit.MILLISECONDS)) {
                    wakeups.drainPermits();
                }
                return;
            }
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
            long left = deadline - System.nanoTime();
            while (left > 0 && !closed) {
                if (wakeups.tryAcquire(left, TimeUnit.NANOSECONDS)) {
                    wakeups.drainPermits();
                }
                left = deadline - System.nanoTime();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            closed = true;
        }
    }

    private static void rollbackQuietly(Connection connection) {
        try {
            connection.rollback();
        } catch (SQLException ignored) {
            // the connection is broken; the database rolls back when it goes
        }
    }

    private String describe(Throwable cause, int failures) {
        return describe(cause, failures, settings.deliveryTimeoutMillis());
    }

    /** @return the dead letter's or retry's error text for a failed attempt; shared with the WAL relay */
    static String describe(Throwable cause, int failures, long deliveryTimeoutMillis) {
        String what = cause instanceof TimeoutException
                ? "delivery timed out after " + deliveryTimeoutMillis + " ms"
                : cause.getClass().getSimpleName() + ": " + cause.getMessage();
        return "attempt " + failures + ": " + what;
    }

    /** @return the failure inside the futures' wrappers; shared with the WAL relay */
    static Throwable unwrap(Throwable failure) {
        Throwable cause = failure;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException) && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }

    /**
     * Adds this loop's counters to a relay's totals.
     *
     * @param totals inFlight, delivered, retried, deadLettered, batches, databaseErrors
     */
    @Override
    public void addTo(long[] totals) {
        counters.addTo(totals);
    }

    /** @return pending rows at this loop's last count, -1 before the first */
    @Override
    public long pending() {
        return pending;
    }

    /** @return dead letters at this loop's last count, -1 before the first */
    @Override
    public long dead() {
        return dead;
    }

    /** @return whether the loop found rows within the last 50 ms, and so polls on its own */
    @Override
    public boolean busy() {
        return System.nanoTime() - lastRowsNanos < BUSY_LINGER_NANOS;
    }

    /** Asks the loop to stop after its current batch, without waiting. */
    @Override
    public void stop() {
        closed = true;
        wakeUp();
    }

    /**
     * Waits for the loop to stop (after {@link #stop()}), interrupting it when the deadline passes.
     *
     * @param deadlineNanos {@code System.nanoTime()} deadline
     * @return whether the loop stopped
     */
    @Override
    public boolean await(long deadlineNanos) {
        try {
            thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime())));
            if (thread.isAlive()) {
                thread.interrupt();
                thread.join(1_000);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return !thread.isAlive();
    }

    /**
     * How one row's attempt ended: delivered, or failed with a retry delay ({@code < 0} = dead).
     */
    private record Outcome(SinkChannel channel, long delayMillis, String error) {
        static final Outcome DELIVERED = new Outcome(null, 0, null);
    }
}
