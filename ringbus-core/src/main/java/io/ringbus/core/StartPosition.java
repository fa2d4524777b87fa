package io.ringbus.core;

import java.time.Instant;
import java.util.Objects;

/**
 * Where a new durable consumer starts reading its stream. Used only when the consumer is created;
 * an existing consumer resumes after its last acknowledged message whatever is asked.
 *
 * @param kind     which start
 * @param sequence the first sequence for {@link Kind#SEQUENCE}, else 0
 * @param time     the earliest store time for {@link Kind#TIME}, else {@code null}
 */
public record StartPosition(Kind kind, long sequence, Instant time) {
    /** The kinds of start, named as JetStream's deliver policies. */
    public enum Kind {
        /** Every message the stream holds. */
        ALL,
        /** Only messages stored after the consumer was created. */
        NEW,
        /** From a stream sequence. */
        SEQUENCE,
        /** From the first message stored at or after a time. */
        TIME,
        /** The last message of each subject, then everything new. */
        LAST_PER_SUBJECT
    }

    private static final StartPosition ALL = new StartPosition(Kind.ALL, 0, null);
    private static final StartPosition NEW = new StartPosition(Kind.NEW, 0, null);
    private static final StartPosition LAST = new StartPosition(Kind.LAST_PER_SUBJECT, 0, null);

    /**
     * Checks that the fields fit the kind.
     *
     * @throws IllegalArgumentException naming the value when they do not
     */
    public StartPosition {
        Objects.requireNonNull(kind, "kind");
        if (kind == Kind.SEQUENCE && sequence < 1) {
            throw new IllegalArgumentException("start sequence must be >= 1: sequence=" + sequence);
        }
        if (kind == Kind.TIME && time == null) {
            throw new IllegalArgumentException("start time must not be null for kind TIME");
        }
    }

    /** @return start at the first message the stream holds */
    public static StartPosition all() {
        return ALL;
    }

    /** @return start with the messages stored after the consumer is created */
    public static StartPosition newOnly() {
        return NEW;
    }

    /** @return start with the last message of each subject, then everything new */
    public static StartPosition lastPerSubject() {
        return LAST;
    }

    /**
     * @param sequence the first stream sequence wanted, &gt;= 1
     * @return start there (or at the first retained message after it)
     */
    public static StartPosition sequence(long sequence) {
        return new StartPosition(Kind.SEQUENCE, sequence, null);
    }

    /**
     * @param time the earliest store time wanted
     * @return start at the first message stored at or after {@code time}
     */
    public static StartPosition time(Instant time) {
        return new StartPosition(Kind.TIME, 0, time);
    }
}
