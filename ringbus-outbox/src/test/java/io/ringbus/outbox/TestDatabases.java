package io.ringbus.outbox;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The databases the tests run against: the machine's PostgreSQL (127.0.0.1:5432, database
 * {@code test}, trust auth; {@code RINGBUS_TEST_PG_URL} overrides) with a fresh schema per test,
 * and a fresh in-memory or file H2 database per test.
 */
final class TestDatabases {
    static final String PG_URL = System.getenv().getOrDefault("RINGBUS_TEST_PG_URL",
            "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");

    private TestDatabases() {
    }

    /** @return a schema name no other test uses */
    static String uniqueSchema() {
        return "t_" + Long.toHexString(System.nanoTime()) + "_" + ThreadLocalRandom.current().nextInt(1_000_000);
    }

    /** @return a private in-memory H2 database that lives until the JVM exits */
    static String h2Url() {
        return "jdbc:h2:mem:" + uniqueSchema() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000";
    }

    /** @return the outbox's counts, failing the test on a database error (for use in conditions) */
    static OutboxCounts counts(Outbox outbox) {
        try {
            return outbox.counts();
        } catch (SQLException e) {
            throw new AssertionError(e);
        }
    }

    /** Drops a PostgreSQL schema and everything in it. */
    static void dropPgSchema(String schema) throws SQLException {
        try (Connection c = DriverManager.getConnection(PG_URL); Statement s = c.createStatement()) {
            s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
        }
    }
}
