package io.ringbus.outbox.internal;

/**
 * Every statement the outbox runs, for one table and dialect, built once.
 *
 * <p>Rows have a {@code status}: {@value #PENDING} pending, {@value #DELIVERED} delivered,
 * {@value #DEAD} dead letter. Appends of one key first lock that key's row in the key table, so
 * that their ids (taken after the lock) follow commit order: the relay delivers a key's rows in id
 * order, which is then commit order.
 */
public final class OutboxSql {
    /** Status of a row waiting for delivery (or for its next attempt). */
    public static final int PENDING = 0;
    /** Status of a delivered row, kept until the retention sweep when rows are not deleted. */
    public static final int DELIVERED = 1;
    /** Status of a dead letter. */
    public static final int DEAD = 2;

    /**
     * PostgreSQL: how many buckets the rows are spread over (a keyed row's bucket is
     * {@code hashtextextended(msg_key, 0) & 63}); each is leased to one relay loop at a time. Fixed by
     * schema version 2.
     */
    public static final int BUCKETS = 64;

    static final String COLUMNS = "id, subject, msg_key, payload, headers, attempts, created_at";

    final Dialect dialect;
    final String table;
    final boolean insertOnly;
    final String channel;
    final String appendKey;
    final String appendKeyedRow;
    final String appendRow;
    final String claim;
    final String claimLeased;
    final String claimAndDelete;
    final String blockers;
    final String heartbeat;
    final String liveMembers;
    final String balanceCheck;
    final String forgetMembers;
    final String renewBuckets;
    final String acquireBuckets;
    final String releaseBuckets;
    final String leave;
    final String markDelivered;
    final String deleteDelivered;
    final String markDeliveredAndCommit;
    final String deleteDeliveredAndCommit;
    final String retry;
    final String dead;
    final String sweepDelivered;
    final boolean archive;
    final String archiveDelivered;
    final String sweepArchive;
    final String sweepKeys;
    final String countByStatus;
    final String countPendingAndDead;
    final String listDead;
    final String inspect;
    final String retryDead;
    final String retryAllDead;
    final String purgeDead;
    final String purgeAllDead;

    /**
     * PostgreSQL: how a relay's transaction starts (sent with its claim, in the same round trip). JIT
     * off (see the claim), and its commit does not wait for the WAL flush: a settle that a PostgreSQL
     * crash undoes (at most ~3 x {@code wal_writer_delay}, 600 ms by default, of the newest batches)
     * only makes those rows pending again, to be delivered again, which at-least-once delivery allows;
     * the appends keep the application's own setting. Under load that is one flush wait less per
     * batch on the WAL the producers' commits queue on.
     */
    static final String RELAY_TRANSACTION = "SET LOCAL jit = off; SET LOCAL synchronous_commit = off; ";

    /**
     * @param dialect the database
     * @param table   the qualified events table, {@code schema.table}
     * @param channel the LISTEN/NOTIFY channel (PostgreSQL)
     */
    public OutboxSql(Dialect dialect, String table, String channel) {
        this(dialect, table, channel, false);
    }

    /**
     * @param dialect    the database
     * @param table      the qualified events table, {@code schema.table}
     * @param channel    the LISTEN/NOTIFY channel (PostgreSQL)
     * @param insertOnly whether the table has the insert-only layout ({@link Partitions}): appends
     *                   take no lock (WAL relays deliver in commit order) and set no bucket
     */
    public OutboxSql(Dialect dialect, String table, String channel, boolean insertOnly) {
        this(dialect, table, channel, insertOnly, false);
    }

    /**
     * @param dialect    the database
     * @param table      the qualified events table, {@code schema.table}
     * @param channel    the LISTEN/NOTIFY channel (PostgreSQL)
     * @param insertOnly whether the table has the insert-only layout ({@link Partitions})
     * @param archive    whether a delivered row's deletion also copies it into {@code <table>_archive}
     *                   (schema version 3), in the same statement on PostgreSQL
     */
    public OutboxSql(Dialect dialect, String table, String channel, boolean insertOnly, boolean archive) {
        this.dialect = dialect;
        this.archive = archive;
        this.insertOnly = insertOnly;
        this.table = table;
        this.channel = channel;
        boolean pg = dialect == Dialect.POSTGRESQL;
        String now = pg ? "clock_timestamp()" : "CURRENT_TIMESTAMP";
        String keys = table + "_key";
        if (insertOnly) {
            appendKey = null;
            appendKeyedRow = "INSERT INTO " + table + " (subject, msg_key, payload, headers) VALUES (?, ?, ?, ?) RETURNING id";
            appendRow = "INSERT INTO " + table + " (subject, msg_key, payload, headers) VALUES (?, NULL, ?, ?) RETURNING id";
        } else if (pg) {
            // One round trip, no write but the row: the FROM subquery takes a transaction-scoped
            // advisory lock on (this table, the key's hash) before nextval runs for the row, so a
            // key's ids follow its commit order. Two keys with the same hash only wait for each other.
            appendKey = null;
            appendKeyedRow = "INSERT INTO " + table + " (subject, msg_key, payload, headers, bucket) SELECT ?, ?, ?, ?,"
                    + " (hashtextextended(?, 0) & " + (BUCKETS - 1) + ")::smallint FROM (SELECT pg_advisory_xact_lock("
                    + table.hashCode() + ", hashtext(?))) AS l RETURNING id";
            appendRow = "INSERT INTO " + table + " (subject, msg_key, payload, headers, bucket) VALUES (?, NULL, ?, ?, ?)"
                    + " RETURNING id";
        } else {
            appendKey = "MERGE INTO " + keys + " (msg_key, last_append_at) KEY (msg_key) VALUES (?, " + now + ")";
            appendKeyedRow = "INSERT INTO " + table + " (subject, msg_key, payload, headers) VALUES (?, ?, ?, ?)";
            appendRow = "INSERT INTO " + table + " (subject, msg_key, payload, headers) VALUES (?, NULL, ?, ?)";
        }
        // Skips rows whose key has an earlier row waiting for a retry, so that such a row never holds
        // the batch (and with it other keys) back; only retried rows have next_attempt_at set.
        String retryWait = " AND NOT (e.msg_key IS NOT NULL AND EXISTS (SELECT 1 FROM " + table + " w WHERE w.status = "
                + PENDING + " AND w.next_attempt_at IS NOT NULL AND w.msg_key = e.msg_key AND w.id < e.id"
                + " AND w.next_attempt_at > " + now + "))";
        if (pg) {
            claim = null;
            blockers = null;
        } else {
            // H2 (one process): relays compete with SKIP LOCKED; a claimed keyed row is blocked when a
            // pending row of its key that this relay did not claim comes before it (see withBlockers).
            claim = "SELECT " + COLUMNS + ", " + now + " AS db_now FROM " + table + " e WHERE status = " + PENDING
                    + " AND (next_attempt_at IS NULL OR next_attempt_at <= " + now + ")" + retryWait
                    + " ORDER BY id LIMIT ? FOR UPDATE SKIP LOCKED";
            blockers = "SELECT id FROM " + table + " WHERE status = " + PENDING + " AND msg_key = ? ORDER BY id LIMIT ?";
        }
        String buckets = table + "_bucket";
        String members = table + "_member";
        String ms = " * interval '1 millisecond'";
        if (pg) {
            // One index range per bucket the loop believes it holds, in id order, each with its own
            // limit: no sort, no count per key, and a plan that does not depend on statistics. Only
            // the buckets that gave rows are then checked (owner, lease still valid) and
            // share-locked until the batch commits, so no other loop can take one over while its
            // rows are in flight; rows of a bucket that fails the check are dropped. An empty poll
            // locks nothing, so it writes no WAL and its commit costs no flush.
            //
            // JIT off for the transaction, sent in the same round trip: once the table has statistics,
            // the planner cannot know the per-bucket limits and costs the query past jit_above_cost, and
            // compiling it then takes ~25 ms per claim against ~3 ms to run it.
            //
            // The check for an earlier row of the key waiting for a retry runs per row only when some
            // row waits for a retry at all (an InitPlan evaluated once): almost never.
            String retryWaitOnce = " AND (NOT EXISTS (SELECT 1 FROM " + table + " w WHERE w.status = " + PENDING
                    + " AND w.next_attempt_at IS NOT NULL)" + retryWait.replaceFirst("^ AND", " OR") + ")";
            String candidates = " FROM unnest(?::smallint[], ?::int[]) AS q(bucket, lim) CROSS JOIN LATERAL (SELECT ";
            String perBucket = " FROM " + table + " e WHERE e.status = " + PENDING + " AND e.bucket = q.bucket"
                    + " AND (e.next_attempt_at IS NULL OR e.next_attempt_at <= " + now + ")" + retryWaitOnce
                    + " ORDER BY e.id LIMIT q.lim) AS r)";
            String owned = ", b AS MATERIALIZED (SELECT bucket FROM " + buckets
                    + " WHERE bucket = ANY(ARRAY(SELECT DISTINCT bucket FROM r)) AND owner = ? AND expires_at > " + now;
            String fence = owned + " FOR SHARE) ";
            claimLeased = RELAY_TRANSACTION + "WITH r AS MATERIALIZED (SELECT r.*" + candidates + COLUMNS + ", bucket"
                    + perBucket + fence + "SELECT r.id, r.subject, r.msg_key, r.payload, r.headers, r.attempts,"
                    + " r.created_at, " + now + ", r.bucket FROM r WHERE r.bucket = ANY(ARRAY(SELECT bucket FROM b))";
            // Claim and settle in one statement when delivered rows are deleted: the same candidates
            // and fence, but the rows are deleted as they are claimed and come back by RETURNING;
            // the relay commits only after delivering them, so a failure (or a crash) rolls the
            // deletion back and the rows are pending again. Only the rows' addresses travel through
            // the CTE, and the delete goes straight to them (a TID scan: no second index probe per
            // row, and no plan that depends on statistics). A row updated since the claim's
            // snapshot has moved: the delete rechecks its newest version, whose address differs,
            // and skips it. RETURNING follows no order: the caller sorts by id.
            //
            // The ownership check writes nothing here (no FOR SHARE on the buckets, so a batch adds no
            // lock record to the WAL): the deletion's own row locks are the fence. A member that takes
            // a bucket over while this batch is in flight sees its rows still pending (the deletion is
            // not committed), so its own deleting claim waits on their row locks, then skips them if
            // this batch committed or takes them (in id order, with the key's later rows) if it rolled
            // back: no row is delivered by two members, and a key's later rows never overtake.
            String claimed = RELAY_TRANSACTION + "WITH r AS MATERIALIZED (SELECT r.tid, r.bucket" + candidates
                    + "e.ctid AS tid, e.bucket" + perBucket + owned + ")";
            String deletion = "DELETE FROM " + table + " e WHERE e.status = " + PENDING + " AND e.ctid = ANY(ARRAY("
                    + "SELECT r.tid FROM r WHERE r.bucket = ANY(ARRAY(SELECT bucket FROM b)))) RETURNING e.id, e.subject,"
                    + " e.msg_key, e.payload, e.headers, e.attempts, e.created_at, ";
            // Archiving: the deleted rows also go into the archive, by the same statement (a
            // data-modifying CTE runs whether or not it is read), and so commit or roll back with it.
            claimAndDelete = archive
                    ? claimed + ", d AS (" + deletion + "e.bucket), a AS (" + archiveInsert(table, now) + ") SELECT id,"
                            + " subject, msg_key, payload, headers, attempts, created_at, " + now + ", bucket FROM d"
                    : claimed + " " + deletion + now + ", e.bucket";
            heartbeat = "INSERT INTO " + members + " (member, seen_at) VALUES (?, " + now + ") ON CONFLICT (member)"
                    + " DO UPDATE SET seen_at = EXCLUDED.seen_at";
            liveMembers = "SELECT count(*) FROM " + members + " WHERE seen_at > " + now + " - ?" + ms;
            balanceCheck = "SELECT (" + liveMembers + "), (SELECT count(*) FROM " + buckets
                    + " WHERE owner IS NULL OR expires_at <= " + now + ")";
            forgetMembers = "DELETE FROM " + members + " WHERE seen_at < " + now + " - ?" + ms;
            renewBuckets = "UPDATE " + buckets + " SET expires_at = " + now + " + ?" + ms + " WHERE owner = ? RETURNING bucket";
            acquireBuckets = "UPDATE " + buckets + " SET owner = ?, expires_at = " + now + " + ?" + ms + " WHERE bucket IN"
                    + " (SELECT bucket FROM " + buckets + " WHERE owner IS NULL OR expires_at <= " + now
                    + " ORDER BY bucket LIMIT ? FOR UPDATE SKIP LOCKED) RETURNING bucket";
            releaseBuckets = "UPDATE " + buckets + " SET owner = NULL, expires_at = '-infinity' WHERE owner = ?"
                    + " AND bucket = ANY(?)";
            leave = "WITH r AS (UPDATE " + buckets + " SET owner = NULL, expires_at = '-infinity' WHERE owner = ?)"
                    + " DELETE FROM " + members + " WHERE member = ?";
        } else {
            claimLeased = null;
            claimAndDelete = null;
            heartbeat = null;
            liveMembers = null;
            balanceCheck = null;
            forgetMembers = null;
            renewBuckets = null;
            acquireBuckets = null;
            releaseBuckets = null;
            leave = null;
        }
        // PostgreSQL: the ids as an InitPlan's array, whose length the planner cannot see, rather
        // than id = ANY(?): a parameter array of hundreds of ids on a table never analyzed (as with
        // autovacuum off) is planned as a sequential scan (~25 ms per 1,000 ids, against ~3 ms by
        // the primary key index), and so is one that is a large share of the table.
        String byIds = pg ? " WHERE id = ANY(ARRAY(SELECT unnest(?::bigint[])))" : " WHERE id = ?";
        markDelivered = "UPDATE " + table + " SET status = " + DELIVERED + ", done_at = " + now + byIds;
        deleteDelivered = archive && pg ? "WITH d AS (DELETE FROM " + table + byIds + " RETURNING id, subject, msg_key,"
                + " payload, headers, attempts, created_at) " + archiveInsert(table, now)
                : "DELETE FROM " + table + byIds;
        // H2 (no data-modifying CTE): the copy, by id, before the deletion in the same transaction.
        archiveDelivered = archive && !pg ? "INSERT INTO " + table + "_archive (" + ARCHIVE_COLUMNS + ") SELECT id, subject,"
                + " msg_key, payload, headers, attempts, created_at, " + now + " FROM " + table + byIds : null;
        // PostgreSQL: settle and commit in one round trip (the driver sends both statements before
        // it waits), which shortens the relay's cycle from three round trips to two.
        markDeliveredAndCommit = pg ? markDelivered + "; COMMIT" : null;
        deleteDeliveredAndCommit = pg ? deleteDelivered + "; COMMIT" : null;
        String later = pg ? now + " + ? * interval '1 millisecond'" : "DATEADD(MILLISECOND, ?, " + now + ")";
        retry = "UPDATE " + table + " SET attempts = attempts + 1, next_attempt_at = " + later
                + ", last_error = ? WHERE id = ?";
        dead = "UPDATE " + table + " SET status = " + DEAD + ", attempts = attempts + 1, last_error = ?, done_at = "
                + now + " WHERE id = ?";
        String ago = pg ? now + " - ? * interval '1 millisecond'" : "DATEADD(MILLISECOND, -?, " + now + ")";
        sweepDelivered = "DELETE FROM " + table + " WHERE id IN (SELECT id FROM " + table + " WHERE status = "
                + DELIVERED + " AND done_at < " + ago + " ORDER BY id LIMIT ?)";
        sweepArchive = "DELETE FROM " + table + "_archive WHERE id IN (SELECT id FROM " + table + "_archive WHERE"
                + " archived_at < " + ago + " ORDER BY archived_at LIMIT ?)";
        // PostgreSQL has no key table since version 2.
        sweepKeys = pg ? null : "DELETE FROM " + keys + " WHERE last_append_at < " + ago + " AND NOT EXISTS (SELECT 1 FROM "
                + table + " e WHERE e.status = " + PENDING + " AND e.msg_key = " + keys + ".msg_key)";
        countByStatus = "SELECT status, count(*) FROM " + table + " GROUP BY status";
        // Insert-only: a delivered row stays pending until its partition is pruned, so the table
        // cannot tell what is left to deliver (-1); the dead letters are served by the done index.
        countPendingAndDead = "SELECT (SELECT " + (insertOnly ? "-1" : "count(*) FROM " + table + " WHERE status = " + PENDING)
                + "), (SELECT count(*) FROM " + table + " WHERE status = " + DEAD + ")";
        listDead = "SELECT " + COLUMNS + ", last_error, done_at, status FROM " + table + " WHERE status = " + DEAD
                + " AND id > ? ORDER BY id LIMIT ?";
        inspect = "SELECT " + COLUMNS + ", last_error, done_at, status FROM " + table + " WHERE id = ?";
        String reset = "UPDATE " + table + " SET status = " + PENDING
                + ", attempts = 0, next_attempt_at = NULL, done_at = NULL WHERE status = " + DEAD;
        // PostgreSQL: a retried dead letter is inserted again (same id, so the same event id), as a
        // WAL relay sees only inserts; a polling relay takes it as any pending row.
        String again = "WITH d AS (DELETE FROM " + table + " WHERE status = " + DEAD + "%s RETURNING id, subject, msg_key,"
                + " payload, headers, created_at, bucket) INSERT INTO " + table + " (id, subject, msg_key, payload, headers,"
                + " created_at, bucket) SELECT id, subject, msg_key, payload, headers, created_at, bucket FROM d";
        retryDead = pg ? again.formatted(" AND id = ?") : reset + " AND id = ?";
        retryAllDead = pg ? again.formatted("") : reset;
        purgeDead = "DELETE FROM " + table + " WHERE status = " + DEAD + " AND id = ?";
        purgeAllDead = "DELETE FROM " + table + " WHERE status = " + DEAD;
    }

    private static final String ARCHIVE_COLUMNS = "id, subject, msg_key, payload, headers, attempts, created_at,"
            + " archived_at";

    /** PostgreSQL: the archive's insert of the rows a CTE named {@code d} deleted. */
    private static String archiveInsert(String table, String now) {
        return "INSERT INTO " + table + "_archive (" + ARCHIVE_COLUMNS + ") SELECT id, subject, msg_key, payload,"
                + " headers, attempts, created_at, " + now + " FROM d";
    }

    /** @return whether delivered rows are archived as they are deleted */
    public boolean archive() {
        return archive;
    }

    /** @return the database */
    public Dialect dialect() {
        return dialect;
    }

    /** @return whether the table has the insert-only layout */
    public boolean insertOnly() {
        return insertOnly;
    }

    /** @return the qualified events table */
    public String table() {
        return table;
    }

    /** @return the LISTEN/NOTIFY channel */
    public String channel() {
        return channel;
    }
}
