package io.ringbus.outbox.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * An inbox's statements, written once per dialect.
 *
 * <p>Recording an id: on PostgreSQL {@code INSERT ... ON CONFLICT DO NOTHING}, which waits for a
 * concurrent transaction inserting the same id and then inserts (it rolled back) or does nothing
 * (it committed), and never aborts the caller's transaction. On H2 a plain insert whose
 * duplicate-key error (SQLState 23505) means "already recorded": H2 rolls back only the failed
 * statement, so the caller's transaction goes on.
 *
 * <p>Thread-safe (immutable); each method runs on the caller's connection and never commits.
 */
public final class InboxSql {
    /** Ids deleted per purge statement, so one purge never holds a huge delete's locks. */
    public static final int PURGE_CHUNK = 10_000;
    private static final String DUPLICATE_KEY = "23505";

    private final Dialect dialect;
    private final String insertId;
    private final String insertDead;
    private final String purge;

    /**
     * @param dialect the database
     * @param table   the qualified inbox table ({@code schema.table}), checked identifiers
     */
    public InboxSql(Dialect dialect, String table) {
        this.dialect = dialect;
        String insert = "INSERT INTO " + table + " (event_id, msg_key) VALUES (?, ?)";
        this.insertId = dialect == Dialect.POSTGRESQL ? insert + " ON CONFLICT (event_id) DO NOTHING" : insert;
        this.insertDead = "INSERT INTO " + table + "_dead (event_id, msg_key, subject, reason, payload)"
                + " VALUES (?, ?, ?, ?, ?)";
        String cutoff = dialect == Dialect.POSTGRESQL
                ? "clock_timestamp() - CAST(? AS BIGINT) * INTERVAL '1 millisecond'"
                : "DATEADD(MILLISECOND, -CAST(? AS BIGINT), CURRENT_TIMESTAMP)";
        this.purge = "DELETE FROM " + table + " WHERE event_id IN (SELECT event_id FROM " + table
                + " WHERE processed_at < " + cutoff + " FETCH FIRST " + PURGE_CHUNK + " ROWS ONLY)";
    }

    /** @return the database */
    public Dialect dialect() {
        return dialect;
    }

    /**
     * Records an event id in the caller's transaction.
     *
     * @param connection the caller's connection, in a transaction
     * @param eventId    the checked event id
     * @param key        the key, or {@code null}
     * @return {@code true} when recorded now, {@code false} when it was already there (committed)
     * @throws SQLException when the insert fails otherwise
     */
    public boolean recordId(Connection connection, String eventId, String key) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement(insertId)) {
            insert.setString(1, eventId);
            insert.setString(2, key);
            return insert.executeUpdate() == 1;
        } catch (SQLException e) {
            if (dialect == Dialect.H2 && DUPLICATE_KEY.equals(e.getSQLState())) {
                return false;
            }
            throw e;
        }
    }

    /**
     * Records a refused message in {@code <table>_dead}, in the caller's transaction.
     *
     * @param connection the caller's connection, in a transaction
     * @param eventId    the event id as received (possibly bad), or {@code null}
     * @param key        the key as received, or {@code null}
     * @param subject    the subject, or {@code null}
     * @param reason     why it was refused
     * @param payload    the payload, or {@code null}
     * @throws SQLException when the insert fails
     */
    public void recordRefused(Connection connection, String eventId, String key, String subject, String reason,
                              byte[] payload) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement(insertDead)) {
            insert.setString(1, clip(eventId, 1024));
            insert.setString(2, clip(key, 512));
            insert.setString(3, clip(subject, 1024));
            insert.setString(4, clip(reason, 1024));
            insert.setBytes(5, payload);
            insert.executeUpdate();
        }
    }

    /**
     * Deletes up to {@link #PURGE_CHUNK} ids recorded more than {@code retentionMillis} ago
     * (database clock), in the caller's transaction.
     *
     * @param connection      the connection, in a transaction
     * @param retentionMillis the retention
     * @return how many were deleted
     * @throws SQLException when the delete fails
     */
    public int purgeChunk(Connection connection, long retentionMillis) throws SQLException {
        try (PreparedStatement delete = connection.prepareStatement(purge)) {
            delete.setLong(1, retentionMillis);
            return delete.executeUpdate();
        }
    }

    private static String clip(String value, int max) {
        return value == null || value.length() <= max ? value : value.substring(0, max);
    }
}
