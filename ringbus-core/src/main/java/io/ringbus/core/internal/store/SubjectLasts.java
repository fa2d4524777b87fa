package io.ringbus.core.internal.store;

import io.ringbus.core.internal.SubjectPattern;
import io.ringbus.core.internal.log.LogReader;
import io.ringbus.core.internal.log.LogRecord;
import io.ringbus.core.internal.log.SegmentLog;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongPredicate;

/**
 * A stream's newest sequence of each subject: what JetStream's last-by-subject reads
 * ({@code MSG.GET last_by_subj}, {@code DIRECT.GET}, KV's get) and {@code num_subjects} count,
 * without scanning the log. A literal subject is one map lookup; a wildcard visits the subjects.
 * With it, a lower bound of each subject's first sequence: where a purge of one subject (a
 * {@code Nats-Rollup: sub}, a filtered purge) starts reading, instead of the log's first record.
 *
 * <p>Kept in memory: one entry per distinct subject the stream holds. Built at open by reading the
 * log once, updated by every append; a removal of a subject's newest message finds the one before
 * it by reading the log (removals are requests of an administrator, rare next to appends). An
 * entry whose sequence retention has deleted (below the log's first) counts as gone, and
 * {@link #retainFrom} drops it.
 *
 * <p>Thread-safe.
 */
final class SubjectLasts {
    private final ReentrantLock lock = new ReentrantLock();
    /** Subject to {newest sequence, lower bound of its first held sequence}. */
    private final Map<String, long[]> last = new HashMap<>();
    private volatile boolean built;

    /** Reads the whole log, skipping removed records. */
    void rebuild(SegmentLog log, LongPredicate removed) {
        Map<String, long[]> found = new HashMap<>();
        LogReader reader = log.reader(log.firstSequence());
        long end = log.lastSequence();
        for (LogRecord record = reader.next(); record != null && record.sequence() <= end; record = reader.next()) {
            if (!removed.test(record.sequence())) {
                put(found, record.subject(), record.sequence());
            }
        }
        lock.lock();
        try {
            last.clear();
            last.putAll(found);
        } finally {
            lock.unlock();
        }
    }

    /** Builds it under {@code appendLock} (appends wait) unless already built. */
    void build(ReentrantLock appendLock, SegmentLog log, LongPredicate removed) {
        appendLock.lock();
        try {
            if (!built) {
                rebuild(log, removed);
                built = true;
            }
        } finally {
            appendLock.unlock();
        }
    }

    void appended(String subject, long sequence) {
        lock.lock();
        try {
            put(last, subject, sequence);
        } finally {
            lock.unlock();
        }
    }

    private static void put(Map<String, long[]> map, String subject, long sequence) {
        long[] entry = map.get(subject);
        if (entry == null) {
            map.put(subject, new long[] {sequence, sequence});
        } else {
            entry[0] = sequence;
        }
    }

    /**
     * @return a sequence at or below the first {@code subject} holds (never above it: removals
     *         leave it where it was), 0 when the subject holds no message
     */
    long firstOf(String subject) {
        lock.lock();
        try {
            long[] entry = last.get(subject);
            return entry == null ? 0 : entry[1];
        } finally {
            lock.unlock();
        }
    }

    /** A roll-up left {@code subject} with one message, its newest, at {@code sequence}. */
    void rolledUp(String subject, long sequence) {
        lock.lock();
        try {
            long[] entry = last.get(subject);
            if (entry != null && entry[0] == sequence) {
                entry[1] = sequence;
            }
        } finally {
            lock.unlock();
        }
    }

    /** A purge removed every message of {@code subject}. */
    void forget(String subject) {
        lock.lock();
        try {
            last.remove(subject);
        } finally {
            lock.unlock();
        }
    }

    /** @return whether {@code sequence} is the newest of {@code subject} */
    boolean isLast(String subject, long sequence) {
        lock.lock();
        try {
            long[] newest = last.get(subject);
            return newest != null && newest[0] == sequence;
        } finally {
            lock.unlock();
        }
    }

    /**
     * @param pattern  a subject or wildcard pattern
     * @param literal  whether it has no wildcard
     * @param first    the log's first retained sequence
     * @param removed  whether a sequence is removed
     * @return the newest sequence of a subject matching {@code pattern}, 0 when none
     */
    long lastOf(SubjectPattern pattern, boolean literal, long first, LongPredicate removed) {
        lock.lock();
        try {
            if (literal) {
                long[] entry = last.get(pattern.text());
                long newest = entry == null ? 0 : entry[0];
                return newest < first || removed.test(newest) ? 0 : newest;
            }
            long best = 0;
            for (Map.Entry<String, long[]> entry : last.entrySet()) {
                long sequence = entry.getValue()[0];
                if (sequence > best && sequence >= first && !removed.test(sequence)
                        && pattern.matches(SubjectPattern.verbatimTokens(entry.getKey()))) {
                    best = sequence;
                }
            }
            return best;
        } finally {
            lock.unlock();
        }
    }

    /** @return subjects that hold a message now */
    long subjects(long first, LongPredicate removed) {
        lock.lock();
        try {
            return last.values().stream().filter(s -> s[0] >= first && !removed.test(s[0])).count();
        } finally {
            lock.unlock();
        }
    }

    /** Drops the subjects whose newest message retention deleted. */
    void retainFrom(long first) {
        lock.lock();
        try {
            last.values().removeIf(s -> s[0] < first);
        } finally {
            lock.unlock();
        }
    }
}
