package io.ringbus.outbox;

import io.ringbus.outbox.internal.DeadLetterStatements;
import io.ringbus.outbox.internal.OutboxStatements;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The dead letters of an outbox: rows a relay gave up on. Each call runs in a transaction of its
 * own. Retrying makes a row pending again with a fresh attempt count; it is then delivered after
 * later rows of its key that were delivered meanwhile (its key's order was already broken when it
 * died). The CLI ({@code ringbus-outbox dead ...}) calls these.
 *
 * <p>Threading: thread-safe; each call borrows a connection from the outbox's pool and blocks until
 * its transaction commits, so call it from a thread that may block (never a broker event loop).
 */
public final class DeadLetters {
    /** Most rows {@link #list} returns at once. */
    public static final int MAX_LIST = 10_000;

    private final DataSource dataSource;
    private final DeadLetterStatements statements;
    private final String eventIdPrefix;

    DeadLetters(DataSource dataSource, OutboxStatements statements, String eventIdPrefix) {
        this.dataSource = dataSource;
        this.statements = new DeadLetterStatements(statements.sql());
        this.eventIdPrefix = eventIdPrefix;
    }

    /**
     * @param afterId list rows with a greater id (0 for the first page)
     * @param limit   at most this many, 1 to {@value #MAX_LIST}
     * @return dead letters in id order
     * @throws SQLException when the database cannot be read
     */
    public List<DeadLetter> list(long afterId, int limit) throws SQLException {
        if (limit < 1 || limit > MAX_LIST) {
            throw new IllegalArgumentException("limit must be in [1, " + MAX_LIST + "]: limit=" + limit);
        }
        try (Connection connection = dataSource.getConnection()) {
            return statements.list(connection, afterId, limit, eventIdPrefix);
        }
    }

    /**
     * @param id a row id
     * @return the dead letter with that id, or empty when there is none (or the row is not dead)
     * @throws SQLException when the database cannot be read
     */
    public Optional<DeadLetter> inspect(long id) throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            return statements.inspect(connection, id, eventIdPrefix);
        }
    }

    /**
     * @param id a dead letter's id
     * @return whether it was dead and is now pending again
     * @throws SQLException when the update fails
     */
    public boolean retry(long id) throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            return statements.retry(connection, id) == 1;
        }
    }

    /**
     * @return how many dead letters became pending again
     * @throws SQLException when the update fails
     */
    public int retryAll() throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            return statements.retry(connection, -1);
        }
    }

    /**
     * @param id a dead letter's id
     * @return whether it was dead and is now deleted
     * @throws SQLException when the delete fails
     */
    public boolean purge(long id) throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            return statements.purge(connection, id) == 1;
        }
    }

    /**
     * @return how many dead letters were deleted
     * @throws SQLException when the delete fails
     */
    public int purgeAll() throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            return statements.purge(connection, -1);
        }
    }
}
