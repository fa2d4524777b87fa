package io.ringbus.outbox;

import io.ringbus.outbox.internal.Dialect;
import io.ringbus.outbox.internal.InboxSql;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A consumer's inbox: each event's effects applied once, by recording its event id in the
 * consumer's own database in the same transaction as the effects.
 *
 * <pre>{@code
 * Inbox inbox = Inbox.builder().retention(Duration.ofDays(7)).open(dataSource);
 * InboxResult result = inbox.process(connection, InboxMessage.of(msg), c -> insertInvoice(c, msg));
 * msg.ackSync(Duration.ofSeconds(5));   // after the commit, whatever the outcome
 * }</pre>
 *
 * <p><b>Guarantee.</b> For messages whose event id is recorded ({@link InboxOutcome#APPLIED}), the
 * handler's effects commit exactly once per event id, however often the transport redelivers it,
 * as long as each redelivery comes within the {@linkplain InboxBuilder#retention retention} of the
 * first commit: a purged id is forgotten, and a redelivery after that is applied again. Two
 * deliveries of one id processed at the same time: on PostgreSQL the second waits for the first's
 * transaction and is a duplicate if it commits, applied if it rolls back.
 *
 * <p><b>Acknowledge after {@code process} returns</b>, for every outcome: its transaction has
 * committed by then. A handler's exception is thrown after everything, event id included, was
 * rolled back: do not acknowledge, so the transport redelivers and a later try applies it.
 *
 * <p>Thread-safe: connections are the caller's; the inbox itself holds only its settings and a
 * counter of calls.
 */
public final class Inbox {
    private static final Logger LOG = LoggerFactory.getLogger(Inbox.class);

    private final InboxSql sql;
    private final String table;
    private final Duration retention;
    private final int purgeEvery;
    private final boolean recordRefused;
    private final AtomicLong calls = new AtomicLong();

    Inbox(InboxBuilder builder, Dialect dialect) {
        table = builder.schema + "." + builder.table;
        sql = new InboxSql(dialect, table);
        retention = builder.retention;
        purgeEvery = builder.purgeEvery;
        recordRefused = builder.recordRefused;
    }

    /** @return a builder with the defaults (table {@code public.ringbus_inbox}, 7 days' retention) */
    public static InboxBuilder builder() {
        return new InboxBuilder();
    }

    /**
     * Applies a message once, in a transaction of its own on {@code connection}: records the event
     * id, runs the handler, commits. A duplicate or a refusal runs no handler; a refusal commits
     * its dead-letter row (when the inbox records refusals), a duplicate writes nothing.
     *
     * <p>The connection is the caller's (not closed); uncommitted work on it from before the call
     * commits or rolls back with the message's transaction. Its auto-commit mode is restored afterwards. Every
     * {@code purgeEvery}-th call then purges expired ids on it, in transactions of their own; a
     * purge that fails is logged and does not change the result.
     *
     * @param connection the consumer's connection, open
     * @param message    the message's event id (and what to record of a refusal)
     * @param handler    the message's effects
     * @return applied, duplicate or refused, committed: acknowledge the message
     * @throws SQLException when the handler or the inbox's own statements fail, after rolling
     *                      everything back: do not acknowledge
     */
    public InboxResult process(Connection connection, InboxMessage message, InboxHandler handler)
            throws SQLException {
        Objects.requireNonNull(connection, "connection");
        Objects.requireNonNull(message, "message");
        Objects.requireNonNull(handler, "handler");
        boolean autoCommit = connection.getAutoCommit();
        if (autoCommit) {
            connection.setAutoCommit(false);
        }
        InboxResult result;
        try {
            result = processInTransaction(connection, message, handler);
            // A duplicate wrote nothing; committing (not rolling back) leaves whatever the caller
            // ran before on this connection as every other outcome does.
            connection.commit();
        } catch (SQLException | RuntimeException | Error e) {
            rollback(connection, e);
            throw e;
        } finally {
            if (autoCommit) {
                connection.setAutoCommit(true);
            }
        }
        if (purgeEvery > 0 && calls.incrementAndGet() % purgeEvery == 0) {
            try {
                purge(connection);
            } catch (SQLException | RuntimeException e) {
                LOG.warn("inbox {}: purge of ids older than {} failed; the next one retries", table, retention, e);
            }
        }
        return result;
    }

    /**
     * Applies a message once in the caller's transaction, as {@link #process} does but without
     * committing or rolling back: for a transaction managed elsewhere (Spring's
     * {@code @Transactional}). Commit afterwards for every outcome (a duplicate wrote nothing, a
     * refusal its dead-letter row); when the handler throws, roll back.
     *
     * @param connection the caller's connection, with auto-commit off
     * @param message    the message
     * @param handler    the message's effects
     * @return applied, duplicate or refused
     * @throws IllegalStateException when the connection is in auto-commit mode (nothing run)
     * @throws SQLException          when the handler or the inbox's statements fail: roll back
     */
    public InboxResult processInTransaction(Connection connection, InboxMessage message, InboxHandler handler)
            throws SQLException {
        Objects.requireNonNull(message, "message");
        Objects.requireNonNull(handler, "handler");
        if (connection.getAutoCommit()) {
            throw new IllegalStateException("processInTransaction must run in the caller's transaction, but the"
                    + " connection is in auto-commit mode (eventId=" + message.eventId() + "); use process()");
        }
        String refusal = message.refusal();
        if (refusal != null) {
            if (recordRefused) {
                sql.recordRefused(connection, InboxMessage.printable(message.eventId()),
                        InboxMessage.printable(message.key()), InboxMessage.printable(message.subject()), refusal,
                        message.payload());
            }
            LOG.warn("inbox {}: refused a message unapplied: {} ({})", table, refusal, message);
            return new InboxResult(InboxOutcome.REFUSED, message.eventId(), refusal);
        }
        if (!sql.recordId(connection, message.eventId(), message.key())) {
            return new InboxResult(InboxOutcome.DUPLICATE, message.eventId(), null);
        }
        handler.apply(connection);
        return new InboxResult(InboxOutcome.APPLIED, message.eventId(), null);
    }

    /**
     * Deletes the ids recorded longer ago than the retention (database clock), in transactions of
     * {@value InboxSql#PURGE_CHUNK} ids each, committed on {@code connection}; its auto-commit
     * mode is restored afterwards. A redelivery of a purged id is applied again.
     *
     * @param connection a connection to the consumer's database, with no uncommitted work
     * @return how many ids were deleted
     * @throws SQLException when a delete fails (the chunks before it stay deleted)
     */
    public long purge(Connection connection) throws SQLException {
        boolean autoCommit = connection.getAutoCommit();
        connection.setAutoCommit(false);
        long deleted = 0;
        try {
            int chunk;
            do {
                chunk = sql.purgeChunk(connection, retention.toMillis());
                connection.commit();
                deleted += chunk;
            } while (chunk == InboxSql.PURGE_CHUNK);
            return deleted;
        } catch (SQLException | RuntimeException e) {
            rollback(connection, e);
            throw e;
        } finally {
            connection.setAutoCommit(autoCommit);
        }
    }

    /** @return how long a recorded event id is kept */
    public Duration retention() {
        return retention;
    }

    /** @return the qualified event id table ({@code schema.table}) */
    public String table() {
        return table;
    }

    @Override
    public String toString() {
        return "Inbox[" + sql.dialect() + " " + table + ", retention=" + retention + "]";
    }

    private static void rollback(Connection connection, Throwable cause) {
        try {
            connection.rollback();
        } catch (SQLException e) {
            cause.addSuppressed(e);
        }
    }
}
