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
 * An {@link Outbox} in a PostgreSQL schema of its own, with a {@link PlainEventTable} beside it
 * and, when a run asks for one, a peer library's tables ({@link #gruelbox()}, {@link #namastack()}),
 * created for one run and dropped with everything in it on {@link #close()}, so runs never see
 * each other's rows, leases or locks.
 */
final class BenchOutbox implements AutoCloseable {
    /** The outbox's table inside the schema (the builder's default). */
    static final String TABLE = "ringbus_outbox";
    /** The insert-only outbox's table. */
    static final String LOG_TABLE = "ringbus_log";
    /** Connections in the outbox's pool: 4 relays + their LISTEN connection + 8 producers + spares. */
    private static final int POOL_SIZE = 16;

    private final String pgUrl;
    private final String schema;
    private final Outbox outbox;
    private final PlainEventTable plain;
    private Outbox log;
    private GruelboxPeer gruelbox;
    private NamastackPeer namastack;

    private BenchOutbox(String pgUrl, String schema, Outbox outbox, PlainEventTable plain) {
        this.pgUrl = pgUrl;
        this.schema = schema;
        this.outbox = outbox;
        this.plain = plain;
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
        try (Connection c = outbox.dataSource().getConnection()) {
            c.setAutoCommit(true);
            return new BenchOutbox(pgUrl, schema, outbox, PlainEventTable.create(c, schema));
        } catch (SQLException | RuntimeException e) {
            new BenchOutbox(pgUrl, schema, outbox, null).close();
            throw e;
        }
    }

    /** @return the outbox */
    Outbox outbox() {
        return outbox;
    }

    /** @return the plain table beside it */
    PlainEventTable plain() {
        return plain;
    }

    /**
     * @return an outbox with the insert-only layout in this schema (table {@value #LOG_TABLE}),
     * opened on the first call; one thread only
     * @throws IllegalStateException when it cannot be created
     */
    Outbox log() {
        if (log == null) {
            try {
                log = Outbox.builder().jdbcUrl(pgUrl).schema(schema).table(LOG_TABLE).maxPoolSize(POOL_SIZE)
                        .insertOnly(io.ringbus.outbox.internal.Partitions.DEFAULT_PARTITION_ROWS).open();
            } catch (SQLException e) {
                throw new IllegalStateException("cannot open the insert-only outbox in " + schema, e);
            }
        }
        return log;
    }

    /** @return the replication slot of the WAL relay of {@link #log()} */
    String logSlot() {
        return schema + "_log";
    }

    /** @return the gruelbox peer on this schema, created (tables migrated) on the first call; one thread only */
    GruelboxPeer gruelbox() {
        if (gruelbox == null) {
            gruelbox = new GruelboxPeer(pgUrl, schema);
        }
        return gruelbox;
    }

    /** @return the namastack peer on this schema, started (tables created) on the first call; one thread only */
    NamastackPeer namastack() {
        if (namastack == null) {
            namastack = new NamastackPeer(pgUrl, schema);
        }
        return namastack;
    }

    /** @return the qualified events table, {@code schema.ringbus_outbox} */
    String table() {
        return schema + "." + TABLE;
    }

    /** @return the replication slot of a WAL relay on this outbox (dropped with the schema) */
    String walSlot() {
        return schema + "_wal";
    }

    /** @return the schema's name */
    String schema() {
        return schema;
    }

    /**
     * Brings the database to the same state before every drain: the schema's tables analyzed or
     * left without statistics (as a queue table is where autovacuum is off), and a checkpoint, so
     * that the full-page writes of one that the fill's WAL volume requested do not fall on
     * whichever contender drains next.
     *
     * @param analyze whether to ANALYZE every table of the schema first
     * @throws SQLException when PostgreSQL refuses (CHECKPOINT needs a superuser or pg_checkpoint)
     */
    void beforeDrain(boolean analyze) throws SQLException {
        try (Connection c = outbox.dataSource().getConnection(); Statement s = c.createStatement()) {
            c.setAutoCommit(true);
            if (analyze) {
                java.util.List<String> tables = new java.util.ArrayList<>();
                try (ResultSet rs = s.executeQuery("SELECT tablename FROM pg_tables WHERE schemaname = '" + schema + "'")) {
                    while (rs.next()) {
                        tables.add(rs.getString(1));
                    }
                }
                for (String table : tables) {
                    s.execute("ANALYZE " + schema + "." + table);
                }
            }
            s.execute("CHECKPOINT");
        }
    }

    /**
     * Waits until no row is left to deliver (relays settle a batch after delivering it).
     *
     * @param timeout how long to wait
     * @param plain   count the {@link PlainEventTable}'s rows rather than the outbox's pending ones
     * @return the rows left
     * @throws SQLException when the database cannot be read
     */
    long awaitNothingPending(Duration timeout, boolean plain) throws SQLException {
        long deadline = System.nanoTime() + timeout.toNanos();
        long pending = pending(plain);
        while (pending > 0 && System.nanoTime() - deadline < 0) {
            LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
            pending = pending(plain);
        }
        return pending;
    }

    private long pending(boolean plainTable) throws SQLException {
        if (!plainTable) {
            return outbox.counts().pending();
        }
        try (Connection c = outbox.dataSource().getConnection()) {
            return plain.count(c);
        }
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

    /** Closes the peers and the pool, and drops the schema. */
    @Override
    public void close() throws SQLException {
        if (gruelbox != null) {
            gruelbox.close();
        }
        if (namastack != null) {
            namastack.close();
        }
        outbox.close();
        if (log != null) {
            log.close();
        }
        try (Connection c = DriverManager.getConnection(pgUrl); Statement s = c.createStatement()) {
            s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
            // A WAL relay's slot keeps the WAL from its position for as long as it exists.
            s.execute("SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name IN ('"
                    + walSlot() + "', '" + logSlot() + "') AND NOT active");
            s.execute("DROP PUBLICATION IF EXISTS " + io.ringbus.outbox.internal.WalRelayLoop.publicationName(schema,
                    LOG_TABLE));
            s.execute("DROP PUBLICATION IF EXISTS " + io.ringbus.outbox.internal.WalRelayLoop.publicationName(schema,
                    TABLE));
        }
    }
}
