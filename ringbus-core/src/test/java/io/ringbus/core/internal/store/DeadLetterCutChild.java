package io.ringbus.core.internal.store;

import io.ringbus.core.Broker;
import io.ringbus.core.ConsumerStats;
import io.ringbus.core.Durability;
import io.ringbus.core.DurableOptions;
import io.ringbus.core.ExecutionMode;
import io.ringbus.core.Scope;
import io.ringbus.core.Storage;
import io.ringbus.core.StoredMessage;
import io.ringbus.core.SubscribeOptions;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The process {@link DeadLetterPowerCutTest} kills: a broker on a local store ({@code ALWAYS}) with
 * the durable subjects {@value #PATTERN} and {@value #DEAD_PATTERN}, and the durable subscription
 * {@value #CONSUMER} on {@value #PATTERN} as an application would write it: its handler returns
 * for {@code orders.ok} (the acknowledgement) and throws for {@code orders.bad}, which after
 * {@value #MAX_DELIVER} tries goes to the dead-letter subject {@value #DEAD_LETTERS}, itself stored.
 * Runs in a JVM of its own.
 *
 * <p>Prints {@code d <sequence> <deliveries>} when the handler gets a message, {@code h <sequence>}
 * when it is about to return normally, and {@code x <sequence>} when a live subscriber of
 * {@value #DEAD_LETTERS} receives its dead letter (published after it was stored durably).
 *
 * <p>Arguments: {@code <dir> RUN <quiet>}: handles until {@code quiet} messages were handled, closes
 * the broker (and with it the store, which saves the consumer), prints {@code closed}, opens both
 * again, prints {@code reopened} and handles on, pausing 1 ms per message (so that a cut comes
 * before the stream runs out), until killed. {@code <dir> DRAIN}: handles until nothing is pending
 * and nothing came for 1 s, closes, prints {@code drained} and exits.
 */
final class DeadLetterCutChild {
    static final String PATTERN = "orders.>";
    static final String DEAD_PATTERN = "dead.>";
    static final String DEAD_LETTERS = "dead.orders";
    static final String CONSUMER = "billing";
    static final int MAX_DELIVER = 3;

    private static final AtomicLong HANDLED = new AtomicLong();
    private static final AtomicLong LAST_DELIVERY = new AtomicLong(System.nanoTime());
    private static volatile long pauseNanos;

    private DeadLetterCutChild() {
    }

    public static void main(String[] args) throws InterruptedException {
        Path dir = Path.of(args[0]);
        if (args[1].equals("DRAIN")) {
            Broker broker = open(dir);
            awaitIdle(broker);
            broker.close();
            ChildLines.print("drained");
            return;
        }
        long quiet = Long.parseLong(args[2]);
        Broker first = open(dir);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (HANDLED.get() < quiet && System.nanoTime() < deadline) {
            Thread.sleep(2);
        }
        first.close();
        ChildLines.print("closed");
        pauseNanos = TimeUnit.MILLISECONDS.toNanos(1);
        open(dir); // never closed: the test kills the process
        ChildLines.print("reopened");
        Thread.sleep(Long.MAX_VALUE);
    }

    /** @return a broker on the store with both durable subjects, the dead-letter listener and the subscription */
    private static Broker open(Path dir) {
        Broker broker = Broker.builder().storage(Storage.local(dir)).errorHandler((error, message, sub) -> { })
                .build();
        broker.registerSubject(PATTERN, Scope.PUBLIC, Durability.DURABLE);
        broker.registerSubject(DEAD_PATTERN, Scope.PUBLIC, Durability.DURABLE);
        broker.subscribe(DEAD_LETTERS, m -> ChildLines.print("x " + m.headers().first("Ringbus-Sequence")));
        DurableOptions options = DurableOptions.named(CONSUMER).withMaxDeliver(MAX_DELIVER).withMaxAckPending(32)
                .withRedelivery(Duration.ofMillis(2), Duration.ofMillis(10)).withDeadLetterSubject(DEAD_LETTERS);
        broker.subscribe(PATTERN, message -> {
            StoredMessage m = (StoredMessage) message;
            LAST_DELIVERY.set(System.nanoTime());
            ChildLines.print("d " + m.sequence() + " " + m.deliveries());
            LockSupport.parkNanos(pauseNanos); // not Thread.sleep: an interrupt at close must not fail a handler
            if (m.subject().startsWith("orders.bad")) {
                throw new IllegalStateException("cannot bill " + m.sequence());
            }
            ChildLines.print("h " + m.sequence());
            HANDLED.incrementAndGet();
        }, SubscribeOptions.defaults().mode(ExecutionMode.VIRTUAL).durable(options));
        return broker;
    }

    /** Waits until the consumer has nothing pending or unacknowledged and nothing came for 1 s. */
    private static void awaitIdle(Broker broker) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            Thread.sleep(50);
            ConsumerStats stats = broker.stats().consumers().stream().filter(c -> c.name().equals(CONSUMER))
                    .findFirst().orElseThrow();
            if (stats.pending() == 0 && stats.ackPending() == 0
                    && System.nanoTime() - LAST_DELIVERY.get() > TimeUnit.SECONDS.toNanos(1)) {
                return;
            }
        }
    }
}
