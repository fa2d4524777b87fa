package io.ringbus.outbox.internal;

import io.ringbus.outbox.OutboxEvent;
import io.ringbus.outbox.PermanentDeliveryException;
import java.nio.ByteBuffer;
import java.sql.Array;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.temporal.ChronoField;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.postgresql.PGProperty;
import org.postgresql.replication.LogSequenceNumber;
import org.postgresql.replication.PGReplicationStream;
import org.postgresql.replication.ReplicationSlotInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A relay that reads committed outbox rows from PostgreSQL's logical replication stream
 * ({@code pgoutput}) instead of polling: rows arrive in commit order, with no claim at all. Its
 * position is a replication slot's confirmed LSN, advanced only after the rows before it were
 * delivered (or dead-lettered) and deleted (or marked): after a crash the stream resumes there, so
 * delivery is at least once. Only one relay streams a slot at a time; others with the same slot
 * stand by and take over when the slot is free (the active relay died or stopped).
 *
 * <p>When it creates the slot, it first delivers the rows already pending, read in the snapshot
 * the slot exported, so nothing committed before the slot existed is missed and nothing after it
 * is read twice. A delivery that fails is retried in place with the relay's backoff (later rows of
 * its key wait; other keys go on); past the attempts it becomes a dead letter, as with polling.
 *
 * <p>Threading: one platform thread owns both connections and the stream.
 */
public final class WalRelayLoop implements Runnable, RelayWorker {
    private static final Logger LOG = LoggerFactory.getLogger(WalRelayLoop.class);
    private static final long STANDBY_MILLIS = 1_000;
    /** The shortest time between two positions sent to the server outside the stream's own status messages. */
    private static final long CONFIRM_EVERY_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
    /**
     * How long a streamed row waits for later commits to join its batch: under a steady stream the
     * stream is never drained, and without a bound a batch would wait until it is full.
     */
    private static final long BATCH_LINGER_NANOS = TimeUnit.MILLISECONDS.toNanos(2);
    /**
     * How long a batch waits, once the stream has nothing more to read, for further commits to
     * join it: the visibility check and the sink's round trip are then paid per batch, not per row.
     */
    private static final long IDLE_LINGER_NANOS = TimeUnit.MICROSECONDS.toNanos(1_000);
    private static final long LINGER_PARK_NANOS = TimeUnit.MICROSECONDS.toNanos(100);
    /** How long a streamed commit may take to become visible to other sessions before it is an error. */
    private static final long VISIBLE_WITHIN_NANOS = TimeUnit.SECONDS.toNanos(10);
    /**
     * Counts the transactions not yet visible in a new snapshot (PostgreSQL 13+). pgoutput gives
     * 32-bit xids; each is widened to the 64-bit xid nearest the snapshot's xmax (its signed 32-bit
     * distance from xmax's low half), so an xid at or past xmax, which a commit still becoming
     * visible can be, stays in xmax's epoch and counts as not visible.
     */
    private static final String NOT_YET_VISIBLE = "SELECT count(*) FROM (SELECT pg_current_snapshot() AS snap) s,"
            + " LATERAL (SELECT pg_snapshot_xmax(s.snap)::text::bigint AS xmax) m, unnest(?::bigint[]) x"
            + " WHERE NOT pg_visible_in_snapshot(GREATEST(3, m.xmax - ((((m.xmax & 4294967295) - x + 2147483648)"
            + " % 4294967296 + 4294967296) % 4294967296 - 2147483648))::text::xid8, s.snap)";
    private static final CompletableFuture<Boolean> NOT_DELIVERED = CompletableFuture.completedFuture(false);
    private static final DateTimeFormatter PG_TIMESTAMP = new DateTimeFormatterBuilder()
            .appendPattern("uuuu-MM-dd HH:mm:ss")
            .optionalStart().appendFraction(ChronoField.NANO_OF_SECOND, 0, 9, true).optionalEnd()
            .appendOffset("+HH:mm", "+00")
            .toFormatter();

    /**
     * Where the stream comes from.
     *
     * @param jdbcUrl  the outbox's {@code jdbc:postgresql:} URL
     * @param user     the user, or {@code null} for the URL's
     * @param password the password, or {@code null}
     * @param slot     the replication slot's name
     */
    public record Source(String jdbcUrl, String user, String password, String slot) {
    }

    private final DataSource dataSource;
    private final OutboxStatements statements;
    private final RelaySettings settings;
    private final Source source;
    private final Routes routes;
    private final String schema;
    private final String table;
    private final String publication;
    private final Thread thread;
    private final Semaphore wakeups = new Semaphore(0);
    private final LoopCounters counters = new LoopCounters();
    private final Partitions partitions;
    private volatile long pending = -1;
    private volatile long dead = -1;
    private volatile boolean closed;
    private volatile Connection replication;
    private long nextCountNanos;
    private long nextSweepNanos;
    /** Markers streamed and not yet passed: {commit end LSN, marker id}, in stream order. */
    private final java.util.ArrayDeque<long[]> markers = new java.util.ArrayDeque<>();
    /** Written by the stream's thread, read by the partition keeper's. */
    private volatile long passedMarker;
    private PartitionKeeper keeper;
    private long lastConfirmNanos;
    private long confirmedLsn;
    private long sentLsn;

    /**
     * @param dataSource    the outbox's pool, for deletes, dead letters and counts
     * @param statements    its statements
     * @param settings      the relay's configuration
     * @param routeChannels the sink channel of each route
     * @param source        the replication connection and slot
     */
    public WalRelayLoop(DataSource dataSource, OutboxStatements statements, RelaySettings settings,
                        List<SinkChannel> routeChannels, Source source) {
        this.dataSource = dataSource;
        this.statements = statements;
        this.settings = settings;
        this.source = source;
        this.routes = new Routes(settings.routes(), routeChannels);
        String qualified = statements.sql().table();
        this.schema = qualified.substring(0, qualified.indexOf('.'));
        this.table = qualified.substring(qualified.indexOf('.') + 1);
        this.publication = publicationName(schema, table);
        this.partitions = statements.sql().insertOnly() ? new Partitions(schema, table, settings.name()) : null;
        this.thread = Thread.ofPlatform().name("ringbus-outbox-" + settings.name() + "-wal").daemon(true).unstarted(this);
    }

    /**
     * @return the publication a WAL relay of this table reads: {@code <schema>_<table>_wal}
     */
    public static String publicationName(String schema, String table) {
        return schema + "_" + table + "_wal";
    }

    /**
     * Fails fast, before a relay starts, when the database cannot stream.
     *
     * @throws IllegalStateException naming {@code wal_level} when it is not {@code logical}
     */
    public static void requireLogical(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement(); ResultSet rs = statement.executeQuery("SHOW wal_level")) {
            rs.next();
            String level = rs.getString(1);
            if (!"logical".equals(level)) {
                throw new IllegalStateException("a WAL relay needs wal_level=logical, but the database has wal_level="
                        + level + "; set it (ALTER SYSTEM SET wal_level = logical) and restart PostgreSQL");
            }
        }
    }

    @Override
    public void start() {
        nextCountNanos = System.nanoTime();
        nextSweepNanos = nextCountNanos;
        thread.start();
    }

    @Override
    public void wakeUp() {
        // The stream brings rows as they commit; nothing to wake.
    }

    @Override
    public void run() {
        long backoff = RelayLoop.RECONNECT_MILLIS.initial();
        boolean standingBy = false;
        while (!closed) {
            try {
                stream();
                backoff = RelayLoop.RECONNECT_MILLIS.initial();
            } catch (SQLException e) {
                if (closed) {
                    break;
                }
                if ("55006".equals(e.getSQLState())) {
                    // The slot is in use by another relay: stand by until it is free.
                    if (!standingBy) {
                        LOG.info("outbox relay {}: slot {} is streamed by another relay; standing by", settings.name(),
                                source.slot());
                        standingBy = true;
                    }
                    pause(STANDBY_MILLIS);
                    continue;
                }
                counters.databaseErrors.increment();
                LOG.warn("outbox relay {}: replication failed, retrying in {} ms: {}", settings.name(), backoff,
                        e.toString());
                pause(backoff);
                backoff = RelayLoop.RECONNECT_MILLIS.next(backoff);
            } catch (RuntimeException e) {
                if (closed) {
                    break;
                }
                LOG.error("outbox relay {}: unexpected failure, retrying in {} ms", settings.name(), backoff, e);
                pause(backoff);
                backoff = RelayLoop.RECONNECT_MILLIS.next(backoff);
            }
            standingBy = standingBy && !closed;
        }
    }

    private void stream() throws SQLException {
        try (Connection connection = dataSource.getConnection(); Connection stream = openReplication();
             Connection settling = dataSource.getConnection();
             Connection keeping = partitions == null ? null : dataSource.getConnection()) {
            replication = stream;
            // The slot resends from its confirmed position: what this relay held of a former stream is void.
            confirmedLsn = 0;
            sentLsn = 0;
            markers.clear();
            connection.setAutoCommit(false);
            settling.setAutoCommit(false);
            ensurePublication(connection);
            LogSequenceNumber start = ensureSlot(connection, stream);
            PGReplicationStream changes = stream.unwrap(PGConnection.class).getReplicationAPI().replicationStream()
                    .logical().withSlotName(source.slot()).withStartPosition(start)
                    .withSlotOption("proto_version", "1").withSlotOption("publication_names", publication)
                    .withStatusInterval(1, TimeUnit.SECONDS).start();
            LOG.info("outbox relay {} streams slot {} (publication {})", settings.name(), source.slot(), publication);
            if (keeping != null) {
                keeping.setAutoCommit(false);
            }
            try (WalSettler settler = new WalSettler(settling, statements, settings.deleteDelivered(), counters,
                    settings.name());
                 PartitionKeeper keeper = keeping == null ? null
                         : new PartitionKeeper(partitions, statements, settings.countMillis(), keeping, dataSource,
                                 () -> passedMarker, counters, settings.name())) {
                this.keeper = keeper;
                consume(connection, changes, settler);
            } finally {
                this.keeper = null;
            }
        } finally {
            replication = null;
        }
    }

    private void consume(Connection connection, PGReplicationStream changes, WalSettler settler) throws SQLException {
        PgOutput decoder = new PgOutput();
        List<OutboxEvent> transaction = new ArrayList<>();
        List<OutboxEvent> batch = new ArrayList<>();
        List<Long> xids = new ArrayList<>();
        boolean inTransaction = false;
        long confirmable = 0;
        long batchStartNanos = 0;
        long xid = 0;
        long marker = 0;
        while (!closed) {
            settler.check();
            ByteBuffer message = changes.readPending();
            if (message == null) {
                if (!batch.isEmpty()) {
                    if (System.nanoTime() - batchStartNanos < IDLE_LINGER_NANOS) {
                        // A pause in a steady stream: wait a moment for the next commits, so that
                        // a batch (and its visibility check) covers more than one or two rows.
                        LockSupport.parkNanos(LINGER_PARK_NANOS);
                        continue;
                    }
                    deliverStreamed(connection, batch, xids, confirmable, settler);
                }
                if (!inTransaction && settler.idle()) {
                    // Everything received is settled: confirm it (also past WAL of other tables, so
                    // that an idle outbox does not hold WAL back).
                    settler.check();
                    long received = changes.getLastReceiveLSN().asLong();
                    confirm(changes, Math.max(confirmable, received));
                } else {
                    confirm(changes, settler.settledLsn());
                }
                countIfDue(connection);
                sweepIfDue(settler);
                prune();
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                continue;
            }
            switch (decoder.read(message)) {
                case BEGIN -> {
                    inTransaction = true;
                    transaction.clear();
                    xid = Integer.toUnsignedLong(decoder.xid());
                }
                case INSERT -> {
                    OutboxEvent event = event(decoder.relation(), decoder.values());
                    if (event != null) {
                        transaction.add(event);
                    } else if (partitions != null) {
                        marker = Math.max(marker, marker(decoder.relation(), decoder.values()));
                    }
                }
                case COMMIT -> {
                    inTransaction = false;
                    if (marker > 0) {
                        // Everything committed before the marker is in the batch or settled: the
                        // marker is passed once a position at or after its commit is confirmed.
                        confirmable = decoder.endLsn();
                        markers.addLast(new long[] {confirmable, marker});
                        marker = 0;
                    }
                    if (transaction.isEmpty()) {
                        continue; // nothing of the outbox's (before PostgreSQL 15, empty ones come too)
                    }
                    if (batch.isEmpty()) {
                        batchStartNanos = System.nanoTime();
                    }
                    xids.add(xid);
                    batch.addAll(transaction);
                    transaction.clear();
                    confirmable = decoder.endLsn();
                    if (batch.size() >= settings.batchSize() || System.nanoTime() - batchStartNanos >= BATCH_LINGER_NANOS) {
                        deliverStreamed(connection, batch, xids, confirmable, settler);
                        confirm(changes, settler.settledLsn());
                        prune();
                    }
                }
                case OTHER -> { }
            }
        }
        settler.drain();
        confirm(changes, settler.settledLsn(), true);
    }

    /**
     * Delivers streamed rows once their transactions are visible to other sessions: the stream
     * carries a commit as soon as its WAL is flushed, a moment before the committing backend makes
     * it visible, and a delete by id in that moment would find nothing and leave the row pending.
     */
    private void deliverStreamed(Connection connection, List<OutboxEvent> batch, List<Long> xids, long endLsn,
                                 WalSettler settler) throws SQLException {
        if (!batch.isEmpty()) {
            awaitVisible(connection, xids);
            Settlement settlement = deliverRows(batch);
            settler.submit(settlement.ids(), settlement.deaths(), endLsn);
            batch.clear();
        }
        xids.clear();
    }

    private void awaitVisible(Connection connection, List<Long> xids) throws SQLException {
        long deadline = System.nanoTime() + VISIBLE_WITHIN_NANOS;
        try (PreparedStatement check = connection.prepareStatement(NOT_YET_VISIBLE)) {
            Array array = connection.createArrayOf("bigint", xids.toArray());
            check.setArray(1, array);
            while (true) {
                long invisible;
                try (ResultSet rs = check.executeQuery()) {
                    rs.next();
                    invisible = rs.getLong(1);
                }
                connection.commit();
                if (invisible == 0) {
                    break;
                }
                if (System.nanoTime() - deadline > 0) {
                    throw new SQLException("relay " + settings.name() + ": " + invisible + " streamed transactions of "
                            + xids + " still not visible after " + TimeUnit.NANOSECONDS.toSeconds(VISIBLE_WITHIN_NANOS)
                            + " s");
                }
                LockSupport.parkNanos(100_000);
            }
            array.free();
        }
    }

    private void confirm(PGReplicationStream changes, long lsn) throws SQLException {
        confirm(changes, lsn, false);
    }

    /**
     * Moves the slot's position to {@code lsn}. The position is sent at once at most every
     * {@link #CONFIRM_EVERY_NANOS} (and when {@code now}); in between the stream's own status
     * messages carry it within a second: a batch a few milliseconds long does not cost a message
     * to the server, and a slot that lags by that much only resends rows already delivered.
     */
    private void confirm(PGReplicationStream changes, long lsn, boolean now) throws SQLException {
        if (lsn > confirmedLsn) {
            LogSequenceNumber position = LogSequenceNumber.valueOf(lsn);
            changes.setAppliedLSN(position);
            changes.setFlushedLSN(position);
            confirmedLsn = lsn;
        }
        long nanos = System.nanoTime();
        if (confirmedLsn != sentLsn && (now || nanos - lastConfirmNanos >= CONFIRM_EVERY_NANOS)) {
            changes.forceUpdateStatus();
            sentLsn = confirmedLsn;
            lastConfirmNanos = nanos;
        }
        // A marker is passed once the server has the position after it: a relay that restarts
        // then never streams again rows of a partition pruned on the marker's strength.
        while (!markers.isEmpty() && markers.peekFirst()[0] <= sentLsn) {
            passedMarker = markers.pollFirst()[1];
        }
    }

    /** @return the id of a {@link Partitions} marker row, or 0 when the insert is something else */
    private long marker(PgOutput.Relation relation, String[] values) {
        if (!relation.table().equals(table) || !relation.schema().equals(schema)) {
            return 0;
        }
        return Partitions.MARKER_SUBJECT.equals(values[relation.column("subject")])
                && String.valueOf(OutboxSql.DELIVERED).equals(values[relation.column("status")])
                ? Long.parseLong(values[relation.column("id")]) : 0;
    }

    /** Insert-only layout: keeps partitions ahead and truncates those the relay has passed (once a second). */
    private void prune() {
        PartitionKeeper k = keeper;
        if (k != null) {
            k.offer();
        }
    }

    private Connection openReplication() throws SQLException {
        Properties properties = new Properties();
        if (source.user() != null) {
            PGProperty.USER.set(properties, source.user());
        }
        if (source.password() != null) {
            PGProperty.PASSWORD.set(properties, source.password());
        }
        PGProperty.REPLICATION.set(properties, "database");
        PGProperty.ASSUME_MIN_SERVER_VERSION.set(properties, "10");
        PGProperty.PREFER_QUERY_MODE.set(properties, "simple");
        // Timestamps in the stream are rendered in the session's zone: make it UTC.
        PGProperty.OPTIONS.set(properties, "-c TimeZone=UTC");
        return DriverManager.getConnection(source.jdbcUrl(), properties);
    }

    private void ensurePublication(Connection connection) throws SQLException {
        try (PreparedStatement find = connection.prepareStatement("SELECT 1 FROM pg_publication WHERE pubname = ?")) {
            find.setString(1, publication);
            try (ResultSet rs = find.executeQuery()) {
                if (rs.next()) {
                    connection.commit();
                    return;
                }
            }
        }
        try (Statement create = connection.createStatement()) {
            // An insert-only table's rows are inserted into its partitions: published as the table's.
            create.execute("CREATE PUBLICATION " + publication + " FOR TABLE " + schema + "." + table
                    + " WITH (publish = 'insert'" + (partitions != null ? ", publish_via_partition_root = true" : "") + ")");
            connection.commit();
        } catch (SQLException e) {
            connection.rollback();
            if (!"42710".equals(e.getSQLState())) { // another relay created it meanwhile
                throw e;
            }
        }
    }

    /**
     * Creates the slot when it does not exist, delivering the rows already pending as of its
     * exported snapshot; returns where to start streaming. A catch-up that did not finish (the
     * relay died during it) runs again at the next start, in a fresh snapshot: rows it delivers
     * that the stream also carries come twice, within the at-least-once contract, and none is lost.
     */
    private LogSequenceNumber ensureSlot(Connection connection, Connection stream) throws SQLException {
        String caughtUp = schema + "." + table + "_wal";
        try (Statement create = connection.createStatement()) {
            create.execute("CREATE TABLE IF NOT EXISTS " + caughtUp
                    + " (slot VARCHAR(63) PRIMARY KEY, caught_up BOOLEAN NOT NULL)");
            connection.commit();
        } catch (SQLException e) {
            connection.rollback();
            if (!"23505".equals(e.getSQLState()) && !"42P07".equals(e.getSQLState())) { // created meanwhile
                throw e;
            }
        }
        if (partitions != null) {
            String other = otherSlot(connection, schema, table, source.slot());
            connection.commit();
            if (other != null) {
                throw new IllegalStateException(oneSlot(schema + "." + table, other, source.slot()));
            }
        }
        boolean exists;
        boolean caught;
        try (PreparedStatement find = connection.prepareStatement("SELECT (SELECT count(*) FROM pg_replication_slots"
                + " WHERE slot_name = ? AND database = current_database()), (SELECT caught_up FROM " + caughtUp
                + " WHERE slot = ?)")) {
            find.setString(1, source.slot());
            find.setString(2, source.slot());
            try (ResultSet rs = find.executeQuery()) {
                rs.next();
                exists = rs.getLong(1) > 0;
                caught = rs.getBoolean(2);
            }
        }
        connection.commit();
        if (exists) {
            if (!caught) {
                LOG.info("outbox relay {}: the catch-up of slot {} did not finish; running it again", settings.name(),
                        source.slot());
                catchUp(null);
                markCaughtUp(connection, caughtUp);
            }
            return LogSequenceNumber.INVALID_LSN; // the slot's own confirmed position
        }
        try (PreparedStatement mark = connection.prepareStatement("INSERT INTO " + caughtUp + " (slot, caught_up)"
                + " VALUES (?, false) ON CONFLICT (slot) DO UPDATE SET caught_up = false")) {
            mark.setString(1, source.slot());
            mark.executeUpdate();
            connection.commit();
        }
        ReplicationSlotInfo slot = stream.unwrap(PGConnection.class).getReplicationAPI().createReplicationSlot()
                .logical().withSlotName(source.slot()).withOutputPlugin("pgoutput").make();
        LOG.info("outbox relay {} created slot {} at {}", settings.name(), source.slot(), slot.getConsistentPoint());
        catchUp(slot.getSnapshotName());
        markCaughtUp(connection, caughtUp);
        return slot.getConsistentPoint();
    }

    /**
     * An insert-only table is pruned by the relay that streams it, as far as its own slot has
     * delivered: a second slot on it would find rows gone (its dead letters, its catch-up), and two
     * relays would create the same partitions.
     *
     * @return another replication slot that still exists and has streamed this table, or {@code null}
     */
    public static String otherSlot(Connection c, String schema, String table, String slot) throws SQLException {
        String caughtUp = schema + "." + table + "_wal";
        try (PreparedStatement exists = c.prepareStatement("SELECT to_regclass(?) IS NOT NULL")) {
            exists.setString(1, caughtUp);
            try (ResultSet rs = exists.executeQuery()) {
                rs.next();
                if (!rs.getBoolean(1)) {
                    return null;
                }
            }
        }
        try (PreparedStatement find = c.prepareStatement("SELECT w.slot FROM " + caughtUp + " w JOIN pg_replication_slots r"
                + " ON r.slot_name = w.slot AND r.database = current_database() WHERE w.slot <> ? ORDER BY w.slot LIMIT 1")) {
            find.setString(1, slot);
            try (ResultSet rs = find.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        }
    }

    /** @return the refusal of a second slot on an insert-only table, naming both */
    public static String oneSlot(String table, String other, String slot) {
        return "insert-only outbox table " + table + " is streamed through slot " + other + ", so it cannot be through"
                + " slot " + slot + " too (pruning follows one slot): use slot " + other + ", or drop it first"
                + " (SELECT pg_drop_replication_slot('" + other + "'))";
    }

    private void markCaughtUp(Connection connection, String caughtUp) throws SQLException {
        try (PreparedStatement mark = connection.prepareStatement("UPDATE " + caughtUp + " SET caught_up = true"
                + " WHERE slot = ?")) {
            mark.setString(1, source.slot());
            mark.executeUpdate();
            connection.commit();
        }
    }

    /**
     * Delivers the rows pending in the slot's exported snapshot (or, for {@code null}, in a new
     * one), in id order, a batch at a time.
     */
    private void catchUp(String snapshot) throws SQLException {
        try (Connection reader = dataSource.getConnection(); Connection writer = dataSource.getConnection()) {
            reader.setAutoCommit(false);
            writer.setAutoCommit(false);
            try (Statement statement = reader.createStatement()) {
                statement.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ");
                if (snapshot != null) {
                    statement.execute("SET TRANSACTION SNAPSHOT '" + snapshot.replace("'", "") + "'");
                }
            }
            long total = 0;
            try (PreparedStatement select = reader.prepareStatement("SELECT " + OutboxSql.COLUMNS + " FROM " + schema + "."
                    + table + " WHERE status = " + OutboxSql.PENDING + " ORDER BY id")) {
                select.setFetchSize(settings.batchSize());
                try (ResultSet rs = select.executeQuery()) {
                    List<OutboxEvent> batch = new ArrayList<>();
                    while (rs.next()) {
                        batch.add(new OutboxEvent(rs.getLong(1), settings.eventIdPrefix() + rs.getLong(1), rs.getString(2),
                                rs.getString(3), rs.getBytes(4), HeaderCodec.decode(rs.getString(5)), rs.getInt(6),
                                rs.getTimestamp(7).toInstant()));
                        if (batch.size() >= settings.batchSize()) {
                            deliver(writer, batch);
                            total += batch.size();
                            batch.clear();
                        }
                    }
                    deliver(writer, batch);
                    total += batch.size();
                }
            }
            reader.commit();
            LOG.info("outbox relay {} delivered the {} rows pending before slot {}", settings.name(), total,
                    source.slot());
        }
    }

    private OutboxEvent event(PgOutput.Relation relation, String[] values) {
        if (!relation.table().equals(table) || !relation.schema().equals(schema)) {
            return null;
        }
        String status = values[relation.column("status")];
        if (status != null && Integer.parseInt(status) != OutboxSql.PENDING) {
            return null;
        }
        long id = Long.parseLong(values[relation.column("id")]);
        String payload = values[relation.column("payload")];
        String attempts = values[relation.column("attempts")];
        return new OutboxEvent(id, settings.eventIdPrefix() + id, values[relation.column("subject")],
                values[relation.column("msg_key")], HexFormat.of().parseHex(payload, 2, payload.length()),
                HeaderCodec.decode(values[relation.column("headers")]), attempts == null ? 0 : Integer.parseInt(attempts),
                timestamp(values[relation.column("created_at")]));
    }

    /**
     * Reads a {@code timestamptz} as the stream renders it in UTC, {@code 2026-11-28 00:15:12.123456+00}:
     * the common shape by hand (a formatter's parse was a tenth of the relay thread's time), any
     * other (a year past 9999, another offset) by the formatter.
     */
    static Instant timestamp(String text) {
        int n = text.length();
        if (n >= 22 && text.charAt(4) == '-' && text.charAt(10) == ' ' && text.charAt(19) != ':'
                && text.endsWith("+00")) {
            int end = n - 3;
            int nanos = 0;
            if (end > 19) {
                if (text.charAt(19) != '.' || end - 20 > 9) {
                    return OffsetDateTime.parse(text, PG_TIMESTAMP).toInstant();
                }
                for (int i = 20; i < 29; i++) {
                    nanos = nanos * 10 + (i < end ? digit(text, i) : 0);
                }
            }
            long days = java.time.LocalDate.of(digits(text, 0, 4), digits(text, 5, 2), digits(text, 8, 2)).toEpochDay();
            long seconds = days * 86_400 + digits(text, 11, 2) * 3_600L + digits(text, 14, 2) * 60L + digits(text, 17, 2);
            return Instant.ofEpochSecond(seconds, nanos);
        }
        return OffsetDateTime.parse(text, PG_TIMESTAMP).toInstant();
    }

    private static int digits(String text, int from, int count) {
        int value = 0;
        for (int i = from; i < from + count; i++) {
            value = value * 10 + digit(text, i);
        }
        return value;
    }

    private static int digit(String text, int i) {
        int d = text.charAt(i) - '0';
        if (d < 0 || d > 9) {
            throw new java.time.format.DateTimeParseException("not a digit at " + i, text, i);
        }
        return d;
    }

    /**
     * Delivers rows in order per key (keys in parallel), retrying failures in place, then deletes
     * (or marks) the delivered ones and dead-letters the rest, and commits: the catch-up's path.
     */
    private void deliver(Connection connection, List<OutboxEvent> rows) throws SQLException {
        if (rows.isEmpty()) {
            return;
        }
        Settlement settlement = deliverRows(rows);
        WalSettler.settle(connection, statements, settings.deleteDelivered(), counters, settlement.ids(),
                settlement.deaths());
    }

    /** What a delivered batch leaves to settle: the rows delivered and those to dead-letter. */
    private record Settlement(long[] ids, List<OutboxStatements.Failure> deaths) {
    }

    /** Delivers rows in order per key (keys in parallel), retrying failures in place. */
    private Settlement deliverRows(List<OutboxEvent> rows) {
        counters.batches.increment();
        List<OutboxEvent> remaining = new ArrayList<>(rows);
        List<Long> deliveredIds = new ArrayList<>(rows.size());
        List<OutboxStatements.Failure> deaths = new ArrayList<>();
        while (!remaining.isEmpty()) {
            counters.inFlight.set(remaining.size());
            Outcome[] outcomes = attempt(remaining);
            List<OutboxEvent> again = new ArrayList<>();
            long wait = Long.MAX_VALUE;
            for (int i = 0; i < remaining.size(); i++) {
                OutboxEvent event = remaining.get(i);
                Outcome outcome = outcomes[i];
                if (outcome == null) {
                    again.add(event); // an earlier row of its key failed: it goes after that one
                } else if (outcome.delayMillis() == 0 && outcome.error() == null) {
                    deliveredIds.add(event.id());
                } else if (outcome.delayMillis() < 0) {
                    deaths.add(new OutboxStatements.Failure(event.id(), -1, outcome.error()));
                } else {
                    again.add(new OutboxEvent(event.id(), event.eventId(), event.subject(), event.key(), event.payload(),
                            event.headers(), event.attempts() + 1, event.createdAt()));
                    wait = Math.min(wait, outcome.delayMillis());
                }
            }
            if (closed && !again.isEmpty()) {
                counters.inFlight.set(0);
                throw new IllegalStateException("relay " + settings.name() + " stopped with " + again.size()
                        + " rows undelivered; the slot resumes before them");
            }
            if (wait != Long.MAX_VALUE) {
                pause(wait);
            }
            remaining = again;
        }
        counters.inFlight.set(0);
        return new Settlement(deliveredIds.stream().mapToLong(Long::longValue).toArray(), deaths);
    }

    private Outcome[] attempt(List<OutboxEvent> rows) {
        Outcome[] outcomes = new Outcome[rows.size()];
        long startNanos = System.nanoTime();
        List<CompletableFuture<Boolean>> chains = new ArrayList<>();
        Map<String, CompletableFuture<Boolean>> tails = new HashMap<>();
        for (int i = 0; i < rows.size(); i++) {
            OutboxEvent event = rows.get(i);
            int index = i;
            if (event.key() == null) {
                chains.add(deliverOne(event, index, outcomes, startNanos));
                continue;
            }
            CompletableFuture<Boolean> tail = tails.get(event.key());
            tails.put(event.key(), tail == null ? deliverOne(event, index, outcomes, startNanos)
                    : tail.thenCompose(ok -> ok ? deliverOne(event, index, outcomes, startNanos) : NOT_DELIVERED));
        }
        chains.addAll(tails.values());
        try {
            CompletableFuture.allOf(chains.toArray(new CompletableFuture<?>[0])).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("relay " + settings.name() + " interrupted while delivering", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("relay " + settings.name() + ": a delivery chain failed", e.getCause());
        }
        return outcomes;
    }

    private CompletableFuture<Boolean> deliverOne(OutboxEvent event, int index, Outcome[] outcomes, long startNanos) {
        SinkChannel channel = routes.route(event.subject());
        if (channel == null) {
            outcomes[index] = new Outcome(-1, "no route matches subject " + event.subject());
            return NOT_DELIVERED;
        }
        return channel.submit(event).thenApply(failure -> {
            if (failure == null) {
                long ageMicros = Math.max(0, java.time.Duration.between(event.createdAt(), Instant.now()).toNanos() / 1000);
                channel.recordDelivered(Math.max(ageMicros, (System.nanoTime() - startNanos) / 1000));
                outcomes[index] = Outcome.DELIVERED;
                return true;
            }
            Throwable cause = RelayLoop.unwrap(failure);
            int failures = event.attempts() + 1;
            String error = RelayLoop.describe(cause, failures, settings.deliveryTimeoutMillis());
            if (cause instanceof PermanentDeliveryException || failures >= settings.retryPolicy().maxAttempts()) {
                channel.recordDead();
                outcomes[index] = new Outcome(-1, error);
            } else {
                channel.recordRetried();
                counters.retried.increment();
                outcomes[index] = new Outcome(settings.retryPolicy().backoffMillis(failures), error);
            }
            return false;
        });
    }

    /**
     * Rows kept (deleteDelivered(false)) or archived are swept by the retention on the settle
     * thread, one pass of at most {@link RelayLoop#SWEEP_BUDGET_NANOS} at a time: a pass that does
     * not finish is followed by the next one, behind the batches queued meanwhile, so a large
     * backlog of expired rows holds the settles (and, past two batches, the stream) up for one
     * pass at most, not for the whole sweep.
     */
    private void sweepIfDue(WalSettler settler) {
        long now = System.nanoTime();
        if (keeper != null) {
            return;
        }
        boolean due = now - nextSweepNanos >= 0;
        if (due || settler.sweepUnfinished()) {
            if (due) {
                nextSweepNanos = now + TimeUnit.MILLISECONDS.toNanos(settings.sweepMillis());
            }
            settler.sweep(settings.retentionMillis(), RelayLoop.SWEEP_CHUNK, RelayLoop.SWEEP_BUDGET_NANOS);
        }
    }

    private void countIfDue(Connection connection) throws SQLException {
        long now = System.nanoTime();
        PartitionKeeper k = keeper;
        if (k != null) {
            // Insert-only: counted by the keeper, whose pruning locks partitions a count over the
            // table would wait on (the stream with it).
            pending = -1;
            dead = k.dead();
            return;
        }
        if (now - nextCountNanos >= 0) {
            nextCountNanos = now + TimeUnit.MILLISECONDS.toNanos(settings.countMillis());
            long[] counts = statements.countPendingAndDead(connection);
            connection.commit();
            pending = counts[0];
            dead = counts[1];
        }
    }

    private void pause(long millis) {
        try {
            if (wakeups.tryAcquire(millis, TimeUnit.MILLISECONDS)) {
                wakeups.drainPermits();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            closed = true;
        }
    }

    @Override
    public void addTo(long[] totals) {
        counters.addTo(totals);
    }

    @Override
    public long pending() {
        return pending;
    }

    @Override
    public long dead() {
        return dead;
    }

    @Override
    public boolean busy() {
        return true;
    }

    @Override
    public void stop() {
        closed = true;
        wakeups.release();
    }

    @Override
    public boolean await(long deadlineNanos) {
        try {
            thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime())));
            if (thread.isAlive()) {
                Connection stream = replication;
                if (stream != null) {
                    try {
                        stream.close();
                    } catch (SQLException ignored) {
                        // closing is all we can do
                    }
                }
                thread.interrupt();
                thread.join(1_000);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return !thread.isAlive();
    }

    /** How one attempt ended: delivered, retry after {@code delayMillis}, or dead ({@code < 0}). */
    private record Outcome(long delayMillis, String error) {
        static final Outcome DELIVERED = new Outcome(0, null);
    }
}
