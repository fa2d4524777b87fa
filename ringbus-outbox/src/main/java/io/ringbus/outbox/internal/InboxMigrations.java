package io.ringbus.outbox.internal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Creates and upgrades an inbox's tables: {@code <table>} (the applied event ids),
 * {@code <table>_dead} (messages refused unapplied) and {@code <table>_schema} (the versions).
 *
 * <p>Scripts live in {@code io/ringbus/outbox/inbox-migrations/<dialect>/V<n>.sql}, apart from
 * the outbox's, numbered from 1 without gaps, applied as {@link Migrations} applies the outbox's:
 * in one transaction, under a transaction-scoped advisory lock on PostgreSQL and a lock in this
 * JVM on H2, so consumers starting together apply each script once.
 */
public final class InboxMigrations {
    private static final ReentrantLock H2_LOCK = new ReentrantLock();

    /** The newest inbox schema version this build knows. */
    public static final int LATEST = 1;

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
        if (dialect == Dialect.POSTGRESQL) {
            migrateLocked(connection, dialect, schema, table);
            return;
        }
        H2_LOCK.lock();
        try {
            migrateLocked(connection, dialect, schema, table);
        } finally {
            H2_LOCK.unlock();
        }
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

    private static void migrateLocked(Connection connection, Dialect dialect, String schema, String table)
            throws SQLException {
        boolean autoCommit = connection.getAutoCommit();
        connection.setAutoCommit(false);
        try {
            String versions = schema + "." + table + "_schema";
            try (Statement statement = connection.createStatement()) {
                if (dialect == Dialect.POSTGRESQL) {
                    // Before any DDL: concurrent CREATE ... IF NOT EXISTS can still collide in the catalog.
                    statement.execute("SELECT pg_advisory_xact_lock(" + (versions.hashCode() & 0x7fffffffL) + ")");
                }
                statement.execute("CREATE SCHEMA IF NOT EXISTS " + schema);
                statement.execute("CREATE TABLE IF NOT EXISTS " + versions
                        + " (version INT PRIMARY KEY, applied_at TIMESTAMP WITH TIME ZONE DEFAULT CURRENT_TIMESTAMP)");
            }
            int current = Migrations.version(connection, schema, table);
            if (current > LATEST) {
                throw new IllegalStateException("inbox schema " + schema + "." + table + " is at version " + current
                        + ", newer than this build knows (" + LATEST + "); upgrade ringbus-outbox");
            }
            Map<String, String> values = Map.of("${schema}", schema, "${table}", table);
            for (int version = current + 1; version <= LATEST; version++) {
                try (Statement statement = connection.createStatement()) {
                    for (String sql : Migrations.statements(load(dialect, version), values)) {
                        statement.execute(sql);
                    }
                }
                try (PreparedStatement insert = connection.prepareStatement(
                        "INSERT INTO " + versions + " (version) VALUES (?)")) {
                    insert.setInt(1, version);
                    insert.executeUpdate();
                }
            }
            connection.commit();
        } catch (SQLException | RuntimeException e) {
            connection.rollback();
            throw e;
        } finally {
            connection.setAutoCommit(autoCommit);
        }
    }

    private static String load(Dialect dialect, int version) {
        String path = "/io/ringbus/outbox/inbox-migrations/" + dialect.resourceFolder() + "/V" + version + ".sql";
        try (InputStream in = InboxMigrations.class.getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("missing inbox migration script: " + path);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read inbox migration script: " + path, e);
        }
    }
}
