package io.ringbus.bench.outbox;

import io.ringbus.outbox.Outbox;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;

/**
 * An {@link Outbox} in a PostgreSQL schema of its own, created for one run and dropped with
 * everything in it on {@link #close()}, so runs never see each other's rows, keys or NOTIFYs.
 */
final class BenchOutbox implements AutoCloseable {
    /** The outbox's table inside the schema (the builder's default). */
    static final String TABLE = "ringbus_outbox";
    /** Connections in the outbox's pool: 4 relays x (claim + LISTEN) + producers + a spare. */
    private static final int POOL_SIZE = 16;

    private final String pgUrl;
    private final String schema;
    private final Outbox outbox;

    private BenchOutbox(String pgUrl, String schema, Outbox outbox) {
        this.pgUrl = pgUrl;
        this.schema = schema;
        this.outbox = outbox;
    }

    /**
     * Creates a fresh schema and opens an outbox in it.
     *
     * @param pgUrl a {@code jdbc:postgresql:} URL with the user in it
     * @return the outbox
     * @throws SQLException when PostgreSQL cannot be reached or the schema not created
     */
    static BenchOutbox create(String pgUrl) throws SQLException {
        String schema = "bench_" + Long.toHexString(System.currentTimeMillis()) + "_"
                + Integer.toHexString(ThreadLocalRandom.current().nextInt(1 << 20));
        Outbox outbox = Outbox.builder().jdbcUrl(pgUrl).schema(schema).maxPoolSize(POOL_SIZE).open();
        return new BenchOutbox(pgUrl, schema, outbox);
    }

    /** @return the outbox */
    Outbox outbox() {
        return outbox;
    }

    /** @return the qualified events table, {@code schema.ringbus_outbox} */
    String table() {
        return schema + "." + TABLE;
    }

    /** @return the schema's name */
    String schema() {
        return schema;
    }

    /**
     * Waits until no row is pending (relays settle a batch after delivering it).
     *
     * @param timeout how long to wait
     * @return the pending rows left
     * @throws SQLException when the database cannot be read
     */
    long awaitNothingPending(Duration timeout) throws SQLException {
        long deadline = System.nanoTime() + timeout.toNanos();
        long pending = outbox.counts().pending();
        while (pending > 0 && System.nanoTime() - deadline < 0) {
            LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
            pending = outbox.counts().pending();
        }
        return pending;
    }

    /**
     * @param limit how many
     * @return the most frequent {@code last_error} texts of rows that failed an attempt, with counts
     * @throws SQLException when the database cannot be read
     */
    String lastErrors(int limit) throws SQLException {
        StringBuilder out = new StringBuilder();
        try (Connection c = outbox.dataSource().getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*), regexp_replace(last_error, '^attempt [0-9]+: ', '') e FROM "
                     + table() + " WHERE last_error IS NOT NULL GROUP BY e ORDER BY 1 DESC LIMIT " + limit)) {
            while (rs.next()) {
                out.append(out.isEmpty() ? "" : "; ").append(rs.getLong(1)).append(" x ").append(rs.getString(2));
            }
        }
        return out.toString();
    }

    /** Closes the pool and drops the schema. */
    @Override
    public void close() throws SQLException {
        outbox.close();
        try (Connection c = DriverManager.getConnection(pgUrl); Statement s = c.createStatement()) {
            s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
        }
    }
}
