package io.ringbus.outbox;

import io.ringbus.outbox.internal.Partitions;
import java.time.Duration;
import java.util.Objects;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * Configures an {@link Outbox}. Every setter checks its value and names it when bad; {@link #open()}
 * connects, creates or upgrades the schema, and returns the outbox.
 *
 * <p>Without a JDBC URL or data source the outbox is an embedded H2 database in a file under the
 * working directory ({@value #DEFAULT_JDBC_URL}).
 *
 * <p>Threading: not thread-safe; configure it on one thread. {@link #open()} blocks while it
 * connects and migrates; the {@link Outbox} it returns is thread-safe.
 */
public final class OutboxBuilder {
    /** The embedded default: an H2 file under the working directory, servable to other processes. */
    public static final String DEFAULT_JDBC_URL =
            "jdbc:h2:file:./ringbus-outbox-data/outbox;AUTO_SERVER=TRUE;LOCK_TIMEOUT=10000";
    /** Default largest payload, as NATS's max_payload: 1 MiB. */
    public static final int DEFAULT_MAX_PAYLOAD_BYTES = 1 << 20;
    /** Upper bound of {@link #maxPayloadBytes}: 64 MiB. */
    public static final int MAX_PAYLOAD_LIMIT = 64 << 20;
    /** Largest subject, in characters (the column width). */
    public static final int MAX_SUBJECT_LENGTH = 1024;
    /** Largest key, in characters (the column width). */
    public static final int MAX_KEY_LENGTH = 512;
    /** Largest encoded headers, in characters. */
    public static final int MAX_HEADERS_LENGTH = 64 * 1024;

    private static final Pattern IDENTIFIER = Pattern.compile("[a-z_][a-z0-9_]{0,39}");

    String jdbcUrl;
    String user;
    String password;
    DataSource dataSource;
    String schema = "public";
    String table = "ringbus_outbox";
    int maxPayloadBytes = DEFAULT_MAX_PAYLOAD_BYTES;
    int maxPoolSize = 10;
    Duration connectionTimeout = Duration.ofSeconds(10);
    String eventIdPrefix = "";
    boolean migrate = true;
    long insertOnlyPartitionRows;

    OutboxBuilder() {
    }

    /**
     * @param jdbcUrl a {@code jdbc:postgresql:} or {@code jdbc:h2:} URL; the outbox pools
     *                connections to it with HikariCP
     * @return this builder
     */
    public OutboxBuilder jdbcUrl(String jdbcUrl) {
        if (jdbcUrl == null || !(jdbcUrl.startsWith("jdbc:postgresql:") || jdbcUrl.startsWith("jdbc:h2:"))) {
            throw new IllegalArgumentException("jdbcUrl must start with jdbc:postgresql: or jdbc:h2: jdbcUrl=" + jdbcUrl);
        }
        this.jdbcUrl = jdbcUrl;
        return this;
    }

    /**
     * @param user     the database user
     * @param password its password, or {@code null}
     * @return this builder
     */
    public OutboxBuilder credentials(String user, String password) {
        this.user = Objects.requireNonNull(user, "user");
        this.password = password;
        return this;
    }

    /**
     * Uses a data source the caller owns (and closes) instead of a pool of the outbox's own.
     *
     * @param dataSource the data source
     * @return this builder
     */
    public OutboxBuilder dataSource(DataSource dataSource) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        return this;
    }

    /**
     * @param schema the schema holding the outbox tables, created if missing (default {@code public});
     *               lower case letters, digits and '_', at most 40
     * @return this builder
     */
    public OutboxBuilder schema(String schema) {
        this.schema = identifier("schema", schema);
        return this;
    }

    /**
     * @param table the events table; the outbox also creates {@code <table>_key} and
     *              {@code <table>_schema} (default {@code ringbus_outbox})
     * @return this builder
     */
    public OutboxBuilder table(String table) {
        this.table = identifier("table", table);
        return this;
    }

    /**
     * @param maxPayloadBytes the largest payload {@code append} accepts, 1 to {@value #MAX_PAYLOAD_LIMIT}
     * @return this builder
     */
    public OutboxBuilder maxPayloadBytes(int maxPayloadBytes) {
        if (maxPayloadBytes < 1 || maxPayloadBytes > MAX_PAYLOAD_LIMIT) {
            throw new IllegalArgumentException("maxPayloadBytes must be in [1, " + MAX_PAYLOAD_LIMIT
                    + "]: maxPayloadBytes=" + maxPayloadBytes);
        }
        this.maxPayloadBytes = maxPayloadBytes;
        return this;
    }

    /**
     * @param maxPoolSize connections in the outbox's own pool, 2 to 1,000 (default 10): a busy relay
     *                    loop holds one while it has work (returned when idle), and on PostgreSQL one
     *                    more LISTENs for all relays of the outbox
     * @return this builder
     */
    public OutboxBuilder maxPoolSize(int maxPoolSize) {
        if (maxPoolSize < 2 || maxPoolSize > 1000) {
            throw new IllegalArgumentException("maxPoolSize must be in [2, 1000]: maxPoolSize=" + maxPoolSize);
        }
        this.maxPoolSize = maxPoolSize;
        return this;
    }

    /**
     * @param connectionTimeout how long to wait for a pooled connection, at least 250 ms
     * @return this builder
     */
    public OutboxBuilder connectionTimeout(Duration connectionTimeout) {
        if (connectionTimeout == null || connectionTimeout.toMillis() < 250) {
            throw new IllegalArgumentException("connectionTimeout must be at least 250 ms: connectionTimeout="
                    + connectionTimeout);
        }
        this.connectionTimeout = connectionTimeout;
        return this;
    }

    /**
     * @param eventIdPrefix prepended to the row id to form the event id; give outboxes that share
     *                      a destination distinct prefixes (default empty)
     * @return this builder
     */
    public OutboxBuilder eventIdPrefix(String eventIdPrefix) {
        if (eventIdPrefix == null || eventIdPrefix.length() > 64 || eventIdPrefix.chars().anyMatch(c -> c <= ' ' || c == 127)) {
            throw new IllegalArgumentException("eventIdPrefix must be at most 64 visible characters: eventIdPrefix='"
                    + eventIdPrefix + "'");
        }
        this.eventIdPrefix = eventIdPrefix;
        return this;
    }

    /**
     * @param migrate whether {@link #open()} creates or upgrades the schema (default true); when
     *                false it only checks that the schema is at the version this build knows
     * @return this builder
     */
    public OutboxBuilder migrate(boolean migrate) {
        this.migrate = migrate;
        return this;
    }

    /**
     * The insert-only layout (PostgreSQL, for WAL relays; see docs/outbox.md): the table is
     * partitioned by id range, rows are only ever inserted, and the streaming WAL relay truncates a
     * partition once its slot has passed every row in it. Appends take no per-key lock: a WAL relay
     * delivers in commit order. {@link #open()} creates the layout when the table is new or empty
     * (ids go on from the old table's), and otherwise requires it. An existing insert-only table is
     * used as one whether or not this is called.
     *
     * @param partitionRows ids per partition, at least 100 and at most
     *                      {@value io.ringbus.outbox.internal.Partitions#MAX_PARTITION_ROWS} (suggested: a few
     *                      minutes of appends; {@value io.ringbus.outbox.internal.Partitions#DEFAULT_PARTITION_ROWS})
     * @return this builder
     * @throws IllegalArgumentException naming {@code partitionRows} when it is out of that range
     */
    public OutboxBuilder insertOnly(long partitionRows) {
        Partitions.checkPartitionRows(partitionRows);
        this.insertOnlyPartitionRows = partitionRows;
        return this;
    }

    /**
     * Connects and migrates (or, with {@code migrate(false)}, checks the schema version).
     *
     * @return the outbox
     * @throws java.sql.SQLException when the database cannot be reached or the schema not created
     * @throws IllegalStateException when the schema is newer than this build knows, or, with
     *                               {@code migrate(false)}, not at the version it knows
     */
    public Outbox open() throws java.sql.SQLException {
        if (dataSource != null && jdbcUrl != null) {
            throw new IllegalStateException("give either jdbcUrl or dataSource, not both: jdbcUrl=" + jdbcUrl);
        }
        return new Outbox(this);
    }

    private static String identifier(String what, String value) {
        if (value == null || !IDENTIFIER.matcher(value).matches()) {
            throw new IllegalArgumentException(what + " must be lower case letters, digits and '_', starting with a"
                    + " letter or '_', at most 40: " + what + "=" + value);
        }
        return value;
    }
}
