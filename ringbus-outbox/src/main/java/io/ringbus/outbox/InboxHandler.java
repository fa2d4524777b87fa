package io.ringbus.outbox;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * The effects of one message, applied on the inbox's transaction: everything it does through
 * {@code connection} commits with the message's event id, or rolls back with it.
 *
 * <p>The handler reads the message from its own scope (a lambda over the transport's message),
 * so the inbox needs nothing of it but the {@link InboxMessage}. It must not commit, roll back
 * or close the connection, and should do nothing outside the database that cannot be repeated
 * (an effect outside the transaction is not covered by the inbox).
 */
@FunctionalInterface
public interface InboxHandler {
    /**
     * Applies the message's effects.
     *
     * @param connection the transaction's connection
     * @throws SQLException when a statement fails; the inbox then rolls back everything, event id
     *                      included, and rethrows, so a redelivery applies it again
     */
    void apply(Connection connection) throws SQLException;
}
