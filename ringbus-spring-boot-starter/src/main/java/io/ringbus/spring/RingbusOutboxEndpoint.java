package io.ringbus.spring;

import io.ringbus.outbox.DeadLetter;
import io.ringbus.outbox.DeadLetters;
import io.ringbus.outbox.Outbox;
import io.ringbus.outbox.OutboxCounts;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * The {@code ringbusoutbox} actuator endpoint: the outbox's backlog and its dead letters.
 *
 * <ul>
 *   <li>read {@code /actuator/ringbusoutbox}: counts (pending, delivered, dead) and the first
 *       {@value #PAGE} dead letters; {@code /actuator/ringbusoutbox/{afterId}} the next page;</li>
 *   <li>write (POST) {@code /actuator/ringbusoutbox/{id}}: makes a dead letter pending again;</li>
 *   <li>delete {@code /actuator/ringbusoutbox/{id}}: deletes a dead letter.</li>
 * </ul>
 *
 * <p>Each operation runs one short transaction on the outbox's data source and blocks until it
 * commits. A database error is thrown as {@link IllegalStateException}.
 */
@Endpoint(id = "ringbusoutbox")
public class RingbusOutboxEndpoint {

    /** Dead letters per page. */
    public static final int PAGE = 100;

    private final Outbox outbox;

    /** @param outbox the outbox to show */
    public RingbusOutboxEndpoint(Outbox outbox) {
        this.outbox = Objects.requireNonNull(outbox, "outbox");
    }

    /** @return the counts and the first page of dead letters */
    @ReadOperation
    public Map<String, Object> outbox() {
        return page(0);
    }

    /**
     * @param afterId the last id of the previous page
     * @return the counts and the dead letters with a greater id, at most {@value #PAGE}
     */
    @ReadOperation
    public Map<String, Object> page(@Selector long afterId) {
        try {
            OutboxCounts counts = outbox.counts();
            List<DeadLetter> dead = outbox.deadLetters().list(afterId, PAGE);
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("pending", counts.pending());
            body.put("delivered", counts.delivered());
            body.put("dead", counts.dead());
            body.put("deadLetters", dead.stream().map(RingbusOutboxEndpoint::describe).toList());
            if (dead.size() == PAGE) {
                body.put("nextAfterId", dead.get(PAGE - 1).event().id());
            }
            return body;
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read the outbox: " + e.getMessage(), e);
        }
    }

    /**
     * Makes a dead letter pending again, with a fresh attempt count.
     *
     * @param id the dead letter's id
     * @return {@code retried}: whether it was a dead letter
     */
    @WriteOperation
    public Map<String, Object> retry(@Selector long id) {
        DeadLetters dead = outbox.deadLetters();
        try {
            return Map.of("id", id, "retried", dead.retry(id));
        } catch (SQLException e) {
            throw new IllegalStateException("cannot retry dead letter " + id + ": " + e.getMessage(), e);
        }
    }

    /**
     * Deletes a dead letter.
     *
     * @param id the dead letter's id
     * @return {@code deleted}: whether it was a dead letter
     */
    @DeleteOperation
    public Map<String, Object> delete(@Selector long id) {
        DeadLetters dead = outbox.deadLetters();
        try {
            return Map.of("id", id, "deleted", dead.purge(id));
        } catch (SQLException e) {
            throw new IllegalStateException("cannot delete dead letter " + id + ": " + e.getMessage(), e);
        }
    }

    private static Map<String, Object> describe(DeadLetter letter) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("id", letter.event().id());
        row.put("eventId", letter.event().eventId());
        row.put("subject", letter.event().subject());
        row.put("key", letter.event().key());
        row.put("payloadBytes", letter.event().payload().length);
        row.put("attempts", letter.event().attempts());
        row.put("lastError", letter.lastError());
        row.put("deadAt", letter.deadAt());
        return row;
    }
}
