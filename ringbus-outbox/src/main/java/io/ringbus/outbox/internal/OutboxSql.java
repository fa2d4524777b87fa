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

    static final String COLUMNS = "id, subject, msg_key, payload, headers, attempts, created_at";

    final Dialect dialect;
    final String table;
    final String channel;
    final String appendKey;
    final String appendKeyedRow;
    final String appendRow;
    final String claim;
    final String blockers;
    final String markDelivered;
    final String deleteDelivered;
    final String markDeliveredAndCommit;
    final String deleteDeliveredAndCommit;
    final String retry;
    final String dead;
    final String sweepDelivered;
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
     * @param dialect the database
     * @param table   the qualified events table, {@code schema.table}
     * @param channel the LISTEN/NOTIFY channel (PostgreSQL)
     */
    public OutboxSql(Dialect dialect, String table, String channel) {
        this.dialect = dialect;
        this.table = table;
        this.channel = channel;
        boolean pg = dialect == Dialect.POSTGRESQL;
        String now = pg ? "clock_timestamp()" : "CURRENT_TIMESTAMP";
        String keys = table + "_key";
        if (pg) {
            // One round trip: the CTE's upsert takes the key row lock before nextval runs for the event.
            appendKey = null;
            appendKeyedRow = "WITH k AS (INSERT INTO " + keys + " (msg_key, last_append_at) VALUES (?, " + now
                    + ") ON CONFLICT (msg_key) DO UPDATE SET last_append_at = EXCLUDED.last_append_at RETURNING 1) "
                    + "INSERT INTO " + table + " (subject, msg_key, payload, headers) SELECT ?, ?, ?, ? FROM k RETURNING id";
            appendRow = "INSERT INTO " + table + " (subject, msg_key, payload, headers) VALUES (?, NULL, ?, ?) RETURNING id";
        } else {
            appendKey = "MERGE INTO " + keys + " (msg_key, last_append_at) KEY (msg_key) VALUES (?, " + now + ")";
            appendKeyedRow = "INSERT INTO " + table + " (subject, msg_key, payload, headers) VALUES (?, ?, ?, ?)";
            appendRow = "INSERT INTO " + table + " (subject, msg_key, payload, headers) VALUES (?, NULL, ?, ?)";
        }
        // Skips rows whose key has an earlier row waiting for a retry, so that such a row never holds
        // the batch (and with it other keys) back; only retried rows have next_attempt_at set.
        String claimRows = "SELECT " + COLUMNS + ", " + now + " AS db_now FROM " + table + " e WHERE status = " + PENDING
                + " AND (next_attempt_at IS NULL OR next_attempt_at <= " + now + ")"
                + " AND NOT (msg_key IS NOT NULL AND EXISTS (SELECT 1 FROM " + table + " w WHERE w.status = " + PENDING
                + " AND w.next_attempt_at IS NOT NULL AND w.msg_key = e.msg_key AND w.id < e.id AND w.next_attempt_at > "
                + now + ")) ORDER BY id LIMIT ? FOR UPDATE SKIP LOCKED";
        // A claimed keyed row is blocked when a pending row of its key that this relay did not
        // claim comes before it (another relay holds it, or it waits for a retry). PostgreSQL
        // answers rows and blocked keys in one round trip, conservatively: a key with any foreign
        // pending row up to its last claimed one is left whole for the next batch. Counting pending
        // rows of the key up to that id (one index range per key) avoids set-membership tests,
        // whose plans depend on statistics a fresh table lacks.
        if (pg) {
            // Rows of c, then one row per blocked key (id NULL): the caller joins them, so that no
            // plan ever joins c with the blocked keys row by row.
            claim = "WITH c AS MATERIALIZED (" + claimRows + "), k AS (SELECT msg_key, count(*) AS n, max(id) AS last"
                    + " FROM c WHERE msg_key IS NOT NULL GROUP BY msg_key)"
                    + " SELECT c.id, c.subject, c.msg_key, c.payload, c.headers, c.attempts, c.created_at, c.db_now FROM c"
                    + " UNION ALL SELECT NULL, NULL, k.msg_key, NULL, NULL, NULL, NULL, NULL FROM k WHERE"
                    + " (SELECT count(*) FROM " + table + " p WHERE p.status = " + PENDING
                    + " AND p.msg_key = k.msg_key AND p.id <= k.last) > k.n";
            blockers = null;
        } else {
            claim = claimRows;
            blockers = "SELECT id FROM " + table + " WHERE status = " + PENDING + " AND msg_key = ? ORDER BY id LIMIT ?";
        }
        String byIds = pg ? " WHERE id = ANY(?)" : " WHERE id = ?";
        markDelivered = "UPDATE " + table + " SET status = " + DELIVERED + ", done_at = " + now + byIds;
        deleteDelivered = "DELETE FROM " + table + byIds;
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
        sweepKeys = "DELETE FROM " + keys + " WHERE last_append_at < " + ago + " AND NOT EXISTS (SELECT 1 FROM "
                + table + " e WHERE e.status = " + PENDING + " AND e.msg_key = " + keys + ".msg_key)";
        countByStatus = "SELECT status, count(*) FROM " + table + " GROUP BY status";
        countPendingAndDead = "SELECT (SELECT count(*) FROM " + table + " WHERE status = " + PENDING + "), (SELECT count(*) FROM "
                + table + " WHERE status = " + DEAD + ")";
        listDead = "SELECT " + COLUMNS + ", last_error, done_at, status FROM " + table + " WHERE status = " + DEAD
                + " AND id > ? ORDER BY id LIMIT ?";
        inspect = "SELECT " + COLUMNS + ", last_error, done_at, status FROM " + table + " WHERE id = ?";
        String reset = "UPDATE " + table + " SET status = " + PENDING
                + ", attempts = 0, next_attempt_at = NULL, done_at = NULL WHERE status = " + DEAD;
        retryDead = reset + " AND id = ?";
        retryAllDead = reset;
        purgeDead = "DELETE FROM " + table + " WHERE status = " + DEAD + " AND id = ?";
        purgeAllDead = "DELETE FROM " + table + " WHERE status = " + DEAD;
    }

    /** @return the database */
    public Dialect dialect() {
        return dialect;
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
