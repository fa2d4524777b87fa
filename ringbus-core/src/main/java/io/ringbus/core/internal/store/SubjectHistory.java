package io.ringbus.core.internal.store;

import io.ringbus.core.internal.log.LogReader;
import io.ringbus.core.internal.log.LogRecord;
import io.ringbus.core.internal.log.SegmentLog;

import java.util.ArrayDeque;
import java.util.BitSet;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A stream's per-subject limit (JetStream's {@code max_msgs_per_subject}): the last {@code limit}
 * sequences of each subject are kept; older ones are marked superseded, and readers skip them as if
 * deleted. The log stays append-only: superseded records leave the disk with their segment (by the
 * stream's other limits). Memory: the kept sequences per subject, plus one bit per record since the
 * oldest retained one.
 *
 * <p>Rebuilt at open by reading the whole log (only streams with this limit pay that, and the bytes
 * are counted in the stream's open statistics; see {@code docs/storage.md}, Recovery).
 *
 * <p>Thread-safe: appends (under the stream's append lock) and readers meet under {@link #lock}.
 */
final class SubjectHistory {
    private final long limit;
    private final ReentrantLock lock = new ReentrantLock();
    private final Map<String, ArrayDeque<Long>> kept = new HashMap<>();
    private final BitSet superseded = new BitSet();
    private long base = 1;
    private long supersededCount;

    SubjectHistory(long limit) {
        this.limit = limit;
    }

    /**
     * Reads every retained record's subject: O(the log's size), the one part of opening a stream
     * that is (only streams with this limit pay it).
     *
     * @return bytes read from the log's files
     */
    long rebuild(SegmentLog log) {
        base = log.firstSequence();
        LogReader reader = log.reader(1);
        for (LogRecord record = reader.next(); record != null; record = reader.next()) {
            appended(record.subject(), record.sequence());
        }
        return reader.bytesRead();
    }

    /** Records an append; marks the subject's oldest kept sequence superseded past the limit. */
    void appended(String subject, long sequence) {
        lock.lock();
        try {
            ArrayDeque<Long> sequences = kept.computeIfAbsent(subject, s -> new ArrayDeque<>());
            sequences.addLast(sequence);
            if (sequences.size() > limit) {
                long old = sequences.pollFirst();
                if (old >= base) {
                    superseded.set((int) (old - base));
                    supersededCount++;
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /** @return the sequences of {@code subject} kept (removed ones included until superseded) */
    long count(String subject) {
        lock.lock();
        try {
            ArrayDeque<Long> sequences = kept.get(subject);
            return sequences == null ? 0 : sequences.size();
        } finally {
            lock.unlock();
        }
    }

    boolean isSuperseded(long sequence) {
        lock.lock();
        try {
            return sequence >= base && superseded.get((int) (sequence - base));
        } finally {
            lock.unlock();
        }
    }

    /** @return superseded records still retained */
    long supersededCount() {
        lock.lock();
        try {
            return supersededCount;
        } finally {
            lock.unlock();
        }
    }

    /** @return superseded sequences in {@code [from, to]} for which {@code excluded} is false */
    long supersededBetween(long from, long to, java.util.function.LongPredicate excluded) {
        lock.lock();
        try {
            long count = 0;
            int end = (int) Math.min(Integer.MAX_VALUE, to - base + 1);
            for (int i = superseded.nextSetBit((int) Math.max(0, from - base)); i >= 0 && i < end;
                 i = superseded.nextSetBit(i + 1)) {
                if (!excluded.test(base + i)) {
                    count++;
                }
            }
            return count;
        } finally {
            lock.unlock();
        }
    }

    /** Forgets what lies below {@code firstRetained} (retention deleted it), keeping the bitmap small. */
    void retainFrom(long firstRetained) {
        lock.lock();
        try {
            if (firstRetained - base < 1 << 16) {
                return;
            }
            int shift = (int) (firstRetained - base);
            supersededCount -= superseded.get(0, shift).cardinality();
            BitSet rest = superseded.get(shift, Math.max(shift, superseded.length()));
            superseded.clear();
            superseded.or(rest);
            base = firstRetained;
            kept.values().forEach(q -> q.removeIf(s -> s < firstRetained));
            kept.values().removeIf(ArrayDeque::isEmpty);
        } finally {
            lock.unlock();
        }
    }
}
