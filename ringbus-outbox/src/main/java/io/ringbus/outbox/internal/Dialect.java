package io.ringbus.outbox.internal;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Locale;

/**
 * The databases the outbox runs on, told apart by the JDBC driver's product name. What differs
 * between them is in {@link OutboxSql}; everything else is plain JDBC.
 */
public enum Dialect {
    /** PostgreSQL: row claiming with SKIP LOCKED, LISTEN/NOTIFY wake-ups, arrays as parameters. */
    POSTGRESQL("postgresql"),
    /** H2 (embedded, a file by default): polling only, one statement per row where arrays differ. */
    H2("h2");

    private final String resourceFolder;

    Dialect(String resourceFolder) {
        this.resourceFolder = resourceFolder;
    }

    /** @return the folder under {@code io/ringbus/outbox/migrations} holding this dialect's scripts */
    public String resourceFolder() {
        return resourceFolder;
    }

    /**
     * @param connection a connection to the database
     * @return its dialect
     * @throws SQLException when the metadata cannot be read
     * @throws IllegalArgumentException naming the product when it is neither PostgreSQL nor H2
     */
    public static Dialect of(Connection connection) throws SQLException {
        String product = connection.getMetaData().getDatabaseProductName();
        String lower = product.toLowerCase(Locale.ROOT);
        if (lower.contains("postgresql")) {
            return POSTGRESQL;
        }
        if (lower.equals("h2")) {
            return H2;
        }
        throw new IllegalArgumentException("unsupported database (PostgreSQL and H2 are): product=" + product);
    }
}
