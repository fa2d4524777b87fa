package io.ringbus.outbox;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.ringbus.core.Headers;
import io.ringbus.core.Subject;
import io.ringbus.outbox.internal.Dialect;
import io.ringbus.outbox.internal.HeaderCodec;
import io.ringbus.outbox.internal.Migrations;
import io.ringbus.outbox.internal.OutboxSql;
import io.ringbus.outbox.internal.OutboxStatements;
import io.ringbus.outbox.internal.Partitions;
import io.ringbus.outbox.internal.PgListener;
import io.ringbus.outbox.internal.Wakeups;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * A transactional outbox: rows appended in the caller's database transaction, delivered after it
 * commits by one or more {@link Relay}s, at least once and in order per key.
 *
 * <pre>{@code
 * try (Outbox outbox = Outbox.builder().jdbcUrl("jdbc:postgresql://127.0.0.1/app").open()) {
 *     try (Connection c = dataSource.getConnection()) {
 *         c.setAutoCommit(false);
 *         insertOrder(c, order);                                   // business data
 *         outbox.append(c, "orders.created", order.id(), json);    // same transaction
 *         c.commit();                                              // both or neither
 *     }
 * }
 * }</pre>
 *
 * <p>Thread-safe. {@code append} never commits, rolls back or otherwise changes the caller's
 * connection; it checks every argument before it runs any SQL, so a bad argument leaves the
 * caller's transaction as it was (on PostgreSQL a failed statement would abort it).
 */
public final class Outbox implements AutoCloseable {
    private final DataSource dataSource;
    private final HikariDataSource ownPool;
    private final OutboxStatements statements;
    private final String eventIdPrefix;
    private final int maxPayloadBytes;
    private final String schema;
    private final String table;
    private final String description;
    private final PgListener listener;
    private final Wakeups wakeups = new Wakeups();
    private final String jdbcUrl;
    private final String user;
    private final String password;

    Outbox(OutboxBuilder builder) throws SQLException {
        if (builder.dataSource != null) {
            dataSource = builder.dataSource;
            ownPool = null;
        } else {
            HikariConfig config = new HikariConfig();
            config.setJdbcUrl(builder.jdbcUrl != null ? builder.jdbcUrl : OutboxBuilder.DEFAULT_JDBC_URL);
            if (builder.user != null) {
                config.setUsername(builder.user);
                config.setPassword(builder.password);
            }
            config.setMaximumPoolSize(builder.maxPoolSize);
            config.setMinimumIdle(1);
            config.setConnectionTimeout(builder.connectionTimeout.toMillis());
            config.setPoolName("ringbus-outbox-" + builder.schema + "." + builder.table);
            // The pool itself never fails to start; open() reaches the database below (migrations),
            // and relays later ride out outages by reconnecting through the pool.
            config.setInitializationFailTimeout(-1);
            ownPool = new HikariDataSource(config);
            dataSource = ownPool;
        }
        try {
            Dialect dialect;
            try (Connection connection = dataSource.getConnection()) {
                dialect = Dialect.of(connection);
                String channel = "ringbus_outbox_" + Integer.toHexString((builder.schema + "." + builder.table).hashCode());
                if (builder.migrate) {
                    Migrations.migrate(connection, dialect, builder.schema, builder.table, channel);
                } else {
                    Migrations.requireLatest(connection, builder.schema, builder.table);
                }
                boolean insertOnly = layout(connection, dialect, builder);
                statements = new OutboxStatements(new OutboxSql(dialect, builder.schema + "." + builder.table, channel,
                        insertOnly));
            }
        } catch (SQLException | RuntimeException e) {
            if (ownPool != null) {
                ownPool.close();
            }
            throw e;
        }
        jdbcUrl = builder.jdbcUrl;
        user = builder.user;
        password = builder.password;
        eventIdPrefix = builder.eventIdPrefix;
        maxPayloadBytes = builder.maxPayloadBytes;
        schema = builder.schema;
        table = builder.table;
        description = statements.sql().dialect() + " " + statements.sql().table();
        listener = statements.sql().dialect() == Dialect.POSTGRESQL
                ? new PgListener(dataSource, statements.sql().channel()) : null;
    }

    /**
     * @return whether the table has the insert-only layout, creating it first when the builder asks
     * for it and the table is empty
     */
    private static boolean layout(Connection connection, Dialect dialect, OutboxBuilder builder) throws SQLException {
        if (dialect != Dialect.POSTGRESQL) {
            if (builder.insertOnlyPartitionRows > 0) {
                throw new IllegalStateException("the insert-only layout needs PostgreSQL, not " + dialect + ": table "
                        + builder.schema + "." + builder.table);
            }
            return false;
        }
        if (Partitions.insertOnly(connection, builder.schema, builder.table)) {
            return true;
        }
        if (builder.insertOnlyPartitionRows == 0) {
            return false;
        }
        if (!builder.migrate) {
            throw new IllegalStateException("outbox table " + builder.schema + "." + builder.table + " has the polling"
                    + " layout, not insert-only; open it with migrate(true) to convert it while it is empty");
        }
        Partitions.createLayout(connection, builder.schema, builder.table, builder.insertOnlyPartitionRows);
        return true;
    }

    /** @return a builder with the defaults (embedded H2 file, table {@code public.ringbus_outbox}) */
    public static OutboxBuilder builder() {
        return new OutboxBuilder();
    }

    /**
     * Appends a row in the caller's transaction: it becomes visible to relays when, and only
     * when, that transaction commits.
     *
     * @param connection the caller's connection, open, with auto-commit off
     * @param subject    the literal subject to deliver to
     * @param key        the ordering key (rows with the same key are delivered in commit order),
     *                   or {@code null} for no ordering
     * @param payload    the payload, at most {@code maxPayloadBytes}; not copied, so do not
     *                   modify it before the statement returns
     * @param headers    headers to deliver with it
     * @return the row id
     * @throws IllegalArgumentException naming a bad subject, key, payload or headers (nothing run)
     * @throws IllegalStateException    when the connection is closed or in auto-commit (nothing run)
     * @throws SQLException             when the insert fails; the caller's transaction must then be
     *                                  rolled back, as after any failed statement
     */
    public long append(Connection connection, String subject, String key, byte[] payload, Headers headers)
            throws SQLException {
        String encodedHeaders = check(subject, key, payload, headers);
        Objects.requireNonNull(connection, "connection");
        if (connection.isClosed()) {
            throw new IllegalStateException("append needs an open connection: the connection is closed (subject="
                    + subject + ")");
        }
        if (connection.getAutoCommit()) {
            throw new IllegalStateException("append must run in the caller's transaction, but the connection is in"
                    + " auto-commit mode (subject=" + subject + "); call setAutoCommit(false) first, or use publish()");
        }
        long id = statements.append(connection, subject, key, payload, encodedHeaders);
        wakeups.wakeAll();
        return id;
    }

    /**
     * Appends a row without headers in the caller's transaction; see
     * {@link #append(Connection, String, String, byte[], Headers)}.
     *
     * @param connection the caller's connection, with auto-commit off
     * @param subject    the literal subject
     * @param key        the ordering key, or {@code null}
     * @param payload    the payload
     * @return the row id
     * @throws SQLException when the insert fails
     */
    public long append(Connection connection, String subject, String key, byte[] payload) throws SQLException {
        return append(connection, subject, key, payload, Headers.EMPTY);
    }

    /**
     * Appends a row in the transaction bound to a data source, as Spring does: with Spring's
     * {@code TransactionAwareDataSourceProxy} (or any data source whose {@code getConnection()}
     * returns the current transaction's connection and whose {@code close()} leaves it open), the
     * row commits or rolls back with the {@code @Transactional} method around the call.
     *
     * @param transactionalDataSource the transaction-aware data source
     * @param subject                 the literal subject
     * @param key                     the ordering key, or {@code null}
     * @param payload                 the payload
     * @param headers                 the headers
     * @return the row id
     * @throws IllegalStateException when no transaction is active (the connection is in auto-commit)
     * @throws SQLException          when the insert fails
     */
    public long append(DataSource transactionalDataSource, String subject, String key, byte[] payload, Headers headers)
            throws SQLException {
        check(subject, key, payload, headers);
        try (Connection connection = transactionalDataSource.getConnection()) {
            return append(connection, subject, key, payload, headers);
        }
    }

    /**
     * Appends a row in a transaction of its own on the outbox's data source, committed before this
     * returns: for events that do not go with business data.
     *
     * @param subject the literal subject
     * @param key     the ordering key, or {@code null}
     * @param payload the payload
     * @param headers the headers
     * @return the row id
     * @throws SQLException when the insert or commit fails (the row is then not appended)
     */
    public long publish(String subject, String key, byte[] payload, Headers headers) throws SQLException {
        String encodedHeaders = check(subject, key, payload, headers);
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(false);
            try {
                long id = statements.append(connection, subject, key, payload, encodedHeaders);
                connection.commit();
                wakeups.wakeAll();
                return id;
            } catch (SQLException | RuntimeException e) {
                connection.rollback();
                throw e;
            }
        }
    }

    /**
     * @return how many rows are pending, delivered (kept until the retention sweep) and dead
     * @throws SQLException when the database cannot be read
     */
    public OutboxCounts counts() throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            return statements.counts(connection);
        }
    }

    /**
     * @return the schema version the database records for this outbox's tables
     * @throws SQLException when the database cannot be read
     */
    public int schemaVersion() throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            return Migrations.version(connection, schema, table);
        }
    }

    /** @return the dead letters: list, inspect, retry, purge */
    public DeadLetters deadLetters() {
        return new DeadLetters(dataSource, statements, eventIdPrefix);
    }

    /** @return a builder for a relay delivering this outbox's rows */
    public RelayBuilder relay() {
        return new RelayBuilder(this);
    }

    /** @return the data source the outbox uses (its own pool unless one was given) */
    public DataSource dataSource() {
        return dataSource;
    }

    /** @return whether the table has the insert-only layout (relayed in WAL mode only; see {@link OutboxBuilder#insertOnly}) */
    public boolean insertOnly() {
        return statements.sql().insertOnly();
    }

    /** @return whether the database is PostgreSQL (relays then claim with SKIP LOCKED and LISTEN) */
    public boolean isPostgreSql() {
        return statements.sql().dialect() == Dialect.POSTGRESQL;
    }

    OutboxStatements statements() {
        return statements;
    }

    PgListener listener() {
        return listener;
    }

    /** @return the JDBC URL the outbox was opened with, {@code null} when given a data source */
    String jdbcUrl() {
        return jdbcUrl;
    }

    /** @return the user given with the URL, or {@code null} */
    String user() {
        return user;
    }

    /** @return the password given with the URL, or {@code null} */
    String password() {
        return password;
    }

    /** @return the relays started from this outbox, woken by its appends */
    Wakeups wakeups() {
        return wakeups;
    }

    String eventIdPrefix() {
        return eventIdPrefix;
    }

    /**
     * Stops the LISTEN connection and closes the outbox's own connection pool (not a data source
     * given to the builder). Close the relays first.
     */
    @Override
    public void close() {
        if (listener != null) {
            listener.close();
        }
        if (ownPool != null) {
            ownPool.close();
        }
    }

    @Override
    public String toString() {
        return "Outbox[" + description + "]";
    }

    private String check(String subject, String key, byte[] payload, Headers headers) {
        Subject.requireLiteral(subject);
        if (subject.length() > OutboxBuilder.MAX_SUBJECT_LENGTH) {
            throw new IllegalArgumentException("subject longer than " + OutboxBuilder.MAX_SUBJECT_LENGTH
                    + " characters: length=" + subject.length() + ", subject=" + subject.substring(0, 64) + "...");
        }
        if (key != null && (key.isEmpty() || key.length() > OutboxBuilder.MAX_KEY_LENGTH)) {
            throw new IllegalArgumentException("key must be null or 1 to " + OutboxBuilder.MAX_KEY_LENGTH
                    + " characters: key length=" + key.length() + " (subject=" + subject + ")");
        }
        if (key != null) {
            for (int i = 0; i < key.length(); i++) {
                if (Character.isISOControl(key.charAt(i))) {
                    // PostgreSQL refuses NUL in text (the insert would abort the caller's transaction),
                    // and a line break would end up in the Ringbus-Key header of every sink.
                    throw new IllegalArgumentException("key must not contain control characters: U+"
                            + String.format("%04X", (int) key.charAt(i)) + " at index " + i + " (subject=" + subject + ")");
                }
            }
        }
        Objects.requireNonNull(payload, "payload");
        if (payload.length > maxPayloadBytes) {
            throw new IllegalArgumentException("payload too large: " + payload.length + " bytes > maxPayloadBytes="
                    + maxPayloadBytes + " (subject=" + subject + ")");
        }
        Objects.requireNonNull(headers, "headers");
        String encoded = HeaderCodec.encode(headers);
        if (encoded != null && encoded.length() > OutboxBuilder.MAX_HEADERS_LENGTH) {
            throw new IllegalArgumentException("headers too large: " + encoded.length() + " characters > "
                    + OutboxBuilder.MAX_HEADERS_LENGTH + " (subject=" + subject + ")");
        }
        return encoded;
    }
}
