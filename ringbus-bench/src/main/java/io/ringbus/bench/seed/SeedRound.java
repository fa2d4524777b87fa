package io.ringbus.bench.seed;

import io.ringbus.core.WaitStrategy;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs one round of the seed scenario against a fresh contender and verifies it.
 *
 * <p>Untimed: creating the subscribers, {@link Contender#start}, starting the producer threads
 * (they wait at a gate). Timed: from opening the gate until every subscriber has received all its
 * events (a latch, not a guess). Untimed again: joining the producers, {@link Contender#close},
 * and the checks.
 */
public final class SeedRound {
    private final SeedPayloads payloads;
    private final WaitStrategy waitStrategy;
    private final Duration timeout;

    /**
     * @param payloads     the preallocated events
     * @param waitStrategy wait strategy for the ring-based contenders
     * @param timeout      how long a round may take before it fails
     */
    public SeedRound(SeedPayloads payloads, WaitStrategy waitStrategy, Duration timeout) {
        this.payloads = payloads;
        this.waitStrategy = waitStrategy;
        this.timeout = timeout;
    }

    /**
     * The outcome of a verified round.
     *
     * @param nanos      time from the start gate to the last delivery
     * @param outOfOrder deliveries out of per-producer order (0 for contenders that keep order)
     */
    public record Outcome(long nanos, long outOfOrder) {
    }

    /**
     * Runs and verifies one round.
     *
     * @param contender a new, not yet started contender
     * @return the round's time and reorder count
     * @throws SeedVerificationException when anything was lost, duplicated, misrouted, reordered
     *                                   against the contender's promise, or the round timed out
     * @throws Exception                 when the contender fails to start or stop
     */
    public Outcome run(Contender contender) throws Exception {
        SeedWorkload workload = payloads.workload();
        CountDownLatch allDone = new CountDownLatch(workload.subscribers());
        SeedSubscriber[][] subscribers = new SeedSubscriber[workload.subjects()][workload.subscribersPerSubject()];
        for (int s = 0; s < subscribers.length; s++) {
            for (int k = 0; k < subscribers[s].length; k++) {
                subscribers[s][k] = new SeedSubscriber(workload, s, allDone);
            }
        }
        contender.start(new SeedTopology(payloads.subjects(), subscribers, waitStrategy));
        long nanos;
        try {
            nanos = publishAndAwait(contender, workload, allDone, subscribers);
        } catch (Exception e) {
            closeQuietly(contender, e);
            throw e;
        }
        contender.close();
        return new Outcome(nanos, verify(contender, subscribers));
    }

    private long publishAndAwait(Contender contender, SeedWorkload workload, CountDownLatch allDone,
                                 SeedSubscriber[][] subscribers) throws InterruptedException {
        CountDownLatch gate = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread[] producers = new Thread[workload.producers()];
        String[] subjects = payloads.subjects();
        for (int p = 0; p < producers.length; p++) {
            SeedEvent[] events = payloads.eventsOf(p);
            producers[p] = Thread.ofPlatform().name("seed-producer-" + p).daemon(true).start(() -> {
                try {
                    gate.await();
                    int subject = 0;
                    for (SeedEvent event : events) {
                        contender.publish(subjects[subject], event);
                        if (++subject == subjects.length) {
                            subject = 0;
                        }
                    }
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                }
            });
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        long start = System.nanoTime();
        gate.countDown();
        while (!allDone.await(20, TimeUnit.MILLISECONDS)) {
            if (failure.get() != null) {
                throw new SeedVerificationException(contender.name() + ": a producer failed: " + failure.get());
            }
            if (System.nanoTime() - deadline > 0) {
                throw new SeedVerificationException(contender.name() + ": round timed out after " + timeout
                        + ": subscribers still waiting=" + allDone.getCount() + " of " + workload.subscribers()
                        + shortfall(subscribers));
            }
        }
        long nanos = System.nanoTime() - start;
        for (Thread producer : producers) {
            producer.join();
        }
        if (failure.get() != null) {
            throw new SeedVerificationException(contender.name() + ": a producer failed: " + failure.get());
        }
        return nanos;
    }

    private static long verify(Contender contender, SeedSubscriber[][] subscribers) {
        long outOfOrder = 0;
        StringBuilder problems = new StringBuilder();
        for (SeedSubscriber[] ofSubject : subscribers) {
            for (int k = 0; k < ofSubject.length; k++) {
                SeedSubscriber s = ofSubject[k];
                outOfOrder += s.outOfOrder();
                boolean bad = s.received() != s.expected() || s.duplicates() != 0 || s.misrouted() != 0
                        || (contender.keepsProducerOrder() && s.outOfOrder() != 0);
                if (bad && problems.length() < 2_000) {
                    problems.append("\n  subject ").append(s.subject()).append(" subscriber ").append(k)
                            .append(": received=").append(s.received()).append(" expected=").append(s.expected())
                            .append(" duplicates=").append(s.duplicates()).append(" misrouted=").append(s.misrouted())
                            .append(" outOfOrder=").append(s.outOfOrder());
                }
            }
        }
        if (!problems.isEmpty()) {
            throw new SeedVerificationException(contender.name() + ": delivery check failed:" + problems);
        }
        return outOfOrder;
    }

    /** Lists the subscribers still short of their count; a racy read, for the message only. */
    private static String shortfall(SeedSubscriber[][] subscribers) {
        StringBuilder out = new StringBuilder();
        for (SeedSubscriber[] ofSubject : subscribers) {
            for (int k = 0; k < ofSubject.length && out.length() < 2_000; k++) {
                SeedSubscriber s = ofSubject[k];
                if (s.received() < s.expected()) {
                    out.append("\n  subject ").append(s.subject()).append(" subscriber ").append(k)
                            .append(": received about ").append(s.received()).append(" of ").append(s.expected());
                }
            }
        }
        return out.toString();
    }

    private static void closeQuietly(Contender contender, Exception cause) {
        try {
            contender.close();
        } catch (Exception e) {
            cause.addSuppressed(e);
        }
    }
}
