package io.ringbus.outbox;

import io.ringbus.outbox.internal.Dialect;
import io.ringbus.outbox.internal.InboxMigrations;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Objects;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * Configures an {@link Inbox}. Every setter checks its value and names it when bad;
 * {@code open} creates or upgrades the inbox's tables (or, with {@code migrate(false)}, checks
 * them) and returns the inbox.
 *
 * <p>Threading: not thread-safe; configure it on one thread. The {@link Inbox} is thread-safe.
 */
public final class InboxBuilder {
    /** Default retention of recorded event ids: 7 days. */
    public static final Duration DEFAULT_RETENTION = Duration.ofDays(7);
    /** Default number of {@link Inbox#process} calls between two purges. */
    public static final int DEFAULT_PURGE_EVERY = 1000;

    private static final Pattern IDENTIFIER = Pattern.compile("[a-z_][a-z0-9_]{0,39}");

    String schema = "public";
    String table = "ringbus_inbox";
    Duration retention = DEFAULT_RETENTION;
    int purgeEvery = DEFAULT_PURGE_EVERY;
    boolean recordRefused = true;
    boolean migrate = true;

    InboxBuilder() {
    }

    /**
     * @param schema the schema holding the inbox tables, created if missing (default {@code public});
     *               lower case letters, digits and '_', at most 40
     * @return this builder
     */
    public InboxBuilder schema(String schema) {
        this.schema = identifier("schema", schema);
        return this;
    }

    /**
     * @param table the event id table, one per consumer; the inbox also creates {@code <table>_dead}
     *              and {@code <table>_schema} (default {@code ringbus_inbox})
     * @return this builder
     */
    public InboxBuilder table(String table) {
        this.table = identifier("table", table);
        return this;
    }

    /**
     * @param retention how long a recorded event id is kept (default 7 days), at least 1 s: a
     *                  redelivery within it is a duplicate; one later than it is applied again
     * @return this builder
     */
    public InboxBuilder retention(Duration retention) {
        if (retention == null || retention.compareTo(Duration.ofSeconds(1)) < 0) {
            throw new IllegalArgumentException("retention must be at least 1 s: retention=" + retention);
        }
        this.retention = retention;
        return this;
    }

    /**
     * @param purgeEvery after how many {@link Inbox#process} calls of this inbox it purges ids past
     *                   the retention on the caller's connection, after the commit (default 1,000);
     *                   0 never (call {@link Inbox#purge} yourself)
     * @return this builder
     */
    public InboxBuilder purgeEvery(int purgeEvery) {
        if (purgeEvery < 0) {
            throw new IllegalArgumentException("purgeEvery must be 0 (never) or positive: purgeEvery=" + purgeEvery);
        }
        this.purgeEvery = purgeEvery;
        return this;
    }

    /**
     * @param recordRefused whether a refused message (no usable event id) is recorded in
     *                      {@code <table>_dead} with the reason (default true); either way the
     *                      handler never runs for it
     * @return this builder
     */
    public InboxBuilder recordRefused(boolean recordRefused) {
        this.recordRefused = recordRefused;
        return this;
    }

    /**
     * @param migrate whether {@code open} creates or upgrades the inbox's tables (default true); when
     *                false it only checks that they are at the version this build knows
     * @return this builder
     */
    public InboxBuilder migrate(boolean migrate) {
        this.migrate = migrate;
        return this;
    }

    /**
     * Migrates (or checks) the inbox's tables through {@code connection}, and returns the inbox.
     *
     * @param connection a connection to the consumer's database (its auto-commit is restored; not closed)
     * @return the inbox
     * @throws SQLException          when the database cannot be reached or the tables not created
     * @throws IllegalStateException when the tables are newer than this build knows, or, with
     *                               {@code migrate(false)}, missing or not at the version it knows
     */
    public Inbox open(Connection connection) throws SQLException {
        Objects.requireNonNull(connection, "connection");
        Dialect dialect = Dialect.of(connection);
        if (migrate) {
            InboxMigrations.migrate(connection, dialect, schema, table);
        } else {
            InboxMigrations.requireLatest(connection, schema, table);
        }
        return new Inbox(this, dialect);
    }

    /**
     * Migrates (or checks) through a connection taken from {@code dataSource} and closed again.
     *
     * @param dataSource the consumer's database
     * @return the inbox
     * @throws SQLException when the database cannot be reached or the tables not created
     */
    public Inbox open(DataSource dataSource) throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            return open(connection);
        }
    }

    private static String identifier(String what, String value) {
        if (value == null || !IDENTIFIER.matcher(value).matches()) {
            throw new IllegalArgumentException(what + " must be lower case letters, digits and '_', starting with a"
                    + " letter or '_', at most 40: " + what + "=" + value);
        }
        return value;
    }
}
