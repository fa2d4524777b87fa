package io.ringbus.outbox.internal;

import io.ringbus.outbox.OutboxCounts;
import io.ringbus.outbox.OutboxEvent;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Runs the statements of {@link OutboxSql} on a given connection. Never commits or rolls back:
 * transactions belong to the caller (the application for appends, the relay for batches).
 */
public final class OutboxStatements {
    private final OutboxSql sql;
    private final boolean pg;

    /**
     * @param sql the statements for one table and dialect
     */
    public OutboxStatements(OutboxSql sql) {
        this.sql = sql;
        this.pg = sql.dialect == Dialect.POSTGRESQL;
    }

    /** @return the same statements, but a delivered row's deletion also archives it ({@link OutboxSql#archive()}) */
    public OutboxStatements archiving() {
        return sql.archive ? this : new OutboxStatements(new OutboxSql(sql.dialect, sql.table, sql.channel,
                sql.insertOnly, true));
    }

    /** @return the statements */
    public OutboxSql sql() {
        return sql;
    }

    /**
     * Inserts one row; with a key, first takes that key's row lock (see {@link OutboxSql}).
     *
     * @return the row id
     */
    public long append(Connection c, String subject, String key, byte[] payload, String headers) throws SQLException {
        if (key == null) {
            try (PreparedStatement insert = prepareInsert(c, sql.appendRow)) {
                insert.setString(1, subject);
                insert.setBytes(2, payload);
                insert.setString(3, headers);
                if (pg && !sql.insertOnly) {
                    // No order to keep: any bucket, spread so that every relay gets a share.
                    insert.setShort(4, (short) ThreadLocalRandom.current().nextInt(OutboxSql.BUCKETS));
                }
                return insertedId(insert);
            }
        }
        if (pg) {
            try (PreparedStatement insert = c.prepareStatement(sql.appendKeyedRow)) {
                insert.setString(1, subject);
                insert.setString(2, key);
                insert.setBytes(3, payload);
                insert.setString(4, headers);
                if (!sql.insertOnly) {
                    insert.setString(5, key);
                    insert.setString(6, key);
                }
                return insertedId(insert);
            }
        }
        try (PreparedStatement lockKey = c.prepareStatement(sql.appendKey)) {
            lockKey.setString(1, key);
            lockKey.executeUpdate();
        }
        try (PreparedStatement insert = prepareInsert(c, sql.appendKeyedRow)) {
            insert.setString(1, subject);
            insert.setString(2, key);
            insert.setBytes(3, payload);
            insert.setString(4, headers);
            return insertedId(insert);
        }
    }

    private PreparedStatement prepareInsert(Connection c, String statement) throws SQLException {
        return pg ? c.prepareStatement(statement) : c.prepareStatement(statement, Statement.RETURN_GENERATED_KEYS);
    }

    private long insertedId(PreparedStatement insert) throws SQLException {
        if (pg) {
            try (ResultSet rs = insert.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
        insert.executeUpdate();
        try (ResultSet rs = insert.getGeneratedKeys()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** @return the row counts by status */
    public OutboxCounts counts(Connection c) throws SQLException {
        if (sql.insertOnly) {
            return new OutboxCounts(-1, -1, countPendingAndDead(c)[1]);
        }
        long pending = 0;
        long delivered = 0;
        long dead = 0;
        try (Statement statement = c.createStatement(); ResultSet rs = statement.executeQuery(sql.countByStatus)) {
            while (rs.next()) {
                switch (rs.getInt(1)) {
                    case OutboxSql.PENDING -> pending = rs.getLong(2);
                    case OutboxSql.DELIVERED -> delivered = rs.getLong(2);
                    case OutboxSql.DEAD -> dead = rs.getLong(2);
                    default -> { }
                }
            }
        }
        return new OutboxCounts(pending, delivered, dead);
    }

    /** @return {pending, dead} row counts (cheap: both are served by partial indexes on PostgreSQL) */
    public long[] countPendingAndDead(Connection c) throws SQLException {
        try (Statement statement = c.createStatement();
             ResultSet rs = statement.executeQuery(sql.countPendingAndDead)) {
            rs.next();
            return new long[] {rs.getLong(1), rs.getLong(2)};
        }
    }

    /** @return whether relays lease buckets of rows (PostgreSQL) rather than compete for rows (H2) */
    public boolean leased() {
        return pg;
    }

    /**
     * H2: claims up to {@code limit} due pending rows in id order, locking them (SKIP LOCKED) until
     * the caller's transaction ends, each marked when it must wait (see {@link ClaimedRow#blocked()}).
     */
    public List<ClaimedRow> claim(Connection c, int limit, String eventIdPrefix) throws SQLException {
        List<ClaimedRow> rows = new ArrayList<>(Math.min(limit, 1024));
        try (PreparedStatement select = c.prepareStatement(sql.claim)) {
            select.setInt(1, limit);
            try (ResultSet rs = select.executeQuery()) {
                while (rs.next()) {
                    rows.add(claimed(rs, eventIdPrefix, -1));
                }
            }
        }
        return withBlockers(c, rows);
    }

    /**
     * PostgreSQL: claims due pending rows of the buckets {@code member} holds a valid lease on, up
     * to {@code limits[i]} of bucket {@code buckets[i]}, each bucket's in id order; the buckets that
     * gave rows stay share-locked until the caller's transaction ends, so no other member can take
     * them over while the rows are in flight (an empty claim locks nothing and writes nothing).
     *
     * @param buckets the buckets to read (those the member believes it holds)
     * @param limits  the most rows to read from each
     */
    public List<ClaimedRow> claimLeased(Connection c, String member, int[] buckets, int[] limits, String eventIdPrefix)
            throws SQLException {
        return claimLeased(c, member, buckets, limits, eventIdPrefix, false);
    }

    /**
     * PostgreSQL: {@link #claimLeased(Connection, String, int[], int[], String)}, and with
     * {@code delete} the rows are deleted by the same statement: the caller commits after
     * delivering them, or rolls back to make them pending again. The buckets are then checked but
     * not locked: the deletion's row locks hold a member that takes one over off the rows in flight.
     *
     * @param delete delete the claimed rows in the claim's statement
     * @return the rows in id order
     */
    public List<ClaimedRow> claimLeased(Connection c, String member, int[] buckets, int[] limits, String eventIdPrefix,
                                        boolean delete) throws SQLException {
        List<ClaimedRow> rows = new ArrayList<>();
        try (PreparedStatement select = c.prepareStatement(delete ? sql.claimAndDelete : sql.claimLeased)) {
            Array bucketArray = c.createArrayOf("smallint", boxShorts(buckets));
            Array limitArray = c.createArrayOf("integer", boxInts(limits));
            select.setArray(1, bucketArray);
            select.setArray(2, limitArray);
            select.setString(3, member);
            // The SET LOCALs, then the query: one round trip; the query's rows follow their update counts.
            boolean rowsNext = select.execute();
            while (!rowsNext && select.getUpdateCount() != -1) {
                rowsNext = select.getMoreResults();
            }
            if (!rowsNext) {
                throw new SQLException("the claim returned no result set");
            }
            try (ResultSet rs = select.getResultSet()) {
                Instant dbNow = null;
                while (rs.next()) {
                    // Timestamps as OffsetDateTime, not through getTimestamp's Calendar (once the
                    // largest share of the loop's own time); the database clock read once a batch.
                    long id = rs.getLong(1);
                    Instant createdAt = rs.getObject(7, OffsetDateTime.class).toInstant();
                    if (dbNow == null) {
                        dbNow = rs.getObject(8, OffsetDateTime.class).toInstant();
                    }
                    OutboxEvent event = new OutboxEvent(id, eventIdPrefix + id, rs.getString(2), rs.getString(3),
                            rs.getBytes(4), HeaderCodec.decode(rs.getString(5)), rs.getInt(6), createdAt);
                    rows.add(new ClaimedRow(event, micros(createdAt, dbNow), false, rs.getInt(9)));
                }
            }
            bucketArray.free();
            limitArray.free();
        }
        if (delete) {
            // RETURNING comes in the plan's order; a key's rows must go out in id order.
            rows.sort(Comparator.comparingLong(row -> row.event().id()));
        }
        return rows;
    }

    /** @return microseconds from {@code from} to {@code to}, at least 0 */
    private static long micros(Instant from, Instant to) {
        long micros = (to.getEpochSecond() - from.getEpochSecond()) * 1_000_000L + (to.getNano() - from.getNano()) / 1_000;
        return Math.max(0, micros);
    }

    private static ClaimedRow claimed(ResultSet rs, String eventIdPrefix, int bucket) throws SQLException {
        OutboxEvent event = event(rs, eventIdPrefix);
        Instant dbNow = rs.getTimestamp(8).toInstant();
        long ageMicros = Math.max(0, java.time.Duration.between(event.createdAt(), dbNow).toNanos() / 1000);
        return new ClaimedRow(event, ageMicros, false, bucket);
    }

    /**
     * PostgreSQL: one lease round for {@code member}, in the caller's transaction (committed by the
     * caller): records it alive, renews the leases it holds, then gives back what it holds over its
     * fair share ({@code ceil(BUCKETS / live members)}) or takes free and expired buckets up to it.
     *
     * @param leaseMillis how long a lease and a heartbeat stay valid
     * @param minMembers  members known to exist even before their first heartbeat (the loops of the
     *                    caller's relay), so that a relay's loops split the buckets from the start
     * @return the buckets the member holds now, ascending
     */
    public int[] leaseRound(Connection c, String member, long leaseMillis, int minMembers) throws SQLException {
        try (PreparedStatement heartbeat = c.prepareStatement(sql.heartbeat)) {
            heartbeat.setString(1, member);
            heartbeat.executeUpdate();
        }
        int fair = fairShare(Math.max(minMembers, liveMembers(c, leaseMillis)));
        TreeSet<Integer> held = new TreeSet<>();
        try (PreparedStatement renew = c.prepareStatement(sql.renewBuckets)) {
            renew.setLong(1, leaseMillis);
            renew.setString(2, member);
            collect(renew, held);
        }
        if (held.size() > fair) {
            List<Integer> extra = new ArrayList<>();
            while (held.size() > fair) {
                extra.add(held.pollLast());
            }
            try (PreparedStatement release = c.prepareStatement(sql.releaseBuckets)) {
                Array array = c.createArrayOf("smallint", extra.stream().map(Integer::shortValue).toArray(Short[]::new));
                release.setString(1, member);
                release.setArray(2, array);
                release.executeUpdate();
                array.free();
            }
        } else if (held.size() < fair) {
            try (PreparedStatement acquire = c.prepareStatement(sql.acquireBuckets)) {
                acquire.setString(1, member);
                acquire.setLong(2, leaseMillis);
                acquire.setInt(3, fair - held.size());
                collect(acquire, held);
            }
        }
        try (PreparedStatement forget = c.prepareStatement(sql.forgetMembers)) {
            forget.setLong(1, leaseMillis * 10);
            forget.executeUpdate();
        }
        return held.stream().mapToInt(Integer::intValue).toArray();
    }

    /**
     * PostgreSQL: members that heartbeat within the lease time; a read, no write.
     *
     * @param leaseMillis how long a heartbeat stays valid
     * @return live members, at least 1
     */
    public int liveMembers(Connection c, long leaseMillis) throws SQLException {
        try (PreparedStatement count = c.prepareStatement(sql.liveMembers)) {
            count.setLong(1, leaseMillis);
            try (ResultSet rs = count.executeQuery()) {
                rs.next();
                return Math.max(1, rs.getInt(1));
            }
        }
    }

    /**
     * PostgreSQL: what a member checks between lease rounds; a read, no write.
     *
     * @param leaseMillis how long a heartbeat stays valid
     * @return {live members (at least 1), buckets free or expired}
     */
    public int[] balanceCheck(Connection c, long leaseMillis) throws SQLException {
        try (PreparedStatement check = c.prepareStatement(sql.balanceCheck)) {
            check.setLong(1, leaseMillis);
            try (ResultSet rs = check.executeQuery()) {
                rs.next();
                return new int[] {Math.max(1, rs.getInt(1)), rs.getInt(2)};
            }
        }
    }

    /**
     * @param members live members
     * @return the buckets each may hold: {@code ceil(BUCKETS / members)}
     */
    public static int fairShare(int members) {
        return (OutboxSql.BUCKETS + members - 1) / members;
    }

    /** PostgreSQL: gives back every bucket {@code member} holds and forgets it (a clean stop). */
    public void leave(Connection c, String member) throws SQLException {
        try (PreparedStatement leave = c.prepareStatement(sql.leave)) {
            leave.setString(1, member);
            leave.setString(2, member);
            leave.executeUpdate();
        }
    }

    private static void collect(PreparedStatement statement, Set<Integer> into) throws SQLException {
        try (ResultSet rs = statement.executeQuery()) {
            while (rs.next()) {
                into.add(rs.getInt(1));
            }
        }
    }

    /** H2: one query per claimed key for the first pending row of that key outside the claim. */
    private List<ClaimedRow> withBlockers(Connection c, List<ClaimedRow> rows) throws SQLException {
        Map<String, List<Long>> claimedByKey = new HashMap<>();
        for (ClaimedRow row : rows) {
            if (row.event().key() != null) {
                claimedByKey.computeIfAbsent(row.event().key(), k -> new ArrayList<>()).add(row.event().id());
            }
        }
        if (claimedByKey.isEmpty()) {
            return rows;
        }
        Map<String, Long> blockers = new HashMap<>();
        try (PreparedStatement select = c.prepareStatement(sql.blockers)) {
            for (Map.Entry<String, List<Long>> entry : claimedByKey.entrySet()) {
                List<Long> claimed = entry.getValue();
                select.setString(1, entry.getKey());
                select.setInt(2, claimed.size() + 1);
                int index = 0;
                try (ResultSet rs = select.executeQuery()) {
                    while (rs.next()) {
                        long id = rs.getLong(1);
                        if (index >= claimed.size() || claimed.get(index) != id) {
                            blockers.put(entry.getKey(), id);
                            break;
                        }
                        index++;
                    }
                }
            }
        }
        List<ClaimedRow> result = new ArrayList<>(rows.size());
        for (ClaimedRow row : rows) {
            Long blocker = row.event().key() == null ? null : blockers.get(row.event().key());
            result.add(blocker == null || row.event().id() < blocker ? row
                    : new ClaimedRow(row.event(), row.ageMicros(), true, -1));
        }
        return result;
    }

    /** Marks rows delivered, or deletes them (and archives them, when the relay archives). */
    public void delivered(Connection c, long[] ids, boolean delete) throws SQLException {
        if (ids.length == 0) {
            return;
        }
        if (delete && sql.archiveDelivered != null) {
            byId(c, sql.archiveDelivered, ids);
        }
        String statement = delete ? sql.deleteDelivered : sql.markDelivered;
        if (!pg) {
            byId(c, statement, ids);
            return;
        }
        try (PreparedStatement update = c.prepareStatement(statement)) {
            Array array = c.createArrayOf("bigint", box(ids));
            update.setArray(1, array);
            update.executeUpdate();
            array.free();
        }
    }

    /** H2: one execution of {@code statement} per id, in a batch. */
    private static void byId(Connection c, String statement, long[] ids) throws SQLException {
        try (PreparedStatement update = c.prepareStatement(statement)) {
            for (long id : ids) {
                update.setLong(1, id);
                update.addBatch();
            }
            update.executeBatch();
        }
    }

    /**
     * Marks rows delivered (or deletes them) and commits, in one round trip where the database
     * allows it (PostgreSQL: the statement and COMMIT travel together); elsewhere the two calls.
     *
     * @param ids    delivered rows, at least one
     * @param delete delete instead of marking
     */
    public void deliveredAndCommit(Connection c, long[] ids, boolean delete) throws SQLException {
        if (!pg) {
            delivered(c, ids, delete);
            c.commit();
            return;
        }
        try (PreparedStatement update = c.prepareStatement(delete ? sql.deleteDeliveredAndCommit
                : sql.markDeliveredAndCommit)) {
            Array array = c.createArrayOf("bigint", box(ids));
            update.setArray(1, array);
            update.execute();
            array.free();
        }
    }

    /** A failed row: to retry after {@code delayMillis}, or dead when {@code delayMillis < 0}. */
    public record Failure(long id, long delayMillis, String error) {
    }

    /** Records failed attempts: schedules retries and moves the rest to the dead letters. */
    public void failed(Connection c, List<Failure> failures) throws SQLException {
        if (failures.isEmpty()) {
            return;
        }
        try (PreparedStatement retry = c.prepareStatement(sql.retry);
             PreparedStatement dead = c.prepareStatement(sql.dead)) {
            boolean retries = false;
            boolean deaths = false;
            for (Failure failure : failures) {
                String error = failure.error().length() > 2000 ? failure.error().substring(0, 2000) : failure.error();
                if (failure.delayMillis() >= 0) {
                    retry.setLong(1, failure.delayMillis());
                    retry.setString(2, error);
                    retry.setLong(3, failure.id());
                    retry.addBatch();
                    retries = true;
                } else {
                    dead.setString(1, error);
                    dead.setLong(2, failure.id());
                    dead.addBatch();
                    deaths = true;
                }
            }
            if (retries) {
                retry.executeBatch();
            }
            if (deaths) {
                dead.executeBatch();
            }
        }
    }

    /**
     * What one {@link #sweep} pass did.
     *
     * @param rows     event and archive rows deleted
     * @param finished whether nothing past the retention is left; else the pass ran out of its
     *                 time and the caller sweeps again soon
     */
    public record Swept(long rows, boolean finished) {
    }

    /**
     * Deletes delivered rows and archived rows older than the retention, and key rows idle that
     * long with nothing pending, in chunks, each committed, until none is left or
     * {@code budgetNanos} is spent (a chunk started is finished): a relay sweeps between its
     * batches, and a large backlog of expired rows must not hold its delivery up until all are gone.
     *
     * @return how many rows were deleted, and whether the sweep is finished
     */
    public Swept sweep(Connection c, long retentionMillis, int chunk, long budgetNanos) throws SQLException {
        long deadline = System.nanoTime() + budgetNanos;
        long[] total = new long[1];
        boolean finished = sweepChunks(c, sql.sweepDelivered, retentionMillis, chunk, deadline, total)
                && sweepChunks(c, sql.sweepArchive, retentionMillis, chunk, deadline, total);
        if (finished && sql.sweepKeys != null) {
            try (PreparedStatement delete = c.prepareStatement(sql.sweepKeys)) {
                delete.setLong(1, retentionMillis);
                delete.executeUpdate();
                c.commit();
            }
        }
        return new Swept(total[0], finished);
    }

    /** @return whether the statement found fewer rows than a chunk (done) before the deadline */
    private static boolean sweepChunks(Connection c, String statement, long retentionMillis, int chunk, long deadline,
                                       long[] total) throws SQLException {
        try (PreparedStatement delete = c.prepareStatement(statement)) {
            delete.setLong(1, retentionMillis);
            delete.setInt(2, chunk);
            while (true) {
                int deleted = delete.executeUpdate();
                c.commit();
                total[0] += deleted;
                if (deleted < chunk) {
                    return true;
                }
                if (System.nanoTime() - deadline >= 0) {
                    return false;
                }
            }
        }
    }

    /** @return the event of a row read with {@link OutboxSql#COLUMNS} first */
    static OutboxEvent event(ResultSet rs, String eventIdPrefix) throws SQLException {
        long id = rs.getLong(1);
        return new OutboxEvent(id, eventIdPrefix + id, rs.getString(2), rs.getString(3), rs.getBytes(4),
                HeaderCodec.decode(rs.getString(5)), rs.getInt(6), rs.getTimestamp(7).toInstant());
    }

    private static Short[] boxShorts(int[] values) {
        Short[] boxed = new Short[values.length];
        for (int i = 0; i < values.length; i++) {
            boxed[i] = (short) values[i];
        }
        return boxed;
    }

    private static Integer[] boxInts(int[] values) {
        Integer[] boxed = new Integer[values.length];
        for (int i = 0; i < values.length; i++) {
            boxed[i] = values[i];
        }
        return boxed;
    }

    private static Long[] box(long[] values) {
        Long[] boxed = new Long[values.length];
        for (int i = 0; i < values.length; i++) {
            boxed[i] = values[i];
        }
        return boxed;
    }
}
