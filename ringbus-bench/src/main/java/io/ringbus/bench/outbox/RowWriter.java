package io.ringbus.bench.outbox;

import io.ringbus.outbox.Outbox;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * Writes the row of one benchmark event in the caller's transaction: through
 * {@link Outbox#append} for ringbus, or a plain {@code INSERT} for the floor and the 60-line
 * poller. Every row has the same shape: {@link EventPayload#SUBJECT}, the event's key (or none),
 * its {@value EventPayload#BYTES} B payload and no headers.
 */
@FunctionalInterface
interface RowWriter {
    /**
     * @param connection a connection with auto-commit off; the caller commits
     * @param sequence   the event's sequence number
     * @param keyed      whether the row gets the event's key
     * @return the row id
     * @throws SQLException when the insert fails
     */
    long write(Connection connection, int sequence, boolean keyed) throws SQLException;

    /**
     * @param outbox the outbox
     * @return a writer appending through it
     */
    static RowWriter outbox(Outbox outbox) {
        return (connection, sequence, keyed) -> outbox.append(connection, EventPayload.SUBJECT,
                keyed ? EventPayload.key(sequence) : null, EventPayload.encode(sequence));
    }
}
