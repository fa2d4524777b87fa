package io.ringbus.spring;

import io.ringbus.core.Broker;
import io.ringbus.core.Durations;
import io.ringbus.outbox.BrokerSink;
import io.ringbus.outbox.Outbox;
import io.ringbus.outbox.OutboxBuilder;
import io.ringbus.outbox.Relay;
import io.ringbus.outbox.RelayBuilder;
import io.ringbus.outbox.RetryPolicy;
import io.ringbus.spring.internal.OutboxRelayLifecycle;
import io.ringbus.spring.internal.PayloadConverter;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * Auto-configures the transactional outbox (ringbus-outbox) on the application's
 * {@link DataSource}: an {@link Outbox} (its schema created or upgraded at startup), the
 * {@link OutboxPublisher} through which {@link RingbusTemplate#publish} appends the guaranteed
 * subjects in the caller's transaction, a relay delivering the rows to the broker (a lifecycle
 * bean in {@link RingbusAutoConfiguration#RELAY_PHASE}: started after the broker and the
 * listeners, stopped before the broker drains), and the {@link RingbusOutboxEndpoint} with
 * spring-boot-actuator on the classpath.
 *
 * <p>Active when ringbus-outbox and spring-jdbc are on the classpath, a {@code DataSource} and a
 * {@code Broker} bean exist, and {@code ringbus.outbox.enabled} is not {@code false}.
 */
@AutoConfiguration(after = RingbusAutoConfiguration.class,
        afterName = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
@ConditionalOnClass(value = Outbox.class, name = "org.springframework.jdbc.datasource.DataSourceUtils")
@ConditionalOnBean({DataSource.class, Broker.class})
@ConditionalOnBooleanProperty(name = "ringbus.outbox.enabled", matchIfMissing = true)
@EnableConfigurationProperties(RingbusOutboxProperties.class)
public class RingbusOutboxAutoConfiguration {

    /** Creates the auto-configuration (Spring does). */
    public RingbusOutboxAutoConfiguration() {
    }

    /**
     * The outbox on the application's data source, its schema created or upgraded unless
     * {@code ringbus.outbox.migrate=false}.
     *
     * @param dataSource the application's data source
     * @param properties the {@code ringbus.outbox.*} properties
     * @return the outbox; closed with the context (the application's data source stays open)
     * @throws SQLException when the database cannot be reached or the schema not created
     */
    @Bean
    @ConditionalOnMissingBean
    public Outbox ringbusOutbox(DataSource dataSource, RingbusOutboxProperties properties) throws SQLException {
        OutboxBuilder builder = Outbox.builder().dataSource(dataSource).migrate(properties.isMigrate());
        if (properties.getSchema() != null) {
            builder.schema(properties.getSchema());
        }
        if (properties.getTable() != null) {
            builder.table(properties.getTable());
        }
        if (properties.getMaxPayloadBytes() != null) {
            builder.maxPayloadBytes(properties.getMaxPayloadBytes());
        }
        return builder.open();
    }

    /**
     * The guaranteed subjects' publisher, used by the auto-configured {@link RingbusTemplate}.
     *
     * @param outbox     the outbox
     * @param dataSource the data source whose transactions appends join
     * @param properties the {@code ringbus.outbox.*} properties
     * @param converter  the listeners' payload converter (JSON with Jackson 3)
     * @return the publisher
     */
    @Bean
    @ConditionalOnMissingBean
    OutboxPublisher ringbusOutboxPublisher(Outbox outbox, DataSource dataSource,
            RingbusOutboxProperties properties, PayloadConverter converter) {
        return new OutboxPublisher(outbox, dataSource, properties.getGuaranteedSubjects(),
                payload -> (byte[]) converter.toReply(payload, true));
    }

    /**
     * The relay, delivering to the broker with the scope {@code ringbus.outbox.relay.scope}.
     *
     * @param outbox     the outbox
     * @param broker     the broker
     * @param properties the {@code ringbus.outbox.*} properties
     * @param dataSource  the application's data source (WAL mode's default URL and user)
     * @param environment where WAL mode's default password is read ({@code spring.datasource.password})
     * @return the lifecycle bean that starts and stops the relay
     * @throws SQLException when WAL mode needs the data source's URL and it cannot be read
     */
    @Bean
    @ConditionalOnBooleanProperty(name = "ringbus.outbox.relay.enabled", matchIfMissing = true)
    OutboxRelayLifecycle ringbusOutboxRelay(Outbox outbox, Broker broker, RingbusOutboxProperties properties,
            DataSource dataSource, Environment environment) throws SQLException {
        RingbusOutboxProperties.Relay p = properties.getRelay();
        BrokerSink sink = new BrokerSink(broker.client(p.getScope()));
        WalSource wal = WalSource.of(p.getWal(), dataSource, environment);
        relayBuilder(outbox, sink, p, wal);   // checks the values now: a bad one fails the context, not its start
        Duration shutdownTimeout = Durations.parse(p.getShutdownTimeout());
        return new OutboxRelayLifecycle(() -> relayBuilder(outbox, sink, p, wal), shutdownTimeout,
                RingbusAutoConfiguration.RELAY_PHASE);
    }

    /** The replication stream's connection for WAL mode, resolved once. */
    private record WalSource(String slot, String url, String username, String password) {
        static WalSource of(RingbusOutboxProperties.Wal wal, DataSource dataSource, Environment environment)
                throws SQLException {
            if (wal.getSlot() == null) {
                return null;
            }
            String url = wal.getUrl();
            String username = wal.getUsername();
            if (url == null || username == null) {
                try (Connection c = dataSource.getConnection()) {
                    url = url != null ? url : c.getMetaData().getURL();
                    username = username != null ? username : c.getMetaData().getUserName();
                }
            }
            String password = wal.getPassword() != null ? wal.getPassword()
                    : environment.getProperty("spring.datasource.password");
            return new WalSource(wal.getSlot(), url, username, password);
        }
    }

    private static RelayBuilder relayBuilder(Outbox outbox, BrokerSink sink, RingbusOutboxProperties.Relay p,
                                             WalSource wal) {
        RelayBuilder builder = outbox.relay().name(p.getName()).sink(sink).archiveDelivered(p.isArchiveDelivered());
        if (wal != null) {
            builder.wal(wal.slot(), wal.url(), wal.username(), wal.password());
        }
        if (p.getBatchSize() != null) {
            builder.batchSize(p.getBatchSize());
        }
        if (p.getParallelBatches() != null) {
            builder.parallelBatches(p.getParallelBatches());
        }
        if (p.getPollInterval() != null) {
            builder.pollInterval(Durations.parse(p.getPollInterval()));
        }
        if (p.getMaxAttempts() != null || p.getInitialBackoff() != null || p.getMaxBackoff() != null) {
            RetryPolicy d = RetryPolicy.DEFAULT;
            builder.retryPolicy(new RetryPolicy(
                    p.getMaxAttempts() != null ? p.getMaxAttempts() : d.maxAttempts(),
                    p.getInitialBackoff() != null ? Durations.parse(p.getInitialBackoff()) : d.initialBackoff(),
                    p.getMaxBackoff() != null ? Durations.parse(p.getMaxBackoff()) : d.maxBackoff(),
                    d.jitter()));
        }
        return builder;
    }

    /** The dead-letter endpoint. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(Endpoint.class)
    static class Actuator {

        @Bean
        @ConditionalOnMissingBean
        RingbusOutboxEndpoint ringbusOutboxEndpoint(Outbox outbox, ObjectProvider<OutboxRelayLifecycle> relays) {
            return new RingbusOutboxEndpoint(outbox, () -> {
                OutboxRelayLifecycle lifecycle = relays.getIfAvailable();
                Relay relay = lifecycle == null ? null : lifecycle.relay();
                return relay == null ? null : relay.stats();
            });
        }
    }
}
