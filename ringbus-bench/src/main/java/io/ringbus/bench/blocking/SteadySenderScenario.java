package io.ringbus.bench.blocking;

import io.ringbus.core.Broker;
import io.ringbus.core.BrokerBuilder;
import io.ringbus.core.Message;
import io.ringbus.core.MessageHandler;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The seed's Vert.x tuning experiment: a sender publishes one message every {@code sendInterval}
 * while the receiver blocks {@code block} per message; over a window it counts what was sent and
 * what was handled. The sender keeps a fixed rate without catching up, so time lost waiting for
 * room (backpressure) shows as fewer messages sent.
 *
 * <p>After the window the receiver stops blocking, so closing the broker drains the backlog at
 * once; calls finished after the window are not counted.
 */
public final class SteadySenderScenario {
    private static final String SUBJECT = "blocking.steady";

    private final Duration window;
    private final Duration sendInterval;
    private final Duration block;
    private final int ringSize;

    /**
     * @param window       how long the sender runs
     * @param sendInterval time between two sends
     * @param block        how long the receiver blocks per message
     * @param ringSize     ring slots and per-subscriber buffer; small, so that backpressure shows
     *                     within a short window
     * @throws IllegalArgumentException naming the value that is not positive
     */
    public SteadySenderScenario(Duration window, Duration sendInterval, Duration block, int ringSize) {
        this.window = positive("duration", window);
        this.sendInterval = positive("sendInterval", sendInterval);
        this.block = positive("block", block);
        if (ringSize < 2) {
            throw new IllegalArgumentException("ringSize must be >= 2: ringSize=" + ringSize);
        }
        this.ringSize = ringSize;
    }

    /**
     * Runs one setup for the whole window.
     *
     * @param setup the receiver configuration
     * @return the counts
     * @throws InterruptedException when interrupted
     */
    public SteadyResult run(SteadySetup setup) throws InterruptedException {
        BrokerBuilder builder = Broker.builder().name("steady").ringSize(ringSize)
                .maxEventLoopExecuteTime(block.multipliedBy(10).plusSeconds(1));
        setup.configure(builder);
        AtomicLong received = new AtomicLong();
        Receiver receiver = new Receiver(block, received);
        try (Broker broker = builder.build()) {
            setup.subscribe(broker, SUBJECT, receiver, ringSize);
            long windowEnd = System.nanoTime() + window.toNanos();
            receiver.windowEnd = windowEnd;
            Sender sender = new Sender(broker, windowEnd);
            Thread thread = Thread.ofPlatform().name("steady-sender").start(sender);
            thread.join();
            receiver.draining = true;
            return new SteadyResult(setup, window, sender.sent, received.get(), sender.scheduled,
                    sender.maxPublishNanos / 1e6);
        } finally {
            receiver.draining = true;
        }
    }

    /** Blocks per message until the window ends, then returns at once. */
    private static final class Receiver implements MessageHandler {
        private final long blockNanos;
        private final AtomicLong received;
        volatile long windowEnd = Long.MAX_VALUE;
        volatile boolean draining;

        Receiver(Duration block, AtomicLong received) {
            this.blockNanos = block.toNanos();
            this.received = received;
        }

        @Override
        public void onMessage(Message message) {
            if (draining) {
                return;
            }
            long until = System.nanoTime() + blockNanos;
            for (long left = blockNanos; left > 0; left = until - System.nanoTime()) {
                LockSupport.parkNanos(left); // stands in for blocking I/O
            }
            if (System.nanoTime() - windowEnd <= 0) {
                received.incrementAndGet();
            }
        }
    }

    /** Publishes at a fixed rate until the window ends. */
    private final class Sender implements Runnable {
        private final Broker broker;
        private final long windowEnd;
        long sent;
        long scheduled;
        long maxPublishNanos;

        Sender(Broker broker, long windowEnd) {
            this.broker = broker;
            this.windowEnd = windowEnd;
        }

        @Override
        public void run() {
            long interval = sendInterval.toNanos();
            long start = System.nanoTime();
            long next = start;
            for (long now = start; now < windowEnd; now = System.nanoTime()) {
                if (now < next) {
                    LockSupport.parkNanos(Math.min(next, windowEnd) - now);
                    continue;
                }
                broker.publish(SUBJECT, sent);
                long after = System.nanoTime();
                maxPublishNanos = Math.max(maxPublishNanos, after - now);
                sent++;
                next = Math.max(next + interval, after); // fixed rate; time lost is not made up
            }
            scheduled = (windowEnd - start + interval - 1) / interval;
        }
    }

    private static Duration positive(String what, Duration value) {
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(what + " must be positive: " + what + "=" + value);
        }
        return value;
    }
}
