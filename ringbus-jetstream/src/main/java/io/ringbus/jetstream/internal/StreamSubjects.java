package io.ringbus.jetstream.internal;

import io.ringbus.core.StoredStream;
import io.ringbus.core.Subject;

import java.util.List;

/**
 * The checks of a stream's subject list that cost in proportion to its length: the bound on all
 * streams' subjects together ({@code jetstream.max_subjects}) and nats-server's "subject overlaps"
 * within one list ({@link Subject#firstOverlap}: pairs of two literal subjects are not compared).
 * Every overlap check between streams, and the broker's lookup of a published subject's stream,
 * cost in proportion to the subjects of all streams: nats-server bounds none of them and takes
 * more than 10 s to create one stream of 60,000 subjects; here a client past the bound is refused
 * before any of it (issue 26's hostile {@code stream-subjects}).
 */
final class StreamSubjects {
    private StreamSubjects() {
    }

    /**
     * @param subjects the requested list (empty: the stream's name, one subject)
     * @param self     the stream's name (its current subjects do not count: they are replaced)
     * @param streams  every stream
     * @param max      {@code jetstream.max_subjects}
     * @throws ApiError.Failure 10052 naming the count and the limit when all streams would hold more
     */
    static void requireWithinLimit(List<String> subjects, String self, List<StoredStream> streams, int max) {
        long total = Math.max(1, subjects.size());
        if (total <= max) {
            for (StoredStream stream : streams) {
                if (!stream.config().name().equals(self)) {
                    total += stream.config().subjects().size();
                }
            }
        }
        if (total > max) {
            throw ApiError.invalidConfig("too many subjects: " + subjects.size() + " requested, " + total
                    + " in all streams, at most " + max + " (jetstream.max_subjects)").failure();
        }
    }

    /**
     * nats-server's check that no two subjects of one stream overlap, with its message for the first
     * pair in list order; two distinct literal subjects never overlap, so only pairs with a wildcard
     * are compared.
     *
     * @param subjects valid subjects, without duplicates
     * @throws ApiError.Failure 10052 "subject \"a\" overlaps with \"b\""
     */
    static void requireNoOverlap(List<String> subjects) {
        // nats-server's loop (every subject, then every other) meets first the pair that a loop over
        // i < j meets first: the smallest subject that overlaps another, and its first partner.
        int[] overlap = Subject.firstOverlap(subjects);
        if (overlap != null) {
            throw ApiError.invalidConfig("subject \"" + subjects.get(overlap[0]) + "\" overlaps with \""
                    + subjects.get(overlap[1]) + "\"").failure();
        }
    }
}
