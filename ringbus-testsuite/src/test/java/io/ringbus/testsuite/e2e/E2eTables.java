package io.ringbus.testsuite.e2e;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The two services' business tables, each in its service's own PostgreSQL schema (the outbox and
 * the inbox create theirs): {@code <orders>.orders} (one row per committed order; its id is the
 * outbox row id of its event, so a key's ids follow its commit order) and {@code <billing>.billing}
 * (one row per applied event; {@code apply_seq} numbers the applies, and no unique constraint hides
 * a second apply of one order). Both stamp {@code clock_timestamp()}, one clock for the latency.
 */
final class E2eTables {
    /** The machine's PostgreSQL ({@code RINGBUS_TEST_PG_URL} overrides), as the outbox's tests use it. */
    static final String PG_URL = System.getenv().getOrDefault("RINGBUS_TEST_PG_URL",
            "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");

    private E2eTables() {
    }

    /**
     * @param service what the schema is for
     * @return a schema name no other run uses
     */
    static String uniqueSchema(String service) {
        return "e2e_" + service + "_" + Long.toHexString(System.nanoTime()) + "_"
                + ThreadLocalRandom.current().nextInt(1_000);
    }

    /** Creates the schemas and the business tables (the services create the outbox and inbox tables). */
    static void create(String ordersSchema, String billingSchema) throws SQLException {
        try (Connection c = DriverManager.getConnection(PG_URL); Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA " + ordersSchema);
            s.execute("CREATE SCHEMA " + billingSchema);
            s.execute("CREATE TABLE " + ordersSchema + ".orders (id BIGINT PRIMARY KEY, customer TEXT NOT NULL,"
                    + " committed_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp())");
            s.execute("CREATE TABLE " + billingSchema + ".billing (apply_seq BIGSERIAL PRIMARY KEY,"
                    + " order_id BIGINT NOT NULL, customer TEXT NOT NULL,"
                    + " applied_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp())");
        }
    }

    /** Drops the schemas and everything in them. */
    static void drop(String... schemas) throws SQLException {
        try (Connection c = DriverManager.getConnection(PG_URL); Statement s = c.createStatement()) {
            for (String schema : schemas) {
                s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
            }
        }
    }
}
