package io.ringbus.outbox.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Array;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The relay's statements that find rows by id are planned on the primary key index whether or not
 * the table was ever analyzed (autovacuum off leaves a queue table unanalyzed for good): with a
 * parameter array of a batch's 1,000 ids the planner picks a sequential scan of a 50,000-row
 * table, ~10x the index's cost per batch.
 */
class SettlePlanTest {
    private static final String PG_URL = System.getenv().getOrDefault("RINGBUS_TEST_PG_URL",
            "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
    private static final int ROWS = 50_000;

    private final String schema = "t_" + Long.toHexString(System.nanoTime()) + "_"
            + ThreadLocalRandom.current().nextInt(1_000_000);
    private Connection c;
    private OutboxSql sql;

    @BeforeEach
    void createTable() throws SQLException {
        c = DriverManager.getConnection(PG_URL);
        Migrations.migrate(c, Dialect.POSTGRESQL, schema, "ringbus_outbox", "unused");
        sql = new OutboxSql(Dialect.POSTGRESQL, schema + ".ringbus_outbox", "unused");
        try (Statement s = c.createStatement()) {
            s.execute("INSERT INTO " + schema + ".ringbus_outbox (subject, msg_key, payload, bucket)"
                    + " SELECT 'orders.created', 'k' || (i % 1000), '\\x78', (hashtextextended('k' || (i % 1000), 0) & 63)"
                    + " FROM generate_series(1, " + ROWS + ") AS i");
        }
        c.setAutoCommit(false);
    }

    @AfterEach
    void dropTable() throws SQLException {
        c.rollback();
        c.setAutoCommit(true);
        try (Statement s = c.createStatement()) {
            s.execute("DROP SCHEMA " + schema + " CASCADE");
        }
        c.close();
    }

    @Test
    void settlingAndTheDeletingClaimUseTheIndexBeforeAndAfterAnalyze() throws SQLException {
        assertIndexPlans("never analyzed");
        try (Statement s = c.createStatement()) {
            s.execute("ANALYZE " + schema + ".ringbus_outbox");
        }
        assertIndexPlans("analyzed");
    }

    private void assertIndexPlans(String state) throws SQLException {
        long[] ids = LongStream.rangeClosed(1, 1_000).toArray();
        for (String settle : new String[] {sql.deleteDelivered, sql.markDelivered}) {
            String plan = explain(settle, ids);
            assertThat(plan).as("%s, %s:%n%s", state, settle, plan).contains("Index Cond: (id = ANY")
                    .doesNotContain("Seq Scan on ringbus_outbox");
        }
        String claim = sql.claimAndDelete.substring(sql.claimAndDelete.indexOf("WITH"));
        try (PreparedStatement explain = c.prepareStatement("EXPLAIN " + claim)) {
            explain.setArray(1, c.createArrayOf("smallint", IntStream.range(0, OutboxSql.BUCKETS)
                    .mapToObj(b -> (short) b).toArray()));
            explain.setArray(2, c.createArrayOf("integer", IntStream.range(0, OutboxSql.BUCKETS)
                    .mapToObj(b -> 1_000).toArray()));
            explain.setString(3, "a@test");
            String plan = lines(explain);
            assertThat(plan).as("%s, the deleting claim:%n%s", state, plan).contains("Tid Scan on ringbus_outbox e")
                    .doesNotContain("Seq Scan on ringbus_outbox ");
        }
    }

    private String explain(String statement, long[] ids) throws SQLException {
        try (PreparedStatement explain = c.prepareStatement("EXPLAIN " + statement)) {
            Array array = c.createArrayOf("bigint", LongStream.of(ids).boxed().toArray());
            explain.setArray(1, array);
            return lines(explain);
        }
    }

    private static String lines(PreparedStatement explain) throws SQLException {
        StringBuilder plan = new StringBuilder();
        try (ResultSet rs = explain.executeQuery()) {
            while (rs.next()) {
                plan.append(rs.getString(1)).append('\n');
            }
        }
        return plan.toString();
    }
}
