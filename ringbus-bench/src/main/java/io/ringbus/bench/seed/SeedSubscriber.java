package io.ringbus.bench.seed;

import java.util.Arrays;
import java.util.concurrent.CountDownLatch;

/**
 * One subscriber of the seed scenario: counts what it receives and checks it, and counts down
 * the round's latch once it has everything it should get.
 *
 * <p>Checks, per delivery: the event belongs to this subscriber's subject (else
 * <em>misrouted</em>); it was not delivered before (a bit per expected event, else
 * <em>duplicate</em>); its sequence is above the last one seen from the same producer (else
 * <em>out of order</em>). Losses show as {@link #received()} below {@link #expected()}.
 *
 * <p>Threading: {@link #onEvent} must be called one call at a time, each call happening-before
 * the next (every contender's delivery guarantees that: one thread, a lock, or an executor's
 * hand-off). The counters are read after the round's latch, which orders them.
 */
public final class SeedSubscriber {
    private final int subject;
    private final int subjects;
    private final long expected;
    private final CountDownLatch allDone;
    private final int[] lastSequence;
    private final long[][] seen;
    private long received;
    private long outOfOrder;
    private long duplicates;
    private long misrouted;

    /**
     * @param workload the round's workload
     * @param subject  the index of the subject this subscriber listens to
     * @param allDone  counted down once when this subscriber has received its expected count
     */
    public SeedSubscriber(SeedWorkload workload, int subject, CountDownLatch allDone) {
        if (subject < 0 || subject >= workload.subjects()) {
            throw new IllegalArgumentException("subject must be in 0.." + (workload.subjects() - 1) + ": subject=" + subject);
        }
        this.subject = subject;
        this.subjects = workload.subjects();
        int perProducer = workload.eventsPerProducerTo(subject);
        this.expected = (long) perProducer * workload.producers();
        this.allDone = allDone;
        this.lastSequence = new int[workload.producers()];
        Arrays.fill(lastSequence, -1);
        this.seen = new long[workload.producers()][(perProducer + 63) >>> 6];
    }

    /**
     * Receives one event.
     *
     * @param event the event
     */
    public void onEvent(SeedEvent event) {
        int producer = event.producer();
        int sequence = event.sequence();
        if (sequence % subjects != subject || producer >= seen.length) {
            misrouted++;
            return;
        }
        if (sequence > lastSequence[producer]) {
            lastSequence[producer] = sequence;
        } else {
            outOfOrder++;
        }
        int slot = sequence / subjects;
        long bit = 1L << slot;
        long[] bits = seen[producer];
        if ((bits[slot >>> 6] & bit) != 0) {
            duplicates++;
            return;
        }
        bits[slot >>> 6] |= bit;
        if (++received == expected) {
            allDone.countDown();
        }
    }

    /** @return the index of the subject listened to */
    public int subject() {
        return subject;
    }

    /** @return distinct events this subscriber must receive */
    public long expected() {
        return expected;
    }

    /** @return distinct events received */
    public long received() {
        return received;
    }

    /** @return deliveries whose sequence was not above the last one of the same producer */
    public long outOfOrder() {
        return outOfOrder;
    }

    /** @return deliveries of an event already received */
    public long duplicates() {
        return duplicates;
    }

    /** @return deliveries of another subject's events */
    public long misrouted() {
        return misrouted;
    }
}
