package io.ringbus.spring;

import io.ringbus.core.Scope;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code ringbus.outbox.*} properties: which subjects {@link RingbusTemplate#publish} sends
 * through the transactional outbox (ringbus-outbox) on the application's {@code DataSource}, where
 * its tables are, and the relay that delivers them to the broker. A property left unset keeps
 * {@code OutboxBuilder}'s or {@code RelayBuilder}'s default (docs/outbox.md).
 *
 * <p>Durations are text in ringbus' one duration grammar, {@link io.ringbus.core.Durations}.
 */
@ConfigurationProperties("ringbus.outbox")
public class RingbusOutboxProperties {

    /** Whether to auto-configure the outbox (needs ringbus-outbox, spring-jdbc and a DataSource bean). */
    private boolean enabled = true;

    /** Subject patterns whose publishes go through the outbox, in the caller's transaction (orders.>). */
    private List<String> guaranteedSubjects = new ArrayList<>();

    /** Schema of the outbox tables (OutboxBuilder default: public). */
    private String schema;

    /** Name of the events table (OutboxBuilder default: ringbus_outbox). */
    private String table;

    /** Whether to create or upgrade the outbox schema at startup; when false, only check its version. */
    private boolean migrate = true;

    /** Largest payload an append accepts, in bytes (OutboxBuilder default: 1 MiB). */
    private Integer maxPayloadBytes;

    /** The relay delivering the outbox to the broker. */
    private final Relay relay = new Relay();

    /** Creates the properties with the defaults (Spring binds them). */
    public RingbusOutboxProperties() {
    }

    /** @return whether the outbox is auto-configured */
    public boolean isEnabled() {
        return enabled;
    }

    /** @param enabled whether the outbox is auto-configured */
    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    /** @return the guaranteed subject patterns */
    public List<String> getGuaranteedSubjects() {
        return guaranteedSubjects;
    }

    /** @param guaranteedSubjects the guaranteed subject patterns */
    public void setGuaranteedSubjects(List<String> guaranteedSubjects) {
        this.guaranteedSubjects = guaranteedSubjects;
    }

    /** @return the schema, or {@code null} for the default */
    public String getSchema() {
        return schema;
    }

    /** @param schema the schema of the outbox tables */
    public void setSchema(String schema) {
        this.schema = schema;
    }

    /** @return the table, or {@code null} for the default */
    public String getTable() {
        return table;
    }

    /** @param table the events table's name */
    public void setTable(String table) {
        this.table = table;
    }

    /** @return whether the schema is created or upgraded at startup */
    public boolean isMigrate() {
        return migrate;
    }

    /** @param migrate whether the schema is created or upgraded at startup */
    public void setMigrate(boolean migrate) {
        this.migrate = migrate;
    }

    /** @return the payload limit, or {@code null} for the default */
    public Integer getMaxPayloadBytes() {
        return maxPayloadBytes;
    }

    /** @param maxPayloadBytes the payload limit in bytes */
    public void setMaxPayloadBytes(Integer maxPayloadBytes) {
        this.maxPayloadBytes = maxPayloadBytes;
    }

    /** @return the relay's properties */
    public Relay getRelay() {
        return relay;
    }

    /** The {@code ringbus.outbox.relay.*} properties. */
    public static class Relay {

        /** Whether to run a relay in this application (off: another process relays). */
        private boolean enabled = true;

        /** Relay name, shown in thread names and meters. */
        private String name = "ringbus-outbox";

        /** Scope the relay publishes with: a subject above it becomes a dead letter at once. */
        private Scope scope = Scope.ROOT;

        /** Rows claimed per transaction (RelayBuilder default: 500). */
        private Integer batchSize;

        /** Claim loops of this relay (RelayBuilder default: 2 on PostgreSQL, 1 on H2). */
        private Integer parallelBatches;

        /** How often an idle relay looks for rows (duration; RelayBuilder default per database). */
        private String pollInterval;

        /** Attempts before a row becomes a dead letter (RetryPolicy default: 10). */
        private Integer maxAttempts;

        /** Delay after the first failure, doubling per failure (duration; RetryPolicy default: 1s). */
        private String initialBackoff;

        /** Cap of the retry delay (duration; RetryPolicy default: 5m). */
        private String maxBackoff;

        /** How long the relay waits for its current batch on shutdown (duration). */
        private String shutdownTimeout = "30s";

        /**
         * Delete each delivered row and copy it into {@code <table>_archive} in the same statement,
         * kept for the retention (RelayBuilder.archiveDelivered).
         */
        private boolean archiveDelivered;

        /** WAL mode (PostgreSQL, {@code wal_level=logical}): the {@code ringbus.outbox.relay.wal.*} properties. */
        private final Wal wal = new Wal();

        /** Creates the properties with the defaults (Spring binds them). */
        public Relay() {
        }

        /** @return whether a relay runs in this application */
        public boolean isEnabled() {
            return enabled;
        }

        /** @param enabled whether a relay runs in this application */
        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        /** @return the relay's name */
        public String getName() {
            return name;
        }

        /** @param name the relay's name */
        public void setName(String name) {
            this.name = name;
        }

        /** @return the scope the relay publishes with */
        public Scope getScope() {
            return scope;
        }

        /** @param scope the scope the relay publishes with */
        public void setScope(Scope scope) {
            this.scope = scope;
        }

        /** @return rows per claim, or {@code null} for the default */
        public Integer getBatchSize() {
            return batchSize;
        }

        /** @param batchSize rows per claim */
        public void setBatchSize(Integer batchSize) {
            this.batchSize = batchSize;
        }

        /** @return claim loops, or {@code null} for the default */
        public Integer getParallelBatches() {
            return parallelBatches;
        }

        /** @param parallelBatches claim loops */
        public void setParallelBatches(Integer parallelBatches) {
            this.parallelBatches = parallelBatches;
        }

        /** @return the idle poll interval, or {@code null} for the default */
        public String getPollInterval() {
            return pollInterval;
        }

        /** @param pollInterval the idle poll interval (duration) */
        public void setPollInterval(String pollInterval) {
            this.pollInterval = pollInterval;
        }

        /** @return attempts before dead-lettering, or {@code null} for the default */
        public Integer getMaxAttempts() {
            return maxAttempts;
        }

        /** @param maxAttempts attempts before dead-lettering */
        public void setMaxAttempts(Integer maxAttempts) {
            this.maxAttempts = maxAttempts;
        }

        /** @return the first retry delay, or {@code null} for the default */
        public String getInitialBackoff() {
            return initialBackoff;
        }

        /** @param initialBackoff the first retry delay (duration) */
        public void setInitialBackoff(String initialBackoff) {
            this.initialBackoff = initialBackoff;
        }

        /** @return the retry delay cap, or {@code null} for the default */
        public String getMaxBackoff() {
            return maxBackoff;
        }

        /** @param maxBackoff the retry delay cap (duration) */
        public void setMaxBackoff(String maxBackoff) {
            this.maxBackoff = maxBackoff;
        }

        /** @return how long the relay's shutdown waits for its batch */
        public String getShutdownTimeout() {
            return shutdownTimeout;
        }

        /** @param shutdownTimeout how long the relay's shutdown waits for its batch (duration) */
        public void setShutdownTimeout(String shutdownTimeout) {
            this.shutdownTimeout = shutdownTimeout;
        }

        /** @return whether delivered rows are archived */
        public boolean isArchiveDelivered() {
            return archiveDelivered;
        }

        /** @param archiveDelivered whether delivered rows are archived */
        public void setArchiveDelivered(boolean archiveDelivered) {
            this.archiveDelivered = archiveDelivered;
        }

        /** @return the WAL mode properties */
        public Wal getWal() {
            return wal;
        }
    }

    /**
     * The {@code ringbus.outbox.relay.wal.*} properties: with a slot, the relay reads committed rows
     * from PostgreSQL's logical replication stream (RelayBuilder.wal) instead of polling. The stream
     * needs a connection of its own: from {@code url}, or the application's data source's URL.
     */
    public static class Wal {

        /** Replication slot (a-z, 0-9, _); unset: the relay polls. */
        private String slot;

        /** JDBC URL for the replication connection (default: the data source's URL). */
        private String url;

        /** User for it, who may replicate (default: the data source's user). */
        private String username;

        /** Its password (default: spring.datasource.password). */
        private String password;

        /** Creates the properties (Spring binds them). */
        public Wal() {
        }

        /** @return the slot, or null when the relay polls */
        public String getSlot() {
            return slot;
        }

        /** @param slot the replication slot */
        public void setSlot(String slot) {
            this.slot = slot;
        }

        /** @return the replication connection's URL, or null for the data source's */
        public String getUrl() {
            return url;
        }

        /** @param url the replication connection's URL */
        public void setUrl(String url) {
            this.url = url;
        }

        /** @return the replication user, or null for the data source's */
        public String getUsername() {
            return username;
        }

        /** @param username the replication user */
        public void setUsername(String username) {
            this.username = username;
        }

        /** @return the replication password, or null */
        public String getPassword() {
            return password;
        }

        /** @param password the replication password */
        public void setPassword(String password) {
            this.password = password;
        }
    }
}
