package io.ringbus.outbox;

import io.ringbus.core.Subject;
import io.ringbus.outbox.internal.OutboxStatements;
import io.ringbus.outbox.internal.RelayGroup;
import io.ringbus.outbox.internal.RelaySettings;
import io.ringbus.outbox.internal.WalRelayLoop;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Configures a {@link Relay}. Several relays (in one JVM or in several) may deliver the same
 * outbox; give them the same routes.
 *
 * <p>Threading: not thread-safe; configure it on one thread. {@link #start()} returns a running
 * {@link Relay}, which is thread-safe.
 */
public final class RelayBuilder {
    /** Upper bound of {@link #batchSize}. */
    public static final int MAX_BATCH_SIZE = 10_000;
    /** Upper bound of {@link #parallelBatches}. */
    public static final int MAX_PARALLEL_BATCHES = 16;
    private static final AtomicInteger NEXT_NAME = new AtomicInteger();

    private final Outbox outbox;
    private final List<RelaySettings.Route> routes = new ArrayList<>();
    private String name = "relay-" + NEXT_NAME.incrementAndGet();
    private int batchSize = 500;
    private int parallelBatches;
    private Duration pollInterval;
    private Duration busyPollInterval = Duration.ofMillis(2);
    private Duration deliveryTimeout = Duration.ofSeconds(30);
    private RetryPolicy retryPolicy = RetryPolicy.DEFAULT;
    private boolean deleteDelivered = true;
    private boolean archiveDelivered;
    private Duration retention = Duration.ofDays(7);
    private Duration sweepInterval = Duration.ofMinutes(1);
    private Duration countInterval = Duration.ofSeconds(5);
    private boolean listen = true;
    private Duration leaseTime = Duration.ofSeconds(3);
    private String walSlot;
    private String walUrl;
    private String walUser;
    private String walPassword;
    private Object meterRegistry;

    RelayBuilder(Outbox outbox) {
        this.outbox = outbox;
    }

    /**
     * Delivers every subject to {@code sink} (same as {@code route(">", sink)}).
     *
     * @param sink the sink
     * @return this builder
     */
    public RelayBuilder sink(OutboxSink sink) {
        return route(">", sink);
    }

    /**
     * Delivers rows whose subject matches {@code pattern} to {@code sink}; the first matching route
     * wins. A row no route matches becomes a dead letter.
     *
     * @param pattern a subject pattern ({@code *} and {@code >} wildcards)
     * @param sink    the sink
     * @return this builder
     */
    public RelayBuilder route(String pattern, OutboxSink sink) {
        Subject.requirePattern(pattern);
        Objects.requireNonNull(sink, "sink");
        if (sink.maxConcurrency() < 1) {
            throw new IllegalArgumentException("sink maxConcurrency must be at least 1: sink=" + sink.name()
                    + ", maxConcurrency=" + sink.maxConcurrency());
        }
        routes.add(new RelaySettings.Route(pattern, sink));
        return this;
    }

    /**
     * @param name the relay's name, for threads, logs and stats
     * @return this builder
     */
    public RelayBuilder name(String name) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("name must be non-blank: name='" + name + "'");
        }
        this.name = name;
        return this;
    }

    /**
     * @param batchSize rows claimed per transaction, 1 to {@value #MAX_BATCH_SIZE} (default 500); also
     *                  the most rows this relay holds in memory
     * @return this builder
     */
    public RelayBuilder batchSize(int batchSize) {
        if (batchSize < 1 || batchSize > MAX_BATCH_SIZE) {
            throw new IllegalArgumentException("batchSize must be in [1, " + MAX_BATCH_SIZE + "]: batchSize=" + batchSize);
        }
        this.batchSize = batchSize;
        return this;
    }

    /**
     * @param parallelBatches batches this relay has in flight at once, 1 to {@value #MAX_PARALLEL_BATCHES}
     *                        (default 2 on PostgreSQL, 1 on H2): each is claimed and committed by a
     *                        loop of its own, with a connection of its own, and they exclude each
     *                        other as separate relays do. More than one keeps the sink busy while
     *                        another batch is read or committed, and a slow sink busy across batch
     *                        boundaries (the sinks' {@code maxConcurrency} still bounds the whole relay).
     * @return this builder
     */
    public RelayBuilder parallelBatches(int parallelBatches) {
        if (parallelBatches < 1 || parallelBatches > MAX_PARALLEL_BATCHES) {
            throw new IllegalArgumentException("parallelBatches must be in [1, " + MAX_PARALLEL_BATCHES
                    + "]: parallelBatches=" + parallelBatches);
        }
        this.parallelBatches = parallelBatches;
        return this;
    }

    /**
     * @param pollInterval how long an idle relay waits before looking again; an append through
     *                     an {@code Outbox} in the same JVM wakes it sooner (default 25 ms on
     *                     PostgreSQL, where commits send no NOTIFY; 100 ms on H2)
     * @return this builder
     */
    public RelayBuilder pollInterval(Duration pollInterval) {
        this.pollInterval = positive("pollInterval", pollInterval);
        return this;
    }

    /**
     * @param busyPollInterval how soon a relay looks again after a claim that found rows but not a
     *                         full batch (default 2 ms): while rows keep coming it polls at this
     *                         pace instead of waiting for NOTIFY, whose delivery lags behind a
     *                         steady stream of commits, and appends in this JVM do not cut the
     *                         wait short, so that rows gather into batches that grow with the load
     *                         (one claim and commit per interval and loop at most); one claim that
     *                         finds nothing returns it to {@link #pollInterval} and NOTIFY
     * @return this builder
     */
    public RelayBuilder busyPollInterval(Duration busyPollInterval) {
        this.busyPollInterval = positive("busyPollInterval", busyPollInterval);
        return this;
    }

    /**
     * @param deliveryTimeout how long one delivery may take before it counts as failed (default 30 s)
     * @return this builder
     */
    public RelayBuilder deliveryTimeout(Duration deliveryTimeout) {
        this.deliveryTimeout = positive("deliveryTimeout", deliveryTimeout);
        return this;
    }

    /**
     * @param retryPolicy backoff and attempts before dead-lettering (default {@link RetryPolicy#DEFAULT})
     * @return this builder
     */
    public RelayBuilder retryPolicy(RetryPolicy retryPolicy) {
        this.retryPolicy = Objects.requireNonNull(retryPolicy, "retryPolicy");
        return this;
    }

    /**
     * @param deleteDelivered delete rows once delivered (default true: cheaper than an update,
     *                        which writes a new row version and index entries); false marks them
     *                        delivered and keeps them for {@link #retention(Duration)}, for audit
     * @return this builder
     */
    public RelayBuilder deleteDelivered(boolean deleteDelivered) {
        this.deleteDelivered = deleteDelivered;
        return this;
    }

    /**
     * An audit trail off the hot table: each delivered row is deleted from the events table and
     * copied into {@code <table>_archive} (with {@code archived_at}) by the same statement, so the
     * copy commits exactly when the deletion does. Archived rows are kept for
     * {@link #retention(Duration)}. Cheaper than {@code deleteDelivered(false)}, which updates every
     * row in the events table and keeps it there; not for the insert-only layout, whose rows stay
     * in their partitions until pruned.
     *
     * @param archiveDelivered archive delivered rows (default false); needs {@code deleteDelivered(true)}
     * @return this builder
     */
    public RelayBuilder archiveDelivered(boolean archiveDelivered) {
        this.archiveDelivered = archiveDelivered;
        return this;
    }

    /**
     * @param retention how long delivered rows kept in the table or the archive (and idle key rows) are kept
     *                  (default 7 days)
     * @return this builder
     */
    public RelayBuilder retention(Duration retention) {
        this.retention = positive("retention", retention);
        return this;
    }

    /**
     * @param sweepInterval how often the relay runs the retention sweep (default 1 min)
     * @return this builder
     */
    public RelayBuilder sweepInterval(Duration sweepInterval) {
        this.sweepInterval = positive("sweepInterval", sweepInterval);
        return this;
    }

    /**
     * @param countInterval how often the relay counts pending and dead rows for its stats (default 5 s)
     * @return this builder
     */
    public RelayBuilder countInterval(Duration countInterval) {
        this.countInterval = positive("countInterval", countInterval);
        return this;
    }

    /**
     * @param listen on PostgreSQL, also wake on NOTIFY on the outbox's channel (default true): sent
     *               by {@code ringbus-outbox dead retry} and by applications that choose to, never
     *               per commit; when false, poll only
     * @return this builder
     */
    public RelayBuilder listen(boolean listen) {
        this.listen = listen;
        return this;
    }

    /**
     * PostgreSQL: rows are spread over 64 buckets (a key's rows share one), and each of the relay's
     * loops leases a fair share of them ({@code ceil(64 / live loops)}, all relays together); it
     * renews its leases every third of this time. A loop that stops cleanly gives its buckets back
     * at once; one that dies (kill -9, lost connection) keeps them until its leases expire, then
     * the others take them over. A loop whose lease has expired claims nothing until it renews.
     *
     * @param leaseTime how long a lease lasts without renewal (default 3 s)
     * @return this builder
     */
    public RelayBuilder leaseTime(Duration leaseTime) {
        this.leaseTime = positive("leaseTime", leaseTime);
        return this;
    }

    /**
     * WAL mode (PostgreSQL with {@code wal_level=logical}): instead of polling the table, the relay
     * reads committed rows from the logical replication stream through replication slot
     * {@code slot} (created on first start with the {@code pgoutput} plugin, and a publication
     * {@code <schema>_<table>_wal} of the table's inserts): commit order, no claim. The slot's
     * confirmed position advances only past delivered rows, so a relay that restarts resumes
     * there (at least once). One relay streams a slot at a time; another started with the same
     * slot stands by and takes over within a second of the slot going free. While no relay
     * streams it, the slot keeps the WAL since its position: bound it with PostgreSQL's
     * {@code max_slot_wal_keep_size}, and drop a slot no relay will use again
     * ({@code SELECT pg_drop_replication_slot('name')}). Needs an outbox opened with
     * {@code jdbcUrl(...)} (or {@link #wal(String, String, String, String)}), whose user may
     * replicate ({@code REPLICATION} or a superuser).
     * Ignores {@code parallelBatches}, {@code leaseTime} and the poll intervals.
     *
     * @param slot the replication slot's name: lower-case letters, digits and underscores
     * @return this builder
     */
    public RelayBuilder wal(String slot) {
        if (slot == null || !slot.matches("[a-z0-9_]{1,63}")) {
            throw new IllegalArgumentException("a replication slot name is 1 to 63 of a-z, 0-9 and _: slot=" + slot);
        }
        this.walSlot = slot;
        return this;
    }

    /**
     * {@link #wal(String)} for an outbox opened with {@code dataSource(...)} (the Spring starter's):
     * the replication stream needs a connection of its own, opened from this URL.
     *
     * @param slot     the replication slot's name: lower-case letters, digits and underscores
     * @param jdbcUrl  a {@code jdbc:postgresql:} URL of the outbox's database
     * @param user     a user that may replicate, or null to take it from the URL
     * @param password its password, or null
     * @return this builder
     */
    public RelayBuilder wal(String slot, String jdbcUrl, String user, String password) {
        if (jdbcUrl == null || !jdbcUrl.startsWith("jdbc:postgresql:")) {
            // The URL may carry a password (?password=...): shown hidden, as the command line does.
            throw new IllegalArgumentException("WAL mode streams from PostgreSQL: jdbcUrl must start with"
                    + " jdbc:postgresql: jdbcUrl=" + (jdbcUrl == null ? null
                    : jdbcUrl.replaceAll("(?i)(password=)[^&;]*", "$1***")));
        }
        wal(slot);
        this.walUrl = jdbcUrl;
        this.walUser = user;
        this.walPassword = password;
        return this;
    }

    /**
     * Publishes the relay's meters to {@code registry} (names and tags in {@code docs/metrics.md};
     * tagged {@code outbox} with the schema-qualified table and {@code relay} with the relay's
     * name): pending, dead and in-flight rows, and per sink delivered, retried and dead-lettered
     * rows and the append-to-acknowledgement latency. The meters read the relay's counters when
     * scraped, except the latency timer, recorded once per delivered row. They are removed when
     * the relay closes. Without this call no Micrometer class is loaded (micrometer-core is an
     * optional dependency).
     *
     * @param registry where to register the meters
     * @return this builder
     */
    public RelayBuilder meterRegistry(io.micrometer.core.instrument.MeterRegistry registry) {
        this.meterRegistry = Objects.requireNonNull(registry, "meterRegistry");
        return this;
    }

    /**
     * Starts the relay's thread (and, on PostgreSQL, its LISTEN thread).
     *
     * @return the running relay
     */
    public Relay start() {
        if (routes.isEmpty()) {
            throw new IllegalStateException("a relay needs at least one sink: call sink(...) or route(...)");
        }
        // PostgreSQL sends no NOTIFY per commit (it would serialise the producers' commits), so an
        // idle relay looks every 25 ms; appends in this JVM wake it at once.
        Duration poll = pollInterval != null ? pollInterval
                : outbox.isPostgreSql() ? Duration.ofMillis(25) : Duration.ofMillis(100);
        // On PostgreSQL two loops by default: while one waits for its claim or commit, the other
        // delivers (one loop spends about half its time waiting on the database; see the outbox
        // benchmark). Their buckets are disjoint, so per-key order holds as with separate relays.
        int loops = parallelBatches != 0 ? parallelBatches : outbox.isPostgreSql() ? 2 : 1;
        RelaySettings settings = new RelaySettings(name, List.copyOf(routes), batchSize, loops, poll.toMillis(),
                busyPollInterval.toMillis(),
                deliveryTimeout.toMillis(), retryPolicy, deleteDelivered, retention.toMillis(), sweepInterval.toMillis(),
                countInterval.toMillis(), listen && outbox.isPostgreSql(), outbox.eventIdPrefix(), leaseTime.toMillis());
        OutboxStatements statements = outbox.statements();
        // The archive first: an insert-only table refused for polling would otherwise send a
        // relay that archives to WAL mode, only to be refused there.
        if (archiveDelivered) {
            if (!deleteDelivered) {
                throw new IllegalStateException("archiveDelivered(true) (--archive) moves delivered rows into the"
                        + " archive, and deleteDelivered(false) (--keep-delivered) keeps them in the events table:"
                        + " choose one (relay " + name + ")");
            }
            if (statements.sql().insertOnly()) {
                throw new IllegalStateException("outbox table " + statements.sql().table() + " has the insert-only"
                        + " layout, whose delivered rows stay in their partitions until pruned: it has no archive, so"
                        + " archiveDelivered(true) (--archive) is not for it (relay " + name + ")");
            }
            statements = statements.archiving();
        }
        if (walSlot == null && statements.sql().insertOnly()) {
            throw new IllegalStateException("outbox table " + statements.sql().table() + " has the insert-only"
                    + " layout, whose rows are never marked or deleted one by one: relay it in WAL mode (wal(slot); --wal SLOT"
                    + " on the command line)");
        }
        WalRelayLoop.Source wal = null;
        if (walSlot != null) {
            if (!outbox.isPostgreSql() || (outbox.jdbcUrl() == null && walUrl == null)) {
                throw new IllegalStateException("WAL mode needs an outbox on PostgreSQL opened with jdbcUrl(...), or"
                        + " wal(slot, jdbcUrl, user, password): slot=" + walSlot + ", outbox=" + outbox);
            }
            try (Connection connection = outbox.dataSource().getConnection()) {
                WalRelayLoop.requireLogical(connection);
                if (outbox.insertOnly()) {
                    String qualified = outbox.statements().sql().table();
                    String other = WalRelayLoop.otherSlot(connection, qualified.substring(0, qualified.indexOf('.')),
                            qualified.substring(qualified.indexOf('.') + 1), walSlot);
                    if (other != null) {
                        throw new IllegalStateException(WalRelayLoop.oneSlot(outbox.statements().sql().table(), other,
                                walSlot));
                    }
                }
            } catch (SQLException e) {
                throw new IllegalStateException("cannot check the database for WAL mode: slot=" + walSlot, e);
            }
            wal = walUrl != null ? new WalRelayLoop.Source(walUrl, walUser, walPassword, walSlot)
                    : new WalRelayLoop.Source(outbox.jdbcUrl(), outbox.user(), outbox.password(), walSlot);
        }
        return new Relay(new RelayGroup(outbox.dataSource(), statements, settings,
                settings.listen() && wal == null ? outbox.listener() : null, outbox.wakeups(), wal, meterRegistry));
    }

    private static Duration positive(String what, Duration value) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(what + " must be positive: " + what + "=" + value);
        }
        return value;
    }
}
