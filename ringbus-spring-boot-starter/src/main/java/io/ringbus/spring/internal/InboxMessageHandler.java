package io.ringbus.spring.internal;

import io.ringbus.core.Durations;
import io.ringbus.core.Message;
import io.ringbus.core.MessageHandler;
import io.ringbus.outbox.Inbox;
import io.ringbus.outbox.InboxBuilder;
import io.ringbus.outbox.InboxMessage;
import io.ringbus.spring.RingbusInboxProperties;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * A {@code @RingbusListener(inbox = ...)} method: each message in a Spring transaction on the
 * application's data source that records its event id through ringbus-outbox's {@link Inbox} and,
 * unless the id was there already or is missing, calls the method; the method's writes through
 * the same data source join that transaction. A failure rolls back everything, id included, and
 * goes to the error handler. Every {@code ringbus.inbox.purge-every} messages (default
 * {@value InboxBuilder#DEFAULT_PURGE_EVERY}), ids past the inbox's retention ({@code ringbus.inbox.retention})
 * are purged (after the commit, on a connection of their own).
 *
 * <p>Loaded only for listeners that name an inbox, so the starter runs without ringbus-outbox and
 * spring-jdbc.
 */
public final class InboxMessageHandler implements MessageHandler {
    private static final Logger LOG = LoggerFactory.getLogger(InboxMessageHandler.class);

    /** Carries the method's failure out of the transaction callback, which then rolls back. */
    private static final class ListenerFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        ListenerFailure(Throwable cause) {
            super(cause);
        }
    }

    private final MethodMessageHandler method;
    private final Inbox inbox;
    private final DataSource dataSource;
    private final TransactionTemplate transactions;
    private final AtomicLong calls = new AtomicLong();
    private final int purgeEvery;

    private InboxMessageHandler(MethodMessageHandler method, Inbox inbox, DataSource dataSource,
                                TransactionTemplate transactions, int purgeEvery) {
        this.purgeEvery = purgeEvery;
        this.method = method;
        this.inbox = inbox;
        this.dataSource = dataSource;
        this.transactions = transactions;
    }

    /**
     * Opens (creating or upgrading) the inbox table named by a listener and wraps its method.
     *
     * @param beans  where the {@code DataSource} and {@code PlatformTransactionManager} beans are
     * @param spec   {@code table} or {@code schema.table}
     * @param method the listener method's handler
     * @return the handler to subscribe
     * @throws IllegalStateException naming the method and the table when the inbox cannot be opened
     */
    public static InboxMessageHandler create(BeanFactory beans, String spec, MethodMessageHandler method) {
        DataSource dataSource = beans.getBean(DataSource.class);
        PlatformTransactionManager manager = beans.getBean(PlatformTransactionManager.class);
        InboxBuilder builder = Inbox.builder();
        RingbusInboxProperties properties = beans.getBeanProvider(RingbusInboxProperties.class).getIfAvailable();
        int purgeEvery = InboxBuilder.DEFAULT_PURGE_EVERY;
        if (properties != null) {
            try {
                if (properties.getRetention() != null) {
                    builder.retention(Durations.parse(properties.getRetention()));
                }
            } catch (IllegalArgumentException e) {
                throw new IllegalStateException("ringbus.inbox.retention: " + e.getMessage(), e);
            }
            if (properties.getPurgeEvery() != null) {
                purgeEvery = properties.getPurgeEvery();
                try {
                    builder.purgeEvery(purgeEvery);
                } catch (IllegalArgumentException e) {
                    throw new IllegalStateException("ringbus.inbox.purge-every: " + e.getMessage(), e);
                }
            }
        }
        int dot = spec.indexOf('.');
        if (dot >= 0) {
            builder.schema(spec.substring(0, dot)).table(spec.substring(dot + 1));
        } else {
            builder.table(spec);
        }
        try {
            return new InboxMessageHandler(method, builder.open(dataSource), dataSource, new TransactionTemplate(manager),
                    purgeEvery);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot open the inbox '" + spec + "' of @RingbusListener "
                    + method.method() + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void onMessage(Message message) {
        InboxMessage inboxMessage = InboxMessage.of(message);
        try {
            transactions.executeWithoutResult(status -> {
                Connection connection = DataSourceUtils.getConnection(dataSource);
                try {
                    inbox.processInTransaction(connection, inboxMessage, c -> {
                        try {
                            method.invoke(message);
                        } catch (Throwable e) {
                            throw new ListenerFailure(e);
                        }
                    });
                } catch (SQLException e) {
                    throw new ListenerFailure(e);
                } finally {
                    DataSourceUtils.releaseConnection(connection, dataSource);
                }
            });
        } catch (ListenerFailure e) {
            method.failed(e.getCause(), message);
            return;
        } catch (RuntimeException e) {
            method.failed(e, message);
            return;
        }
        if (purgeEvery > 0 && calls.incrementAndGet() % purgeEvery == 0) {
            purge();
        }
    }

    private void purge() {
        try (Connection connection = dataSource.getConnection()) {
            inbox.purge(connection);
        } catch (SQLException | RuntimeException e) {
            LOG.warn("inbox {}: purge of ids older than {} failed; the next one retries", inbox.table(),
                    inbox.retention(), e);
        }
    }
}
