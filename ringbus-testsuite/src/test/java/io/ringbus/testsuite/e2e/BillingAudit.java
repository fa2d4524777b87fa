package io.ringbus.testsuite.e2e;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the billing table says about the orders table once everything drained: orders without a
 * billing row, orders billed more than once, billing rows of no committed order, keys applied out
 * of commit order, and the commit-to-effect latency (both stamps from PostgreSQL's clock).
 *
 * @param orders           committed orders
 * @param billingRows      billing rows
 * @param missing          ids of committed orders with no billing row (at most {@value #SHOWN})
 * @param duplicated       ids of orders with more than one billing row (at most {@value #SHOWN})
 * @param phantom          order ids of billing rows whose order was never committed (at most {@value #SHOWN})
 * @param outOfOrder       "key: id after id" for each apply of a key that came after a later order's
 *                         (at most {@value #SHOWN})
 * @param keys             keys with billing rows
 * @param p50Millis        median commit-to-billing latency
 * @param p99Millis        99th percentile commit-to-billing latency
 * @param maxMillis        the largest commit-to-billing latency
 */
record BillingAudit(long orders, long billingRows, List<Long> missing, List<Long> duplicated, List<Long> phantom,
                    List<String> outOfOrder, int keys, double p50Millis, double p99Millis, double maxMillis) {
    /** How many offenders of each kind an audit lists. */
    static final int SHOWN = 20;

    /** Reads the audit from the two schemas. */
    static BillingAudit of(String ordersSchema, String billingSchema) throws SQLException {
        String orders = ordersSchema + ".orders";
        String billing = billingSchema + ".billing";
        try (Connection c = DriverManager.getConnection(E2eTables.PG_URL); Statement s = c.createStatement()) {
            long orderCount = single(s, "SELECT count(*) FROM " + orders);
            long billingCount = single(s, "SELECT count(*) FROM " + billing);
            List<Long> missing = ids(s, "SELECT o.id FROM " + orders + " o WHERE NOT EXISTS (SELECT 1 FROM " + billing
                    + " b WHERE b.order_id = o.id) ORDER BY o.id LIMIT " + SHOWN);
            List<Long> duplicated = ids(s, "SELECT order_id FROM " + billing + " GROUP BY order_id HAVING count(*) > 1"
                    + " ORDER BY order_id LIMIT " + SHOWN);
            List<Long> phantom = ids(s, "SELECT b.order_id FROM " + billing + " b WHERE NOT EXISTS (SELECT 1 FROM "
                    + orders + " o WHERE o.id = b.order_id) ORDER BY b.order_id LIMIT " + SHOWN);
            List<String> outOfOrder = new ArrayList<>();
            Map<String, Long> last = new HashMap<>();
            try (ResultSet rs = s.executeQuery("SELECT customer, order_id FROM " + billing + " ORDER BY apply_seq")) {
                while (rs.next()) {
                    String key = rs.getString(1);
                    long id = rs.getLong(2);
                    Long before = last.put(key, id);
                    if (before != null && before >= id && outOfOrder.size() < SHOWN) {
                        outOfOrder.add(key + ": " + id + " applied after " + before);
                    }
                }
            }
            double[] latency = new double[3];
            try (ResultSet rs = s.executeQuery("SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY ms),"
                    + " percentile_cont(0.99) WITHIN GROUP (ORDER BY ms), max(ms) FROM (SELECT"
                    + " extract(epoch FROM b.applied_at - o.committed_at) * 1000 AS ms FROM " + billing + " b JOIN "
                    + orders + " o ON o.id = b.order_id) l")) {
                rs.next();
                for (int i = 0; i < 3; i++) {
                    latency[i] = rs.getDouble(i + 1);
                }
            }
            return new BillingAudit(orderCount, billingCount, missing, duplicated, phantom, outOfOrder, last.size(),
                    latency[0], latency[1], latency[2]);
        }
    }

    /** @return how many distinct committed orders have a billing row (for a drain condition) */
    static long billedOrders(String ordersSchema, String billingSchema) throws SQLException {
        try (Connection c = DriverManager.getConnection(E2eTables.PG_URL); Statement s = c.createStatement()) {
            return single(s, "SELECT count(DISTINCT b.order_id) FROM " + billingSchema + ".billing b JOIN "
                    + ordersSchema + ".orders o ON o.id = b.order_id");
        }
    }

    /** @return the rows of a table ({@code schema.table}) */
    static long rows(String table) throws SQLException {
        try (Connection c = DriverManager.getConnection(E2eTables.PG_URL); Statement s = c.createStatement()) {
            return single(s, "SELECT count(*) FROM " + table);
        }
    }

    private static long single(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static List<Long> ids(Statement s, String sql) throws SQLException {
        List<Long> ids = new ArrayList<>();
        try (ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                ids.add(rs.getLong(1));
            }
        }
        return ids;
    }
}
