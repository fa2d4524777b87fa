package io.ringbus.spring;

import io.ringbus.outbox.DeadLetter;
import io.ringbus.outbox.DeadLetters;
import io.ringbus.outbox.Outbox;
import io.ringbus.outbox.OutboxCounts;
import io.ringbus.outbox.RelayStats;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * The {@code ringbusoutbox} actuator endpoint: the outbox's backlog and its dead letters.
 *
 * <ul>
 *   <li>read {@code /actuator/ringbusoutbox}: the rows in the table ({@code pending}, {@code dead},
 *       {@code deliveredInTable}), what this application's relay did since it started
 *       ({@code relay}: {@code running}, {@code deliveredSinceStart}, {@code retriedSinceStart},
 *       {@code deadLetteredSinceStart}) and the first {@value #PAGE} dead letters;
 *       {@code /actuator/ringbusoutbox/{afterId}} the next page;</li>
 *   <li>write (POST) {@code /actuator/ringbusoutbox/{id}}: makes a dead letter pending again;</li>
 *   <li>delete {@code /actuator/ringbusoutbox/{id}}: deletes a dead letter.</li>
 * </ul>
 *
 * <p>Why two kinds of delivered: the relay deletes a row once delivered (the starter's relay
 * always does), so the table's count of delivered rows, {@code deliveredInTable}, stays 0 and
 * only counts rows a relay configured to keep them ({@code keepDelivered}) left for the retention
 * sweep. What was delivered is the relay's own count, {@code relay.deliveredSinceStart}: this
 * application's relay only, since it last started (other instances' relays count their own).
 *
 * <p>Each operation runs one short transaction on the outbox's data source and blocks until it
 * commits. A database error is thrown as {@link IllegalStateException}.
 */
@Endpoint(id = "ringbusoutbox")
public class RingbusOutboxEndpoint {

    /** Dead letters per page. */
    public static final int PAGE = 100;

    private final Outbox outbox;
    private final Supplier<RelayStats> relay;

    /**
     * An endpoint for an outbox without a relay in this application.
     *
     * @param outbox the outbox to show
     */
    public RingbusOutboxEndpoint(Outbox outbox) {
        this(outbox, () -> null);
    }

    /**
     * @param outbox the outbox to show
     * @param relay  the running relay's stats, or {@code null} while no relay runs here
     */
    public RingbusOutboxEndpoint(Outbox outbox, Supplier<RelayStats> relay) {
        this.outbox = Objects.requireNonNull(outbox, "outbox");
        this.relay = Objects.requireNonNull(relay, "relay");
    }

    /** @return the counts and the first page of dead letters */
    @ReadOperation
    public Map<String, Object> outbox() {
        return page(0);
    }

    /**
     * @param afterId the last id of the previous page
     * @return the counts, the relay's figures and the dead letters with a greater id, at most {@value #PAGE}
     */
    @ReadOperation
    public Map<String, Object> page(@Selector long afterId) {
        try {
            OutboxCounts counts = outbox.counts();
            List<DeadLetter> dead = outbox.deadLetters().list(afterId, PAGE);
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("pending", counts.pending());
            body.put("dead", counts.dead());
            body.put("deliveredInTable", counts.delivered());
            body.put("relay", relay(relay.get()));
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

    private static Map<String, Object> relay(RelayStats stats) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("running", stats != null);
        if (stats != null) {
            body.put("name", stats.name());
            body.put("deliveredSinceStart", stats.delivered());
            body.put("retriedSinceStart", stats.retried());
            body.put("deadLetteredSinceStart", stats.deadLettered());
        }
        return body;
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
