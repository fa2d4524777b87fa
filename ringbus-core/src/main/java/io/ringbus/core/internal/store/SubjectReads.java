package io.ringbus.core.internal.store;

import io.ringbus.core.StorageException;
import io.ringbus.core.StoredMessage;
import io.ringbus.core.internal.SubjectPattern;
import io.ringbus.core.internal.log.LogReader;
import io.ringbus.core.internal.log.LogRecord;

import java.io.UncheckedIOException;

/**
 * Reads of a {@link LocalStream} by subject: the newest message of a pattern (its index of subjects),
 * and the next one from a sequence on (the index says whether one exists that late; then the log is
 * read forward to it, never past the newest match).
 */
final class SubjectReads {
    private SubjectReads() {
    }

    /** @return the newest message matching {@code wanted}, or null */
    static StoredMessage last(LocalStream stream, SubjectPattern wanted) {
        try {
            long found = newest(stream, wanted);
            return found == 0 ? null : stream.read(found, 1);
        } catch (UncheckedIOException e) {
            throw new StorageException("reading stream '" + stream.config().name() + "' failed: " + e.getMessage(),
                    e);
        }
    }

    /** @return the oldest message matching {@code wanted} at or after {@code from}, or null */
    static StoredMessage next(LocalStream stream, SubjectPattern wanted, long from) {
        try {
            long newest = newest(stream, wanted);
            if (newest == 0 || newest < from) {
                return null;
            }
            LogReader reader = stream.reader(Math.max(from, stream.log().firstSequence()));
            for (LogRecord record = reader.next(); record != null && record.sequence() <= newest;
                 record = reader.next()) {
                if (!stream.isSuperseded(record.sequence())
                        && wanted.matches(SubjectPattern.verbatimTokens(record.subject()))) {
                    return stream.toMessage(record, 1);
                }
            }
            return null;
        } catch (UncheckedIOException e) {
            throw new StorageException("reading stream '" + stream.config().name() + "' failed: " + e.getMessage(),
                    e);
        }
    }

    private static long newest(LocalStream stream, SubjectPattern wanted) {
        return stream.lasts().lastOf(wanted, !wanted.isWildcard(), stream.log().firstSequence(),
                stream::isSuperseded);
    }
}
