package io.ringbus.core.wire;

/**
 * The names of the NATS and JetStream headers ringbus reads or writes, each spelled once.
 *
 * <p>Names are case-sensitive, as nats-server compares them.
 */
public final class HeaderNames {
    /** The publisher's message id: a second message with the same id in the duplicate window is not stored again. */
    public static final String MSG_ID = "Nats-Msg-Id";
    /** The prefix of the headers that state what an append expects of the stream. */
    public static final String EXPECTED_PREFIX = "Nats-Expected-";
    /** The stream an append expects to store it. */
    public static final String EXPECTED_STREAM = "Nats-Expected-Stream";
    /** The stream's last sequence an append expects. */
    public static final String EXPECTED_LAST_SEQUENCE = "Nats-Expected-Last-Sequence";
    /** The last sequence of the message's subject an append expects. */
    public static final String EXPECTED_LAST_SUBJECT_SEQUENCE = "Nats-Expected-Last-Subject-Sequence";
    /** The message id of the stream's last message an append expects. */
    public static final String EXPECTED_LAST_MSG_ID = "Nats-Expected-Last-Msg-Id";
    /** A roll-up: {@code sub} (the message's subject) or {@code all} (the stream). */
    public static final String ROLLUP = "Nats-Rollup";
    /** Direct get: the stream the message was read from. */
    public static final String STREAM = "Nats-Stream";
    /** Direct get: the message's subject. */
    public static final String SUBJECT = "Nats-Subject";
    /** Direct get: the message's stream sequence. */
    public static final String SEQUENCE = "Nats-Sequence";
    /** Direct get: when the message was stored (Go's RFC3339Nano). */
    public static final String TIME_STAMP = "Nats-Time-Stamp";
    /** A headers-only delivery: the payload's size in bytes. */
    public static final String MSG_SIZE = "Nats-Msg-Size";
    /** An idle heartbeat: the consumer's last delivered sequence. */
    public static final String LAST_CONSUMER = "Nats-Last-Consumer";
    /** An idle heartbeat: the stream sequence last delivered. */
    public static final String LAST_STREAM = "Nats-Last-Stream";
    /** An idle heartbeat: the flow-control reply the consumer waits for. */
    public static final String CONSUMER_STALLED = "Nats-Consumer-Stalled";
    /** A pull request's end: the messages it had left. */
    public static final String PENDING_MESSAGES = "Nats-Pending-Messages";
    /** A pull request's end: the bytes it had left. */
    public static final String PENDING_BYTES = "Nats-Pending-Bytes";

    /**
     * An outbox event's id (ringbus-outbox): its prefix and its row id, increasing per key. A stream
     * with per-key outbox ids on drops a message whose number is not above its key's last.
     */
    public static final String EVENT_ID = "Ringbus-Event-Id";
    /** An outbox event's ordering key (ringbus-outbox). */
    public static final String KEY = "Ringbus-Key";

    private HeaderNames() {
    }
}
