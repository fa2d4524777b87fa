package io.ringbus.server;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
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
 * <p>Threading: publishers' acknowledgement callbacks call {@link #acked} from any thread; the
 * rest is called by the run's thread while no publisher runs.
 */
final class PowerCutLedger {
    private final int publishers;
    private final long[] nextNumber;
    private final Map<String, Long> acked = new ConcurrentHashMap<>();
    private final AtomicLong duplicateAcks = new AtomicLong();
    private final Set<String> lost = new HashSet<>();
    private final Set<String> duplicated = new HashSet<>();
    private long orderViolations;
    private final AtomicLong resent = new AtomicLong();
    private long retainedFrom = 1;

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

    /** @return the next new id of {@code publisher} (counted as sent) */
    String next(int publisher) {
        return id(publisher, nextNumber[publisher]++);
    }

    /** An acknowledgement ({@code duplicate}: of an id sent again that the store already had). */
    void acked(String id, long sequence, boolean duplicate) {
        acked.putIfAbsent(id, sequence);
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
     * @param stored what the store holds, in stream order
     * @return a line for the log: what this check found
     */
    String check(List<PowerCutTarget.StoredId> stored) {
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
        for (Map.Entry<String, Long> a : acked.entrySet()) {
            if (a.getValue() >= retained && !count.containsKey(a.getKey()) && lost.add(a.getKey())) {
                lostNow++;
            }
        }
        long last = stored.isEmpty() ? 0 : stored.get(stored.size() - 1).sequence();
        return "read back " + stored.size() + " records (sequences " + (stored.isEmpty() ? "-" : first + ".." + last)
                + "), acknowledged so far " + acked.size() + ", lost at this cut " + lostNow
                + ", lost in all " + lost.size() + ", duplicated " + duplicated.size()
                + ", order violations " + violations;
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
