package io.ringbus.bench.outbox;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * How a contender's producers commit benchmark events, as its users would: a plain JDBC
 * transaction around {@link RowWriter} for ringbus and the poller, the peer's own transaction
 * API for {@link GruelboxPeer} and {@link NamastackPeer}. Each producer thread opens a
 * {@link Session} of its own.
 */
@FunctionalInterface
interface Appender {
    /**
     * @return a session for the calling thread only
     * @throws SQLException when no connection can be had
     */
    Session open() throws SQLException;

    /** One producer thread's transactions. */
    interface Session extends AutoCloseable {
        /**
         * Writes events {@code sequences[0 .. count)} in one transaction and commits it; records
         * each row's id (or, for a peer whose rows have no numeric id, its sequence) in the log.
         *
         * @param sequences the events' sequence numbers
         * @param count     how many of them
         * @param keyed     whether rows get their event's key
         * @param log       where the ids go
         * @throws SQLException when a write or the commit fails (nothing was committed)
         */
        void commit(int[] sequences, int count, boolean keyed, DeliveryLog log) throws SQLException;

        /** Gives the session's resources back. */
        @Override
        void close() throws SQLException;
    }

    /**
     * @param dataSource where to write
     * @param writer     what writes a row on the session's connection
     * @return sessions holding one connection each, auto-commit off
     */
    static Appender jdbc(DataSource dataSource, RowWriter writer) {
        return () -> {
            Connection c = dataSource.getConnection();
            c.setAutoCommit(false);
            return new Session() {
                @Override
                public void commit(int[] sequences, int count, boolean keyed, DeliveryLog log) throws SQLException {
                    for (int i = 0; i < count; i++) {
                        log.appended(sequences[i], writer.write(c, sequences[i], keyed));
                    }
                    c.commit();
                }

                @Override
                public void close() throws SQLException {
                    c.close();
                }
            };
        };
    }
}
