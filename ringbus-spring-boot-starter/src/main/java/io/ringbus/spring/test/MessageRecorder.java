package io.ringbus.spring.test;

import io.ringbus.core.Client;
import io.ringbus.core.ExecutionMode;
import io.ringbus.core.Message;
import io.ringbus.core.SubscribeOptions;
import io.ringbus.core.Subscription;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Records the messages published to a subject pattern from the moment it is created
 * ({@link RingbusTestMessages#record}) until it is closed, and waits for them: a test records
 * first, then acts, then awaits, so no message can arrive before anyone listens.
 *
 * <pre>{@code
 * try (MessageRecorder created = messages.record("orders.*.created")) {
 *     template.publish("orders.eu.created", "o-1");
 *     assertThat(created.awaitMessage(Duration.ofSeconds(5)).payload()).isEqualTo("o-1");
 * }
 * }</pre>
 *
 * <p>It is a subscription like any other while open: it receives in-process publishes, network
 * clients' messages (payloads as {@code byte[]}) and what the outbox relay delivers, and it
 * counts for {@link Client#hasSubscribers} (a request to a recorded subject finds a responder
 * that never answers). It holds every message it received until closed.
 *
 * <p>Threading: messages are recorded on the publishing thread ({@link ExecutionMode#PUBLISHER}:
 * no buffer, nothing dropped, in publish order per publisher); the await methods block only
 * their caller and may be called from any thread.
 */
public final class MessageRecorder implements AutoCloseable {

    /** Messages a timeout error lists; the rest are counted. */
    static final int SHOWN = 10;
    /** Characters of a payload a timeout error shows. */
    static final int SHOWN_PAYLOAD_CHARS = 120;

    private final String pattern;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition arrived = lock.newCondition();
    private final List<Message> messages = new ArrayList<>();
    private Subscription subscription;

    private MessageRecorder(String pattern) {
        this.pattern = pattern;
    }

    static MessageRecorder subscribe(Client client, String pattern) {
        MessageRecorder recorder = new MessageRecorder(pattern);
        recorder.subscription = client.subscribe(pattern, recorder::record,
                SubscribeOptions.defaults().mode(ExecutionMode.PUBLISHER));
        return recorder;
    }

    private void record(Message message) {
        Message copy = message.copy();
        lock.lock();
        try {
            messages.add(copy);
            arrived.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** @return the subject pattern recorded */
    public String pattern() {
        return pattern;
    }

    /** @return the messages received so far, in arrival order (a copy) */
    public List<Message> messages() {
        lock.lock();
        try {
            return List.copyOf(messages);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits for the first message (returns at once if it arrived already).
     *
     * @param timeout how long to wait
     * @return the first message received
     * @throws AssertionError naming the pattern when none arrived within {@code timeout}
     */
    public Message awaitMessage(Duration timeout) {
        return awaitMessages(1, timeout).getFirst();
    }

    /**
     * Waits until {@code count} messages have arrived.
     *
     * @param count   how many, at least 1
     * @param timeout how long to wait
     * @return the first {@code count} messages, in arrival order
     * @throws AssertionError naming the pattern and listing what arrived, when fewer did within
     *                        {@code timeout}
     */
    public List<Message> awaitMessages(int count, Duration timeout) {
        if (count < 1) {
            throw new IllegalArgumentException("count must be at least 1: count=" + count);
        }
        return await(timeout, () -> messages.size() >= count ? List.copyOf(messages.subList(0, count)) : null,
                () -> "expected " + count + (count == 1 ? " message" : " messages"));
    }

    /**
     * Waits for the first message that satisfies {@code condition} (one received already
     * counts).
     *
     * @param condition what the message must satisfy, e.g. {@code m -> m.subject().endsWith(".eu")}
     * @param timeout   how long to wait
     * @return the first matching message
     * @throws AssertionError naming the pattern and listing what arrived, when none matched
     *                        within {@code timeout}
     */
    public Message awaitMessage(Predicate<? super Message> condition, Duration timeout) {
        Objects.requireNonNull(condition, "condition");
        List<Message> found = await(timeout, () -> messages.stream().filter(condition).findFirst().map(List::of)
                .orElse(null), () -> "expected a message matching the condition");
        return found.getFirst();
    }

    /** Ends the subscription; what was recorded stays readable. */
    @Override
    public void close() {
        subscription.unsubscribe();
    }

    @Override
    public String toString() {
        return "MessageRecorder[" + pattern + ", " + messages().size() + " received]";
    }

    /**
     * Waits until {@code check}, run under the lock at each arrival, returns a result (null: keep
     * waiting).
     */
    private List<Message> await(Duration timeout, Supplier<List<Message>> check, Supplier<String> expected) {
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must not be negative: timeout=" + timeout);
        }
        long remaining = timeout.toNanos();
        lock.lock();
        try {
            List<Message> result;
            while ((result = check.get()) == null) {
                if (remaining <= 0) {
                    throw new AssertionError(expected.get() + " on '" + pattern + "' within " + timeout + "; "
                            + describe(messages));
                }
                remaining = arrived.awaitNanos(remaining);
            }
            return result;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted waiting for messages on '" + pattern + "'", e);
        } finally {
            lock.unlock();
        }
    }

    /** {@code 2 arrived: [orders.eu.created "o-1", orders.us.created <3 bytes>]} */
    static String describe(List<Message> arrived) {
        if (arrived.isEmpty()) {
            return "none arrived";
        }
        StringBuilder text = new StringBuilder().append(arrived.size()).append(" arrived: [");
        for (int i = 0; i < Math.min(arrived.size(), SHOWN); i++) {
            Message message = arrived.get(i);
            text.append(i == 0 ? "" : ", ").append(message.subject()).append(' ').append(payload(message.payload()));
        }
        if (arrived.size() > SHOWN) {
            text.append(", ... ").append(arrived.size() - SHOWN).append(" more");
        }
        return text.append(']').toString();
    }

    /**
     * A payload as a timeout error shows it, cut at {@value #SHOWN_PAYLOAD_CHARS} characters:
     * text quoted (UTF-8 bytes, which network clients and the outbox deliver, as text), bytes that
     * are not UTF-8 counted, any other object by its {@code toString}.
     */
    private static String payload(Object payload) {
        String text;
        if (payload instanceof byte[] bytes) {
            try {
                text = '"' + StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes)).toString() + '"';
            } catch (CharacterCodingException e) {
                return "<" + bytes.length + " bytes>";
            }
        } else if (payload instanceof String string) {
            text = '"' + string + '"';
        } else {
            text = String.valueOf(payload);
        }
        return text.length() > SHOWN_PAYLOAD_CHARS ? text.substring(0, SHOWN_PAYLOAD_CHARS) + "..." : text;
    }
}
