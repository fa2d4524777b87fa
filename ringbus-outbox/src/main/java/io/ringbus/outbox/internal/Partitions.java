package io.ringbus.outbox.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The insert-only layout of an outbox table (PostgreSQL, for WAL relays): the table is partitioned
 * by id range, rows are inserted and never updated or deleted one by one, and a partition is
 * truncated (then dropped) as a whole once the WAL relay's slot has passed every row in it.
 *
 * <p>Appends need no lock to keep a key's order (a WAL relay delivers in commit order), and the
 * producers' inserts touch one index (the primary key), not the polling layout's three.
 *
 * <p>The streaming relay calls {@link #tick} about once a second. It keeps {@link #AHEAD} empty
 * partitions beyond the identity sequence (each created standalone and attached, which does not
 * block inserts; a row whose id no partition covers goes to the default partition, so producers
 * never fail when no relay runs), and prunes the oldest partition the sequence has left behind, in
 * two steps, without reading its rows. First it inserts a marker row ({@link #MARKER_SUBJECT},
 * status delivered, so never delivered) and waits until the relay has passed it (caught up). Then
 * it locks the partition (waiting at most {@link #LOCK_TIMEOUT_MS}: granted once every transaction
 * that inserted into it has ended), commits a second marker, the seal, on another connection, and
 * waits up to {@link #SEAL_WAIT_MS} for the relay to pass it too: every commit into the partition
 * came before the seal in the stream, so every row in it is then delivered or a dead letter. It
 * truncates the partition unless the dead letters' index finds one there; a partition that holds
 * dead letters loses only its delivered rows, by a DELETE, and stays. (A first design counted the
 * rows committed after a snapshot under the lock: a second and a half of a core per million rows,
 * which held a loaded 2-core machine's stream up for about a second.)
 *
 * <p>Threading: one thread at a time (the relay's {@link PartitionKeeper}); not thread-safe.
 */
public final class Partitions {
    private static final Logger LOG = LoggerFactory.getLogger(Partitions.class);
    /** Empty partitions kept beyond the sequence's last value. */
    static final int AHEAD = 2;
    /** How long pruning waits for a partition's (or, to drop it, the table's) lock before trying later. */
    static final int LOCK_TIMEOUT_MS = 50;
    /** The subject of the marker rows pruning inserts (with status delivered: never relayed). */
    public static final String MARKER_SUBJECT = "$ringbus.prune";
    private static final String MARKER_INSERT = "INSERT INTO %s (subject, payload, status) VALUES ('" + MARKER_SUBJECT
            + "', ''::bytea, " + OutboxSql.DELIVERED + ") RETURNING id";
    /**
     * How long pruning holds a partition's lock waiting for the relay to pass the seal marker (a
     * relay that keeps up passes it within tens of milliseconds); longer, and it lets go and tries
     * at the next tick.
     */
    static final int SEAL_WAIT_MS = 500;
    /** How long attaching a partition may take (its check of the default partition blocks inserts into it). */
    static final int ATTACH_TIMEOUT_MS = 200;
    /**
     * How long to wait after a drop that was not granted the table's lock (a transaction that
     * inserted into the table is still open) before the next try: each try holds inserts up for up
     * to {@link #LOCK_TIMEOUT_MS}.
     */
    static final long DROP_BACKOFF_NANOS = TimeUnit.SECONDS.toNanos(30);
    /** How long to wait after an attach that ran out of time before the next try. */
    static final long ATTACH_BACKOFF_NANOS = TimeUnit.SECONDS.toNanos(10);
    /** The partition size {@code createLayout} uses when none is given. */
    public static final long DEFAULT_PARTITION_ROWS = 1_000_000;
    /**
     * The largest partition size: the bounds of the partitions made ahead ({@code id + 3 * rows}) must
     * not overflow a {@code bigint} (a larger size failed as PostgreSQL's "empty range bound").
     */
    public static final long MAX_PARTITION_ROWS = 1L << 40;
    private static final long TICK_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final Pattern BOUNDS = Pattern.compile("FROM \\('?(-?\\d+)'?\\) TO \\('?(-?\\d+)'?\\)");
    /**
     * Whether a row's inserting transaction ({@code xmin}, 32 bits) had committed in snapshot
     * {@code ?}: xmin is widened to 64 bits next to the current snapshot's xmax (rows are pruned long
     * before their xids are 2^31 old).
     */
    private static final String COMMITTED_IN = "pg_visible_in_snapshot(GREATEST(3, m.xmax - ((((m.xmax & 4294967295)"
            + " - e.xmin::text::bigint + 2147483648) % 4294967296 + 4294967296) % 4294967296 - 2147483648))::text::xid8,"
            + " ?::pg_snapshot)";
    private static final String XMAX = " CROSS JOIN (SELECT pg_snapshot_xmax(pg_current_snapshot())::text::bigint AS xmax) m";

    /** One partition: ids in {@code [lo, hi)}. */
    record Range(String name, long lo, long hi) {
    }

    /** A partition noted for pruning: its rows committed in {@code snapshot} come before marker row {@code marker}. */
    private record Candidate(Range range, String snapshot, long marker) {
    }

    private final String schema;
    private final String table;
    private final String relay;
    private final LongAdder truncated = new LongAdder();
    private long nextTickNanos = System.nanoTime();
    private long attachAfterNanos = System.nanoTime();
    private long dropAfterNanos = System.nanoTime();
    private Candidate candidate;
    private Candidate defaultNote;
    /** Partitions truncated whose drop was not granted its lock yet. */
    private final java.util.Set<String> emptied = new java.util.LinkedHashSet<>();

    /**
     * @param schema the checked schema name
     * @param table  the checked (parent) table name
     * @param relay  the relay's name, for logs
     */
    public Partitions(String schema, String table, String relay) {
        this.schema = schema;
        this.table = table;
        this.relay = relay;
    }

    /** @return whether {@code schema.table} has the insert-only layout (is partitioned) */
    public static boolean insertOnly(Connection c, String schema, String table) throws SQLException {
        try (PreparedStatement find = c.prepareStatement("SELECT c.relkind = 'p' FROM pg_class c JOIN pg_namespace n"
                + " ON n.oid = c.relnamespace WHERE n.nspname = ? AND c.relname = ?")) {
            find.setString(1, schema);
            find.setString(2, table);
            try (ResultSet rs = find.executeQuery()) {
                return rs.next() && rs.getBoolean(1);
            }
        }
    }

    /**
     * Replaces an empty outbox table of the polling layout (as the migrations create it) by the
     * insert-only layout, in one transaction; ids go on from the old table's identity, so event ids
     * are never reused.
     *
     * @param c             a connection; its auto-commit is restored
     * @param partitionRows ids per partition, see {@link #checkPartitionRows}
     * @throws IllegalStateException naming the table when it holds rows
     */
    public static void createLayout(Connection c, String schema, String table, long partitionRows) throws SQLException {
        checkPartitionRows(partitionRows);
        String qualified = schema + "." + table;
        boolean autoCommit = c.getAutoCommit();
        c.setAutoCommit(false);
        try (Statement s = c.createStatement()) {
            s.execute("LOCK TABLE " + qualified + " IN ACCESS EXCLUSIVE MODE");
            long next;
            try (ResultSet rs = s.executeQuery("SELECT EXISTS (SELECT 1 FROM " + qualified + "), (SELECT CASE WHEN"
                    + " is_called THEN last_value + 1 ELSE last_value END FROM " + sequence(c, qualified) + ")")) {
                rs.next();
                if (rs.getBoolean(1)) {
                    throw new IllegalStateException("outbox table " + qualified + " holds rows: the insert-only layout"
                            + " replaces an empty table only (let a relay drain it, then purge its dead letters and,"
                            + " with deleteDelivered(false), its kept rows; or use another table)");
                }
                next = rs.getLong(2);
            }
            s.execute("DROP TABLE " + qualified);
            s.execute("CREATE TABLE " + qualified + " (id BIGINT GENERATED BY DEFAULT AS IDENTITY (START WITH " + next
                    + "), subject VARCHAR(1024) NOT NULL, msg_key VARCHAR(512), payload BYTEA NOT NULL, headers TEXT,"
                    + " created_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(), status SMALLINT NOT NULL DEFAULT 0,"
                    + " attempts INT NOT NULL DEFAULT 0, next_attempt_at TIMESTAMPTZ, last_error TEXT, done_at TIMESTAMPTZ,"
                    + " bucket SMALLINT NOT NULL DEFAULT 0, PRIMARY KEY (id)) PARTITION BY RANGE (id)");
            s.execute("CREATE INDEX " + table + "_done ON " + qualified + " (status, done_at) WHERE status <> 0");
            s.execute("CREATE TABLE " + qualified + "_default PARTITION OF " + qualified + " DEFAULT");
            // A WAL relay's publication lost the dropped table: it publishes the new one, as itself.
            try (PreparedStatement find = c.prepareStatement("SELECT 1 FROM pg_publication WHERE pubname = ?")) {
                find.setString(1, WalRelayLoop.publicationName(schema, table));
                try (ResultSet rs = find.executeQuery()) {
                    if (rs.next()) {
                        s.execute("ALTER PUBLICATION " + WalRelayLoop.publicationName(schema, table) + " ADD TABLE "
                                + qualified);
                        s.execute("ALTER PUBLICATION " + WalRelayLoop.publicationName(schema, table)
                                + " SET (publish = 'insert', publish_via_partition_root = true)");
                    }
                }
            }
            for (int i = 0; i <= AHEAD; i++) {
                long lo = next + i * partitionRows;
                s.execute("CREATE TABLE " + schema + "." + partitionName(table, lo) + " PARTITION OF " + qualified
                        + " FOR VALUES FROM (" + lo + ") TO (" + (lo + partitionRows) + ")");
            }
            c.commit();
        } catch (SQLException | RuntimeException e) {
            c.rollback();
            throw e;
        } finally {
            c.setAutoCommit(autoCommit);
        }
    }

    /**
     * @param partitionRows ids per partition
     * @throws IllegalArgumentException naming the value unless it is in [100, {@link #MAX_PARTITION_ROWS}]
     */
    public static void checkPartitionRows(long partitionRows) {
        if (partitionRows < 100 || partitionRows > MAX_PARTITION_ROWS) {
            throw new IllegalArgumentException("partitionRows must be between 100 and " + MAX_PARTITION_ROWS
                    + ": partitionRows=" + partitionRows);
        }
    }

    private static String sequence(Connection c, String qualified) throws SQLException {
        try (PreparedStatement find = c.prepareStatement("SELECT pg_get_serial_sequence(?, 'id')")) {
            find.setString(1, qualified);
            try (ResultSet rs = find.executeQuery()) {
                rs.next();
                return rs.getString(1);
            }
        }
    }

    static String partitionName(String table, long lo) {
        return table + "_p" + lo;
    }

    /** @return the partitions truncated since this relay started */
    long truncated() {
        return truncated.sum();
    }

    /**
     * Keeps partitions ahead and prunes, at most once a second.
     *
     * @param c            a connection with auto-commit off, idle (this commits or rolls back)
     * @param pool         where a second connection comes from, to commit a seal marker while
     *                     {@code c} holds a partition's lock
     * @param passedMarker the newest marker row the relay has passed, read live: every row streamed
     *                     before it is delivered (or a dead letter)
     */
    void tick(Connection c, DataSource pool, LongSupplier passedMarker) throws SQLException {
        long now = System.nanoTime();
        if (now - nextTickNanos < 0) {
            return;
        }
        nextTickNanos = now + TICK_NANOS;
        try {
            List<Range> ranges = ranges(c);
            long last = lastId(c);
            c.commit();
            if (ranges.isEmpty()) {
                return;
            }
            keepAhead(c, ranges, last);
            prune(c, pool, ranges, last, passedMarker);
            pruneDefault(c, passedMarker.getAsLong());
        } catch (SQLException e) {
            c.rollback();
            if (!"55P03".equals(e.getSQLState())) { // a lock not granted in time: next tick
                throw e;
            }
        }
    }

    private List<Range> ranges(Connection c) throws SQLException {
        List<Range> ranges = new ArrayList<>();
        try (PreparedStatement list = c.prepareStatement("SELECT p.relname, pg_get_expr(p.relpartbound, p.oid)"
                + " FROM pg_inherits i JOIN pg_class p ON p.oid = i.inhrelid WHERE i.inhparent = ?::regclass")) {
            list.setString(1, schema + "." + table);
            try (ResultSet rs = list.executeQuery()) {
                while (rs.next()) {
                    Matcher bounds = BOUNDS.matcher(rs.getString(2));
                    if (bounds.find()) { // the default partition has none
                        ranges.add(new Range(rs.getString(1), Long.parseLong(bounds.group(1)),
                                Long.parseLong(bounds.group(2))));
                    }
                }
            }
        }
        ranges.sort((a, b) -> Long.compare(a.lo(), b.lo()));
        return ranges;
    }

    private long lastId(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT CASE WHEN is_called THEN last_value"
                + " ELSE last_value - 1 END FROM " + sequence(c, schema + "." + table))) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /**
     * Creates partitions until {@link #AHEAD} lie wholly beyond {@code last}, each as a table of its
     * own, then attached (a lock that lets inserts go on). When the sequence has passed the last
     * partition (no relay ran for a while: those rows are in the default partition), the next one
     * starts a quarter partition beyond it, clear of ids being taken meanwhile.
     */
    private void keepAhead(Connection c, List<Range> ranges, long last) throws SQLException {
        if (System.nanoTime() - attachAfterNanos < 0) {
            return;
        }
        Range newest = ranges.getLast();
        long size = newest.hi() - newest.lo();
        long hi = newest.hi();
        while (hi - 1 - last < AHEAD * size) {
            long lo = Math.max(hi, last + 1 + size / 4);
            String name = partitionName(table, lo);
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE " + schema + "." + name + " (LIKE " + schema + "." + table
                        + " INCLUDING DEFAULTS, CHECK (id >= " + lo + " AND id < " + (lo + size) + "))");
                s.execute("SET LOCAL lock_timeout = '" + LOCK_TIMEOUT_MS + "ms'");
                // Attaching checks the default partition for ids of the new range while it holds
                // that partition's lock: bounded, as inserts of ids beyond the partitions wait on it.
                s.execute("SET LOCAL statement_timeout = '" + ATTACH_TIMEOUT_MS + "ms'");
                s.execute("ALTER TABLE " + schema + "." + table + " ATTACH PARTITION " + schema + "." + name
                        + " FOR VALUES FROM (" + lo + ") TO (" + (lo + size) + ")");
            } catch (SQLException e) {
                c.rollback();
                if ("23514".equals(e.getSQLState()) || "57014".equals(e.getSQLState())) {
                    // The default partition holds ids of that range, or is too large to check in time.
                    long backoff = "57014".equals(e.getSQLState()) ? ATTACH_BACKOFF_NANOS : TICK_NANOS;
                    attachAfterNanos = System.nanoTime() + backoff;
                    LOG.info("outbox relay {}: partition {} not attached, tried again in {} s: {}", relay, name,
                            TimeUnit.NANOSECONDS.toSeconds(backoff), e.getMessage());
                    return;
                }
                throw e;
            }
            c.commit();
            LOG.debug("outbox relay {}: partition {} [{}, {}) attached", relay, name, lo, lo + size);
            hi = lo + size;
        }
    }

    private void prune(Connection c, DataSource pool, List<Range> ranges, long last, LongSupplier passedMarker)
            throws SQLException {
        if (System.nanoTime() - dropAfterNanos >= 0) {
            for (String name : List.copyOf(emptied)) {
                if (drop(c, schema + "." + name)) {
                    emptied.remove(name);
                } else {
                    dropAfterNanos = System.nanoTime() + DROP_BACKOFF_NANOS;
                    break;
                }
            }
        }
        List<Range> left = ranges.stream().filter(r -> !emptied.contains(r.name())).toList();
        if (left.isEmpty()) {
            return;
        }
        Range oldest = left.getFirst();
        long size = oldest.hi() - oldest.lo();
        if (oldest.hi() + size / 2 > last) {
            return; // the sequence is still in it, or just past it
        }
        if (candidate == null || !candidate.range().equals(oldest)) {
            candidate = note(c, oldest);
            return;
        }
        if (passedMarker.getAsLong() < candidate.marker()) {
            return; // the relay has not delivered everything before the note yet
        }
        String qualified = schema + "." + oldest.name();
        try (Statement s = c.createStatement()) {
            s.execute("SET LOCAL lock_timeout = '" + LOCK_TIMEOUT_MS + "ms'");
            s.execute("LOCK TABLE " + qualified + " IN ACCESS EXCLUSIVE MODE");
            // Granted: every transaction that inserted into the partition has ended, and none can
            // insert into it until this one ends. A seal marker committed now comes after all of
            // their commits in the stream: once the relay has passed it, every row here is
            // delivered or a dead letter, without reading the rows.
            long seal = seal(pool);
            if (!await(passedMarker, seal)) {
                c.rollback();
                LOG.debug("outbox relay {}: partition {} not sealed within {} ms, tried again at the next tick", relay,
                        oldest.name(), SEAL_WAIT_MS);
                return;
            }
            boolean dead;
            try (ResultSet rs = s.executeQuery("SELECT EXISTS (SELECT 1 FROM " + qualified + " WHERE status = "
                    + OutboxSql.DEAD + ")")) { // the dead letters' index
                rs.next();
                dead = rs.getBoolean(1);
            }
            if (!dead) {
                s.execute("TRUNCATE " + qualified);
                c.commit();
                truncated.increment();
                candidate = null;
                if (!drop(c, qualified)) {
                    emptied.add(oldest.name());
                    dropAfterNanos = System.nanoTime() + DROP_BACKOFF_NANOS;
                }
                return;
            }
            s.execute("DELETE FROM " + qualified + " WHERE status <> " + OutboxSql.DEAD);
            c.commit();
        }
        LOG.debug("outbox relay {}: partition {} keeps its dead letters", relay, oldest.name());
        candidate = null;
    }

    /** Inserts and commits a marker row on a connection of its own: @return its id */
    private long seal(DataSource pool) throws SQLException {
        try (Connection own = pool.getConnection(); Statement s = own.createStatement()) {
            own.setAutoCommit(true);
            try (ResultSet rs = s.executeQuery(MARKER_INSERT.formatted(schema + "." + table))) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /** @return whether the relay passed marker {@code id} within {@link #SEAL_WAIT_MS} */
    private static boolean await(LongSupplier passedMarker, long id) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(SEAL_WAIT_MS);
        while (passedMarker.getAsLong() < id) {
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
        }
        return true;
    }

    /**
     * The default partition holds rows only when the sequence outran the partitions (no relay ran
     * for a while); its delivered rows are deleted, as a dead-letter partition's are.
     */
    private void pruneDefault(Connection c, long passedMarker) throws SQLException {
        String qualified = schema + "." + table + "_default";
        if (defaultNote == null) {
            boolean rows;
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT EXISTS (SELECT 1 FROM "
                    + qualified + " WHERE status <> " + OutboxSql.DEAD + ")")) {
                rs.next();
                rows = rs.getBoolean(1);
            }
            c.commit();
            if (rows) {
                defaultNote = note(c, null);
            }
            return;
        }
        if (passedMarker < defaultNote.marker()) {
            return;
        }
        // The note's own marker went to the default partition too when the sequence is in a gap.
        try (PreparedStatement delete = c.prepareStatement("DELETE FROM " + qualified + " WHERE status <> "
                + OutboxSql.DEAD + " AND ctid IN (SELECT e.ctid FROM " + qualified + " e" + XMAX + " WHERE " + COMMITTED_IN
                + " OR e.id = ?)")) {
            delete.setString(1, defaultNote.snapshot());
            delete.setLong(2, defaultNote.marker());
            delete.executeUpdate();
        }
        c.commit();
        defaultNote = null;
    }

    private Candidate note(Connection c, Range range) throws SQLException {
        try (Statement s = c.createStatement()) {
            String snapshot;
            try (ResultSet rs = s.executeQuery("SELECT pg_current_snapshot()::text")) {
                rs.next();
                snapshot = rs.getString(1);
            }
            long marker;
            try (ResultSet rs = s.executeQuery(MARKER_INSERT.formatted(schema + "." + table))) {
                rs.next();
                marker = rs.getLong(1);
            }
            c.commit();
            return new Candidate(range, snapshot, marker);
        }
    }

    /**
     * Drops an emptied partition: that locks the whole table, so only for {@link #LOCK_TIMEOUT_MS}
     * (the inserts queued behind the request wait that long at most); when not granted, the empty
     * partition stays and is tried again at the next tick.
     *
     * @return whether it was dropped
     */
    private boolean drop(Connection c, String qualified) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("SET LOCAL lock_timeout = '" + LOCK_TIMEOUT_MS + "ms'");
            s.execute("DROP TABLE IF EXISTS " + qualified);
            c.commit();
            return true;
        } catch (SQLException e) {
            c.rollback();
            if (!"55P03".equals(e.getSQLState())) {
                throw e;
            }
            LOG.info("outbox relay {}: emptied partition {} not dropped yet (the table's lock was not granted within"
                    + " {} ms: a transaction that inserted into the table is open); tried again in {} s", relay, qualified,
                    LOCK_TIMEOUT_MS, TimeUnit.NANOSECONDS.toSeconds(DROP_BACKOFF_NANOS));
            return false;
        }
    }
}
