package io.ringbus.outbox.internal;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;

/**
 * Creates and upgrades an inbox's tables: {@code <table>} (the applied event ids),
 * {@code <table>_dead} (messages refused unapplied) and {@code <table>_schema} (the versions).
 *
 * <p>Scripts live in {@code io/ringbus/outbox/inbox-migrations/<dialect>/V<n>.sql}, apart from
 * the outbox's, numbered from 1 without gaps, applied by the outbox's runner ({@link Migrations}):
 * in one transaction, under a transaction-scoped advisory lock on PostgreSQL and a lock in this
 * JVM on H2, so consumers starting together apply each script once.
 */
public final class InboxMigrations {
    /** The newest inbox schema version this build knows. */
    public static final int LATEST = 1;
    private static final Migrations.Scripts SCRIPTS = new Migrations.Scripts("inbox", "inbox-migrations", LATEST);

    private InboxMigrations() {
    }

    /**
     * Brings the inbox schema to {@link #LATEST}.
     *
     * @param connection a connection (its auto-commit is restored afterwards)
     * @param dialect    the database
     * @param schema     the checked schema name
     * @param table      the checked inbox table name
     * @throws SQLException when a script fails; nothing of that version is kept on PostgreSQL
     * @throws IllegalStateException when the database holds a newer version than this build knows
     */
    public static void migrate(Connection connection, Dialect dialect, String schema, String table)
            throws SQLException {
        Migrations.apply(SCRIPTS, connection, dialect, schema, table, Map.of("${schema}", schema, "${table}", table));
    }

    /**
     * Checks that the inbox schema is at {@link #LATEST}, for inboxes opened without migrating.
     *
     * @param connection a connection
     * @param schema     the checked schema name
     * @param table      the checked inbox table name
     * @throws SQLException          when the database cannot be read
     * @throws IllegalStateException naming the table and the versions when it is missing or differs
     */
    public static void requireLatest(Connection connection, String schema, String table) throws SQLException {
        int version = Migrations.version(connection, schema, table);
        if (version != LATEST) {
            throw new IllegalStateException("inbox schema " + schema + "." + table + " is at version " + version
                    + " (0: missing) but this build needs version " + LATEST
                    + "; create or upgrade it with Inbox.builder().migrate(true)");
        }
    }
}
