package io.ringbus.server;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the publishers of a power-cut run sent and had acknowledged, and what each read-back after
 * a cut found of it. An id is {@code <publisher>-<number>}, numbers consecutive per publisher.
 *
 * <p>An acknowledged id is <b>lost</b> when a read-back does not hold it although its acknowledged
 * sequence is at or past the first sequence the store still holds (retention did not delete it):
 * checked after every cut, so a loss is seen before retention could hide it. An id stored more
 * than once is <b>duplicated</b>; a publisher's ids out of order are an <b>order violation</b>.
 *
 * <p>Each acknowledgement is recorded with the {@link System#nanoTime()} it arrived at the client
 * ({@link #acked}); a check is given the instant the server was killed, so that every lost id has
 * an <b>age</b>: how long before the kill its acknowledgement arrived. That is the window a
 * durability policy loses ({@link Cut#oldestLostNanos()}, {@link #oldestLostNanos()}).
 *
 * <p>Threading: publishers' acknowledgement callbacks call {@link #acked} from any thread; the
 * rest is called by the run's thread while no publisher runs.
 */
final class PowerCutLedger {
    private final int publishers;
    private final long[] nextNumber;
    private final Map<String, Ack> acked = new ConcurrentHashMap<>();
    private final AtomicLong duplicateAcks = new AtomicLong();
    private final Set<String> lost = new HashSet<>();
    private final Set<String> duplicated = new HashSet<>();
    private long orderViolations;
    private final AtomicLong resent = new AtomicLong();
    private long retainedFrom = 1;
    private long oldestLostNanos = Long.MIN_VALUE;
    private int checkedAcks;

    /**
     * An acknowledgement.
     *
     * @param sequence the stream sequence it gave
     * @param nanos    the {@link System#nanoTime()} it arrived at
     */
    private record Ack(long sequence, long nanos) {
    }

    /**
     * What one check after a cut found.
     *
     * @param acknowledged    ids acknowledged since the previous check (in the server life before the cut)
     * @param lost            acknowledged ids lost at this cut
     * @param oldestLostNanos the age at the kill of the oldest lost one's acknowledgement ({@link Long#MIN_VALUE}
     *                        when none was lost)
     * @param line            a line for the log
     */
    record Cut(int acknowledged, int lost, long oldestLostNanos, String line) {
    }

    /** @param publishers how many publishers there are */
    PowerCutLedger(int publishers) {
        this.publishers = publishers;
        this.nextNumber = new long[publishers];
    }

    /** @return the id in a payload: everything before its first space */
    static String idOf(String payload) {
        int space = payload.indexOf(' ');
        return space < 0 ? payload : payload.substring(0, space);
    }

    static String id(int publisher, long number) {
        return publisher + "-" + number;
    }

    /** @return how many publishers there are */
    int publishers() {
        return publishers;
    }

    /**
     * Called by the publisher's own thread at the start of a server life.
     *
     * @param publisher a publisher
     * @return its ids sent but not acknowledged, in order: to be sent again after a restart
     */
    List<String> unacknowledged(int publisher) {
        List<String> out = new ArrayList<>();
        for (long n = 0; n < nextNumber[publisher]; n++) {
            String id = id(publisher, n);
            if (!acked.containsKey(id)) {
                out.add(id);
            }
        }
        resent.addAndGet(out.size());
        return out;
    }

    /** @return the next new id of {@code publisher}, not counted as sent (for a publisher that reports its sends) */
    String peekNext(int publisher) {
        return id(publisher, nextNumber[publisher]);
    }

    /** @return the next new id of {@code publisher} (counted as sent) */
    String next(int publisher) {
        return id(publisher, nextNumber[publisher]++);
    }

    /**
     * An acknowledgement.
     *
     * @param id        the id acknowledged
     * @param sequence  the stream sequence it gave
     * @param duplicate of an id sent again that the store already had
     * @param nanos     the {@link System#nanoTime()} it arrived at
     */
    void acked(String id, long sequence, boolean duplicate, long nanos) {
        acked.putIfAbsent(id, new Ack(sequence, nanos));
        if (duplicate) {
            duplicateAcks.incrementAndGet();
        }
    }

    /** @return acknowledged ids */
    int acknowledged() {
        return acked.size();
    }

    /**
     * Checks a read-back after a cut (see the class comment).
     *
     * @param stored     what the store holds, in stream order
     * @param killedNanos the {@link System#nanoTime()} the server was killed at (the power cut came after)
     * @return what this check found
     */
    Cut check(List<PowerCutTarget.StoredId> stored, long killedNanos) {
        long first = stored.isEmpty() ? Long.MAX_VALUE : stored.get(0).sequence();
        Map<String, Integer> count = new HashMap<>();
        long[] lastNumber = new long[publishers];
        Arrays.fill(lastNumber, -1);
        long violations = 0;
        for (PowerCutTarget.StoredId s : stored) {
            if (count.merge(s.id(), 1, Integer::sum) > 1) {
                duplicated.add(s.id());
                continue;
            }
            int dash = s.id().indexOf('-');
            int publisher = Integer.parseInt(s.id().substring(0, dash));
            long number = Long.parseLong(s.id().substring(dash + 1));
            if (number <= lastNumber[publisher]) {
                violations++;
            }
            lastNumber[publisher] = Math.max(lastNumber[publisher], number);
        }
        orderViolations += violations;
        // An empty store: everything retained at the previous check and acknowledged since is gone.
        long retained = stored.isEmpty() ? retainedFrom : first;
        retainedFrom = retained;
        int lostNow = 0;
        long oldest = Long.MIN_VALUE;
        for (Map.Entry<String, Ack> a : acked.entrySet()) {
            if (a.getValue().sequence() >= retained && !count.containsKey(a.getKey()) && lost.add(a.getKey())) {
                lostNow++;
                oldest = Math.max(oldest, killedNanos - a.getValue().nanos());
            }
        }
        oldestLostNanos = Math.max(oldestLostNanos, oldest);
        int acknowledgedNow = acked.size() - checkedAcks;
        checkedAcks = acked.size();
        long last = stored.isEmpty() ? 0 : stored.get(stored.size() - 1).sequence();
        String line = "read back " + stored.size() + " records (sequences "
                + (stored.isEmpty() ? "-" : first + ".." + last) + "), acknowledged this life " + acknowledgedNow
                + ", so far " + acked.size() + ", lost at this cut " + lostNow
                + (lostNow == 0 ? "" : String.format(Locale.ROOT, " (oldest acknowledged %.1f ms before the kill)",
                        oldest / 1e6))
                + ", lost in all " + lost.size() + ", duplicated " + duplicated.size()
                + ", order violations " + violations;
        return new Cut(acknowledgedNow, lostNow, oldest, line);
    }

    /**
     * @return the age at its kill of the oldest acknowledgement lost at any cut so far
     *         ({@link Long#MIN_VALUE} when none was lost)
     */
    long oldestLostNanos() {
        return oldestLostNanos;
    }

    /** @return acknowledged ids a read-back did not hold */
    Set<String> lost() {
        return lost;
    }

    /** @return ids stored more than once */
    Set<String> duplicated() {
        return duplicated;
    }

    /** @return the first sequence the last read-back held (1 until retention deleted something) */
    long retainedFrom() {
        return retainedFrom;
    }

    /** @return ids read back out of their publisher's order */
    long orderViolations() {
        return orderViolations;
    }

    /** @return ids sent again after a restart because their acknowledgement never came */
    long resent() {
        return resent.get();
    }

    /** @return acknowledgements saying the store already had the id (of ids sent again) */
    long duplicateAcks() {
        return duplicateAcks.get();
    }
}
