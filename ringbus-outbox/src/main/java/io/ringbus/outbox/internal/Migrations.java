package io.ringbus.outbox.internal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Creates and upgrades the outbox schema: one mechanism for both databases.
 *
 * <p>Scripts live in {@code io/ringbus/outbox/migrations/<dialect>/V<n>.sql}, numbered from 1
 * without gaps. The table {@code <table>_schema} records each applied version. Upgrades run in one
 * transaction holding a lock, so relays starting together apply each script once: on PostgreSQL
 * a transaction-scoped advisory lock (and DDL is transactional, so a failed script leaves
 * nothing); on H2, whose DDL commits at once, a lock in this JVM (an embedded H2 file belongs to
 * one process at a time unless it is served).
 */
public final class Migrations {
    private static final ReentrantLock H2_LOCK = new ReentrantLock();

    /** The newest schema version this build knows. */
    public static final int LATEST = 3;

    private Migrations() {
    }

    /**
     * Brings the schema to {@link #LATEST}.
     *
     * @param connection a connection (its auto-commit is restored afterwards)
     * @param dialect    the database
     * @param schema     the checked schema name
     * @param table      the checked table name
     * @param channel    the notification channel
     * @return the version found before upgrading (0 for a new schema)
     * @throws SQLException when a script fails; nothing of that version is kept on PostgreSQL
     * @throws IllegalStateException when the database holds a newer version than this build knows
     */
    public static int migrate(Connection connection, Dialect dialect, String schema, String table, String channel)
            throws SQLException {
        return apply(OUTBOX, connection, dialect, schema, table,
                Map.of("${schema}", schema, "${table}", table, "${channel}", channel));
    }

    /**
     * One set of versioned scripts: the outbox's or an inbox's.
     *
     * @param what   what the scripts create, for messages ({@code outbox}, {@code inbox})
     * @param folder the resource folder under {@code io/ringbus/outbox/}, one subfolder per dialect
     * @param latest the newest version this build knows
     */
    record Scripts(String what, String folder, int latest) {
    }

    /** The outbox's scripts. */
    static final Scripts OUTBOX = new Scripts("outbox", "migrations", LATEST);

    /**
     * Brings a schema to {@code scripts.latest()}: the runner both the outbox and the inbox use.
     *
     * @param values what the scripts' placeholders ({@code ${schema}}, ...) stand for
     * @return the version found before upgrading (0 for a new schema)
     */
    static int apply(Scripts scripts, Connection connection, Dialect dialect, String schema, String table,
                     Map<String, String> values) throws SQLException {
        if (dialect == Dialect.POSTGRESQL) {
            return applyLocked(scripts, connection, dialect, schema, table, values);
        }
        H2_LOCK.lock();
        try {
            return applyLocked(scripts, connection, dialect, schema, table, values);
        } finally {
            H2_LOCK.unlock();
        }
    }

    /**
     * Reads the schema version without creating anything.
     *
     * @param connection a connection
     * @param schema     the checked schema name
     * @param table      the checked table name
     * @return the newest version recorded, 0 when the schema or its version table does not exist
     * @throws SQLException when the database cannot be read
     */
    public static int version(Connection connection, String schema, String table) throws SQLException {
        DatabaseMetaData metaData = connection.getMetaData();
        boolean upper = metaData.storesUpperCaseIdentifiers();
        String escape = metaData.getSearchStringEscape();
        String schemaPattern = namePattern(upper ? schema.toUpperCase(Locale.ROOT) : schema, escape);
        String tablePattern = namePattern(upper ? (table + "_schema").toUpperCase(Locale.ROOT) : table + "_schema", escape);
        try (ResultSet tables = metaData.getTables(null, schemaPattern, tablePattern, null)) {
            if (!tables.next()) {
                return 0;
            }
        }
        return currentVersion(connection, schema + "." + table + "_schema");
    }

    /**
     * Checks that the schema is at {@link #LATEST}, for outboxes opened without migrating.
     *
     * @param connection a connection
     * @param schema     the checked schema name
     * @param table      the checked table name
     * @throws SQLException          when the database cannot be read
     * @throws MissingSchemaException when there is no outbox schema
     * @throws IllegalStateException  naming the schema and both versions when they differ
     */
    public static void requireLatest(Connection connection, String schema, String table) throws SQLException {
        int version = version(connection, schema, table);
        if (version == 0) {
            // Missing, not old: "version 0" read as if an upgrade were due (issue 28).
            throw new MissingSchemaException(schema, table);
        }
        if (version != LATEST) {
            throw new IllegalStateException("outbox schema " + schema + "." + table + " is at version " + version
                    + " but this build needs version " + LATEST + (version < LATEST
                    ? "; upgrade it: run `bin/outbox migrate`, or open it with Outbox.builder().migrate(true)"
                    : "; upgrade ringbus-outbox"));
        }
    }

    private static String namePattern(String name, String escape) {
        if (escape == null || escape.isEmpty()) {
            return name;
        }
        return name.replace("_", escape + "_").replace("%", escape + "%");
    }

    private static int applyLocked(Scripts scripts, Connection connection, Dialect dialect, String schema,
                                   String table, Map<String, String> values) throws SQLException {
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
            int current = currentVersion(connection, versions);
            if (current > scripts.latest()) {
                throw new IllegalStateException(scripts.what() + " schema " + schema + "." + table + " is at version "
                        + current + ", newer than this build knows (" + scripts.latest() + "); upgrade ringbus-outbox");
            }
            for (int version = current + 1; version <= scripts.latest(); version++) {
                try (Statement statement = connection.createStatement()) {
                    for (String sql : statements(load(scripts, dialect, version), values)) {
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
            return current;
        } catch (SQLException | RuntimeException e) {
            connection.rollback();
            throw e;
        } finally {
            connection.setAutoCommit(autoCommit);
        }
    }

    private static int currentVersion(Connection connection, String versions) throws SQLException {
        try (Statement statement = connection.createStatement();
             ResultSet rs = statement.executeQuery("SELECT COALESCE(MAX(version), 0) FROM " + versions)) {
            rs.next();
            return rs.getInt(1);
        }
    }

    private static String load(Scripts scripts, Dialect dialect, int version) {
        String path = "/io/ringbus/outbox/" + scripts.folder() + "/" + dialect.resourceFolder() + "/V" + version + ".sql";
        try (InputStream in = Migrations.class.getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("missing " + scripts.what() + " migration script: " + path);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + scripts.what() + " migration script: " + path, e);
        }
    }

    /**
     * Splits a script into statements: each ends with ';' at the end of a line, outside a
     * {@code $$} block; lines starting with {@code --} are comments.
     */
    static List<String> statements(String script, Map<String, String> values) {
        List<String> result = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        boolean inDollarBlock = false;
        for (String line : script.split("\n")) {
            String trimmed = line.strip();
            if (!inDollarBlock && (trimmed.isEmpty() || trimmed.startsWith("--"))) {
                continue;
            }
            int dollars = line.split("\\$\\$", -1).length - 1;
            if (dollars % 2 == 1) {
                inDollarBlock = !inDollarBlock;
            }
            current.append(line).append('\n');
            if (!inDollarBlock && trimmed.endsWith(";")) {
                String sql = current.toString().strip();
                sql = sql.substring(0, sql.length() - 1);
                for (Map.Entry<String, String> entry : values.entrySet()) {
                    sql = sql.replace(entry.getKey(), entry.getValue());
                }
                result.add(sql);
                current.setLength(0);
            }
        }
        if (!current.toString().isBlank()) {
            throw new IllegalStateException("migration script ends without ';': " + current.toString().strip());
        }
        return result;
    }
}
