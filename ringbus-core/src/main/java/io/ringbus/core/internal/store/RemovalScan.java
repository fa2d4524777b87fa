package io.ringbus.core.internal.store;

import io.ringbus.core.StorageException;
import io.ringbus.core.internal.SubjectPattern;
import io.ringbus.core.internal.log.LogReader;
import io.ringbus.core.internal.log.LogRecord;
import io.ringbus.core.internal.log.SegmentLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.function.LongPredicate;
import java.util.stream.LongStream;

/**
 * Finds what a purge removes: reads of the log for {@link LocalStream#purge} and roll-ups, under its
 * append lock.
 */
final class RemovalScan {
    private static final Logger LOG = LoggerFactory.getLogger(RemovalScan.class);

    private RemovalScan() {
    }

    /** @return the floor that keeps the newest {@code keep} messages held in {@code [first, last]} */
    static long keepFloor(long first, long last, long keep, LongPredicate gone) {
        long kept = 0;
        for (long sequence = last; sequence >= first; sequence--) {
            if (!gone.test(sequence) && ++kept == keep) {
                return sequence;
            }
        }
        return first;
    }

    /** @return the held sequences of {@code [first, last]} (below {@code below} when positive) matching {@code filter} */
    static long[] matching(SegmentLog log, SubjectPattern filter, long first, long last, long below,
                           LongPredicate gone) {
        long end = below > 0 ? Math.min(last, below - 1) : last;
        LongStream.Builder found = LongStream.builder();
        LogReader reader = log.reader(first);
        for (LogRecord record = reader.next(); record != null && record.sequence() <= end; record = reader.next()) {
            if (!gone.test(record.sequence()) && filter.matches(SubjectPattern.verbatimTokens(record.subject()))) {
                found.add(record.sequence());
            }
        }
        return found.build().toArray();
    }

    /**
     * {@link LocalStream#countMatching}: one read of {@code [from, to]} in order (a literal subject's
     * from its first message), without the append lock.
     */
    static long count(LocalStream stream, SubjectPattern filter, long from, long to) {
        SegmentLog log = stream.log();
        long start = Math.max(from, log.firstSequence());
        if (!filter.isWildcard()) {
            SubjectLasts lasts = stream.lasts();
            long newest = lasts.lastOf(filter, true, start, s -> false);
            if (newest == 0) {
                return 0; // the subject holds nothing from there
            }
            start = Math.max(start, lasts.firstOf(filter.text()));
        }
        long count = 0;
        try {
            LogReader reader = log.reader(start);
            for (LogRecord record = reader.next(); record != null && record.sequence() <= to; record = reader.next()) {
                if (!stream.isSuperseded(record.sequence())
                        && filter.matches(SubjectPattern.verbatimTokens(record.subject()))) {
                    count++;
                }
            }
        } catch (UncheckedIOException e) {
            throw new StorageException("reading stream '" + stream.config().name() + "' failed: " + e.getMessage(), e);
        }
        return count;
    }

    /** {@link LocalStream#delete}, under its append lock. */
    static boolean delete(LocalStream stream, long sequence) throws IOException {
        SegmentLog log = stream.log();
        if (sequence < log.firstSequence() || sequence > log.lastSequence() || stream.isSuperseded(sequence)) {
            return false;
        }
        LogRecord record = log.reader(sequence).next();
        if (record == null || record.sequence() != sequence) {
            return false;
        }
        stream.durableThrough(sequence);
        stream.removals.remove(0, new long[] {sequence});
        stream.removed(record.subject(), sequence);
        return true;
    }

    /**
     * {@link LocalStream#purge}, under its append lock: without a filter a new floor (and the
     * segments below it compacted), with one the matching sequences. A literal filter reads the log
     * from that subject's first message ({@link SubjectLasts#firstOf}), not from the log's first.
     */
    static long purge(LocalStream stream, SubjectPattern filter, long belowSequence, long keep) throws IOException {
        SegmentLog log = stream.log();
        long first = log.firstSequence();
        long last = log.lastSequence();
        if (filter != null && !filter.isWildcard()) {
            return purgeSubject(stream, filter, Math.max(first, stream.lasts().firstOf(filter.text())), last,
                    belowSequence, keep);
        }
        Removals removals = stream.removals;
        long purged;
        if (filter == null) {
            long newFloor = keep > 0 ? Math.max(first, keepFloor(first, last, keep, stream::isSuperseded))
                    : belowSequence > 0 ? Math.min(belowSequence, last + 1) : last + 1;
            purged = stream.held(first, last) - stream.held(Math.max(first, newFloor), last);
            if (newFloor <= removals.floor() || purged == 0) {
                return 0;
            }
            stream.durableThrough(newFloor - 1);
            removals.remove(newFloor, null);
            log.compactThrough(newFloor - 1, true);
        } else {
            long[] matched = matching(log, filter, first, last, belowSequence, stream::isSuperseded);
            long[] gone = keep > 0 ? Arrays.copyOf(matched, (int) Math.max(0, matched.length - keep)) : matched;
            purged = gone.length;
            if (purged == 0) {
                return 0;
            }
            stream.durableThrough(gone[gone.length - 1]);
            removals.remove(0, gone);
        }
        stream.removed(null, 0);
        return purged;
    }

    /**
     * A purge of one literal subject from {@code from} (at or below its first message): reads
     * {@code [from, last]} only, and keeps the index of subjects without reading the log again.
     */
    private static long purgeSubject(LocalStream stream, SubjectPattern subject, long from, long last,
                                     long belowSequence, long keep) throws IOException {
        SubjectLasts lasts = stream.lasts();
        String text = subject.text();
        if (lasts.firstOf(text) == 0) {
            return 0; // the subject holds no message
        }
        long[] matched = matching(stream.log(), subject, from, last, belowSequence, stream::isSuperseded);
        long[] gone = keep > 0 ? Arrays.copyOf(matched, (int) Math.max(0, matched.length - keep)) : matched;
        if (gone.length == 0) {
            return 0;
        }
        stream.durableThrough(gone[gone.length - 1]);
        stream.removals.remove(0, gone);
        long newest = lasts.lastOf(subject, true, 0, s -> false);
        if (gone[gone.length - 1] == newest) {
            lasts.forget(text); // its newest went, so every older one did too
        } else if (gone.length == matched.length - 1 && matched.length > 0 && matched[matched.length - 1] == newest) {
            lasts.rolledUp(text, newest); // one message left: the newest
        }
        return gone.length;
    }

    /**
     * {@code Nats-Rollup}, under the stream's append lock once {@code sequence} is appended: the older
     * messages of {@code subject} (or of the stream) are purged, once the new one is durable (a cut must
     * not leave the subject with neither). A subject's roll-up reads the log from the subject's first
     * message (after a roll-up, its previous roll-up), not from the log's first. A failure is logged;
     * the message stays stored.
     */
    static void rollUp(LocalStream stream, String subject, long sequence, boolean subjectOnly) {
        try {
            stream.durableThrough(sequence);
            purge(stream, subjectOnly ? SubjectPattern.parse(subject) : null, 0, 1);
        } catch (IOException | UncheckedIOException e) {
            LOG.warn("stream '{}': the roll-up of '{}' at sequence {} failed: {}", stream.config().name(), subject,
                    sequence, e.toString());
        }
    }

    /** @return sequences of {@code [from, to]} removed or superseded ({@code history} may be null) */
    static long gone(Removals removals, SubjectHistory history, long from, long to) {
        long gone = removals.countRemoved(from, to);
        if (history != null) {
            gone += history.supersededBetween(from, to, removals::isRemoved);
        }
        return gone;
    }
}
