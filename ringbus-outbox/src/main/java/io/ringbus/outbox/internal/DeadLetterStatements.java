package io.ringbus.outbox.internal;

import io.ringbus.outbox.DeadLetter;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Runs the dead-letter statements of {@link OutboxSql} (list, inspect, retry, purge) on a given
 * connection. Never commits or rolls back: the caller's transaction.
 */
public final class DeadLetterStatements {
    private final OutboxSql sql;
    private final boolean pg;

    /**
     * @param sql the statements for one table and dialect
     */
    public DeadLetterStatements(OutboxSql sql) {
        this.sql = sql;
        this.pg = sql.dialect == Dialect.POSTGRESQL;
    }

    /** @return dead letters after {@code afterId}, in id order */
    public List<DeadLetter> list(Connection c, long afterId, int limit, String eventIdPrefix) throws SQLException {
        List<DeadLetter> result = new ArrayList<>();
        try (PreparedStatement select = c.prepareStatement(sql.listDead)) {
            select.setLong(1, afterId);
            select.setInt(2, limit);
            try (ResultSet rs = select.executeQuery()) {
                while (rs.next()) {
                    result.add(deadLetter(rs, eventIdPrefix));
                }
            }
        }
        return result;
    }

    /** @return the dead letter with that id, if the row exists and is dead */
    public Optional<DeadLetter> inspect(Connection c, long id, String eventIdPrefix) throws SQLException {
        try (PreparedStatement select = c.prepareStatement(sql.inspect)) {
            select.setLong(1, id);
            try (ResultSet rs = select.executeQuery()) {
                if (rs.next() && rs.getInt(10) == OutboxSql.DEAD) {
                    return Optional.of(deadLetter(rs, eventIdPrefix));
                }
            }
        }
        return Optional.empty();
    }

    /** Makes one dead letter (or all, for {@code id < 0}) pending again and wakes relays. */
    public int retry(Connection c, long id) throws SQLException {
        int count;
        if (id < 0) {
            try (Statement update = c.createStatement()) {
                count = update.executeUpdate(sql.retryAllDead);
            }
        } else {
            try (PreparedStatement update = c.prepareStatement(sql.retryDead)) {
                update.setLong(1, id);
                count = update.executeUpdate();
            }
        }
        if (count > 0 && pg) {
            try (PreparedStatement notify = c.prepareStatement("SELECT pg_notify(?, '')")) {
                notify.setString(1, sql.channel);
                notify.execute();
            }
        }
        return count;
    }

    /** Deletes one dead letter (or all, for {@code id < 0}). */
    public int purge(Connection c, long id) throws SQLException {
        if (id < 0) {
            try (Statement delete = c.createStatement()) {
                return delete.executeUpdate(sql.purgeAllDead);
            }
        }
        try (PreparedStatement delete = c.prepareStatement(sql.purgeDead)) {
            delete.setLong(1, id);
            return delete.executeUpdate();
        }
    }

    private static DeadLetter deadLetter(ResultSet rs, String eventIdPrefix) throws SQLException {
        Timestamp deadAt = rs.getTimestamp(9);
        return new DeadLetter(OutboxStatements.event(rs, eventIdPrefix), rs.getString(8), deadAt == null ? null : deadAt.toInstant());
    }
}
