package io.ringbus.bench.outbox;

import java.sql.SQLException;

/**
 * Writes a backlog before any relay runs, in transactions of {@value #ROWS_PER_TRANSACTION} rows
 * on {@value #THREADS} connections, recording each row id. Keyed rows are split among the
 * connections by key, so two fill transactions never wait for (or deadlock on) the same key's
 * lock, and a key's ids rise with its sequence numbers.
 */
final class BacklogFiller {
    /** Rows per fill transaction. */
    static final int ROWS_PER_TRANSACTION = 1_000;
    /** Connections filling at once (PostgreSQL shares the machine's 2 cores with the JVM). */
    static final int THREADS = 2;

    private BacklogFiller() {
    }

    /**
     * Writes events {@code 0 .. log.events() - 1}.
     *
     * @param appender   what commits the rows
     * @param log        where the row ids go
     * @param keyed      whether rows get one of {@link EventPayload#KEYS} keys, or none
     * @return how long the fill took, in nanoseconds
     * @throws SQLException when an append or commit fails
     */
    static long fill(Appender appender, DeliveryLog log, boolean keyed) throws SQLException {
        long start = System.nanoTime();
        Parallel.run(THREADS, "filling the backlog", part -> fillPart(appender, log, keyed, part));
        return System.nanoTime() - start;
    }

    private static void fillPart(Appender appender, DeliveryLog log, boolean keyed, int part) throws SQLException {
        int[] sequences = new int[ROWS_PER_TRANSACTION];
        try (Appender.Session session = appender.open()) {
            int inTransaction = 0;
            for (int seq = 0; seq < log.events(); seq++) {
                int owner = keyed ? EventPayload.keyIndex(seq) % THREADS : seq % THREADS;
                if (owner != part) {
                    continue;
                }
                sequences[inTransaction++] = seq;
                if (inTransaction == ROWS_PER_TRANSACTION) {
                    session.commit(sequences, inTransaction, keyed, log);
                    inTransaction = 0;
                }
            }
            if (inTransaction > 0) {
                session.commit(sequences, inTransaction, keyed, log);
            }
        }
    }
}
