package io.ringbus.spring;

import io.ringbus.core.Headers;
import io.ringbus.core.Subject;
import io.ringbus.outbox.Outbox;
import io.ringbus.outbox.OutboxEvent;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Appends the publishes of guaranteed subjects ({@code ringbus.outbox.guaranteed-subjects}) to the
 * outbox, on the connection of the caller's Spring transaction, so that the event row commits or
 * rolls back with the business data; the relay delivers it after commit, at least once.
 *
 * <p>A guaranteed publish needs a transaction: outside one it is refused, since an append in a
 * transaction of its own would commit an event for data that may never be written. The ordering
 * key is the {@value OutboxEvent#KEY_HEADER} header (rows of one key are delivered in commit
 * order); without it the row has no key. The payload is stored as bytes: a {@code byte[]} as is,
 * a {@code String} as UTF-8, anything else as JSON, as listeners read it.
 *
 * <p>Thread-safe.
 */
public final class OutboxPublisher {

    private final Outbox outbox;
    private final DataSource dataSource;
    private final List<String> patterns;
    private final Function<Object, byte[]> serializer;

    /**
     * Creates the publisher.
     *
     * @param outbox     the outbox
     * @param dataSource the data source whose Spring transaction an append joins
     * @param patterns   the guaranteed subject patterns
     * @param serializer turns a payload into bytes
     * @throws IllegalArgumentException naming a malformed pattern
     */
    public OutboxPublisher(Outbox outbox, DataSource dataSource, List<String> patterns,
                           Function<Object, byte[]> serializer) {
        this.outbox = Objects.requireNonNull(outbox, "outbox");
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.serializer = Objects.requireNonNull(serializer, "serializer");
        for (String pattern : patterns) {
            Subject.requirePattern(pattern);
        }
        this.patterns = List.copyOf(patterns);
    }

    /** @return the outbox appended to */
    public Outbox outbox() {
        return outbox;
    }

    /**
     * @param subject a literal subject
     * @return whether it matches a guaranteed pattern
     */
    public boolean isGuaranteed(String subject) {
        for (String pattern : patterns) {
            if (Subject.matches(pattern, subject)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Appends an event on the current transaction's connection.
     *
     * @param subject a literal subject
     * @param headers headers; {@value OutboxEvent#KEY_HEADER} is taken as the ordering key
     * @param payload the payload, not {@code null}
     * @return the row id
     * @throws IllegalStateException    naming the subject when no transaction is active, or when the
     *                                  insert fails (the caller's transaction must roll back)
     * @throws IllegalArgumentException naming a bad subject, key or payload (the outbox's checks)
     */
    public long append(String subject, Headers headers, Object payload) {
        Objects.requireNonNull(payload, "payload");
        if (!TransactionSynchronizationManager.isActualTransactionActive()) {
            throw new IllegalStateException("a publish to a guaranteed subject needs a transaction (it is appended"
                    + " to the outbox in the caller's transaction): subject=" + subject);
        }
        String key = headers.first(OutboxEvent.KEY_HEADER);
        byte[] bytes = serializer.apply(payload);
        Connection connection = DataSourceUtils.getConnection(dataSource);
        try {
            return outbox.append(connection, subject, key, bytes, key == null ? headers : withoutKey(headers));
        } catch (SQLException e) {
            throw new IllegalStateException("outbox append failed: subject=" + subject + ": " + e.getMessage(), e);
        } finally {
            DataSourceUtils.releaseConnection(connection, dataSource);
        }
    }

    /** The relay adds the key header back on delivery; storing it too would send it twice. */
    private static Headers withoutKey(Headers headers) {
        Headers.Builder builder = Headers.builder();
        for (String name : headers.names()) {
            if (!name.equalsIgnoreCase(OutboxEvent.KEY_HEADER)) {
                for (String value : headers.all(name)) {
                    builder.add(name, value);
                }
            }
        }
        return builder.build();
    }
}
