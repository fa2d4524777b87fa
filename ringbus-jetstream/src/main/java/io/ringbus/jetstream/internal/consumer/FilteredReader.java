package io.ringbus.jetstream.internal.consumer;

import io.ringbus.core.StoredMessage;
import io.ringbus.core.StoredStream;
import io.ringbus.core.StreamInfo;
import io.ringbus.core.StreamReader;
import io.ringbus.core.Subject;

import java.util.List;
import java.util.function.Predicate;

/**
 * A consumer's reads of its stream: messages by sequence through {@link StreamReader}s kept between
 * calls (one for deliveries, one for counting ahead of them, so that neither makes the other seek), its
 * filter parsed once, and the count of filtered messages not yet delivered that num_pending reports.
 *
 * <p>A stream updated is a new {@link StoredStream}: the readers are opened again on the one given.
 * Threading: the consumers' thread only.
 */
final class FilteredReader {
    private String filterSubject;
    private Predicate<String> filter;
    /** Whether the filter takes every message of {@link #stream} (no subject read to test it). */
    private boolean takesAll;
    private StoredStream stream;
    private StreamReader deliveries;
    private StreamReader counting;
    /** Filtered messages not delivered up to {@link #countedTo}; -1 until counted. */
    private long matching = -1;
    private long countedTo;

    FilteredReader(String filterSubject) {
        filter(filterSubject);
    }

    /** Takes a new filter ({@code null}: every subject); the count starts again. */
    void filter(String filterSubject) {
        this.filterSubject = filterSubject;
        filter = filterSubject == null ? null : Subject.matcher(filterSubject);
        matching = -1;
        stream = null; // takesAll is found again
    }

    boolean filtered() {
        return filter != null;
    }

    boolean matches(String subject) {
        return filter == null || filter.test(subject);
    }

    /** @return the message at {@code seq} if the filter takes it, else null (read only when it does) */
    StoredMessage readMatching(StoredStream stored, long seq) {
        StreamReader reader = on(stored);
        if (!takesAll) {
            String subject = reader.subject(seq);
            if (subject == null || !filter.test(subject)) {
                return null;
            }
        }
        return reader.read(seq);
    }

    /** @return the message at {@code seq} whatever its subject, or null */
    StoredMessage read(StoredStream stored, long seq) {
        return on(stored).read(seq);
    }

    private StreamReader on(StoredStream stored) {
        if (stored != stream) {
            stream = stored;
            deliveries = stored.newReader();
            counting = stored.newReader();
            takesAll = takesAll(stored);
        }
        return deliveries;
    }

    /**
     * @return whether the filter takes every message the stream can hold: none, {@code >}, or the
     *         stream's only subject (what nats-server's isFiltered calls not filtered)
     */
    private boolean takesAll(StoredStream stored) {
        if (filterSubject == null || filterSubject.equals(">")) {
            return true;
        }
        List<String> subjects = stored.config().subjects();
        return subjects.size() == 1 && subjects.getFirst().equals(filterSubject);
    }

    /**
     * @param sseq the consumer's next stream sequence
     * @param info the stream's state
     * @return filtered messages in [max(sseq, first), last]: counted once by a read of their subjects
     *         (or, for a filter that takes every message and a consumer at the stream's start, the
     *         messages held), then kept up to date (new messages counted as they come, deliveries
     *         subtracted); counted again when retention removed messages the consumer had not read yet
     */
    long matching(StoredStream stored, long sseq, StreamInfo info) {
        on(stored);
        long first = info.firstSequence();
        long last = info.lastSequence();
        long from = Math.max(sseq, first);
        if (matching < 0 || from > sseq) {
            matching = 0;
            countedTo = from - 1;
            if (takesAll && from == first) {
                matching = info.messages();
                countedTo = last;
            }
        }
        for (long seq = Math.max(countedTo + 1, from); seq <= last; seq++) {
            String subject = counting.subject(seq);
            if (subject != null && filter.test(subject)) {
                matching++;
            }
        }
        countedTo = Math.max(countedTo, last);
        return matching;
    }

    /** A matching message at {@code seq} was taken for delivery: no longer pending. */
    void delivered(long seq) {
        if (matching > 0 && seq <= countedTo) {
            matching--;
        }
    }

    /** A matching message at {@code seq} taken for delivery was put back. */
    void putBack(long seq) {
        if (matching >= 0 && seq <= countedTo) {
            matching++;
        }
    }

    /** Retention moved the consumer's position up to the stream's first: count again. */
    void recount() {
        matching = -1;
    }
}
