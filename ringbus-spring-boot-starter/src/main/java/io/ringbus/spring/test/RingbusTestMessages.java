package io.ringbus.spring.test;

import io.ringbus.core.Client;
import io.ringbus.core.Message;
import java.time.Duration;
import java.util.Objects;

/**
 * Waits in tests for messages on subjects: a bean of {@link RingbusTest} (and of
 * {@link AutoConfigureRingbus}), subscribing through the application's broker, so it sees every
 * subject whatever its scope.
 *
 * <pre>{@code
 * RingbusTestMessages messages;                                     // autowired
 *
 * try (MessageRecorder created = messages.record("orders.created")) {
 *     service.place(order);                                        // publishes orders.created
 *     Message message = created.awaitMessage(Duration.ofSeconds(5));
 * }
 * Message reply = messages.awaitMessage("orders.confirmed", Duration.ofSeconds(5),
 *         () -> template.publish("orders.created", "o-1"));     // recorded before the action runs
 * }</pre>
 *
 * <p>A wait that ends without the message throws {@link AssertionError} naming the subject
 * pattern and listing what arrived on it. Threading: thread-safe; each call blocks its caller only.
 */
public final class RingbusTestMessages {

    private final Client client;

    /**
     * @param client the client to subscribe with: the broker (ROOT scope) sees every subject; a
     *               scoped client only what its scope may receive
     */
    public RingbusTestMessages(Client client) {
        this.client = Objects.requireNonNull(client, "client");
    }

    /**
     * Starts recording the messages published to {@code pattern} from now on.
     *
     * @param pattern a subject or a pattern with {@code *} and {@code >} wildcards
     * @return the recorder; close it to end the subscription
     * @throws IllegalArgumentException when the pattern is malformed, naming it
     */
    public MessageRecorder record(String pattern) {
        return MessageRecorder.subscribe(client, pattern);
    }

    /**
     * Records {@code pattern}, runs {@code action}, and waits for the first message on it; the
     * subscription ends before this returns.
     *
     * @param pattern a subject or a pattern
     * @param timeout how long to wait after the action
     * @param action  what makes the message be published (runs on the caller's thread)
     * @return the first message received
     * @throws AssertionError naming the pattern when none arrived within {@code timeout}
     */
    public Message awaitMessage(String pattern, Duration timeout, Runnable action) {
        Objects.requireNonNull(action, "action");
        try (MessageRecorder recorder = record(pattern)) {
            action.run();
            return recorder.awaitMessage(timeout);
        }
    }
}
