package io.ringbus.core.internal.store;

import io.ringbus.core.Headers;
import io.ringbus.core.PublishRejectedException;
import io.ringbus.core.StreamConfig;
import io.ringbus.core.wire.HeaderNames;

import java.nio.charset.StandardCharsets;

/**
 * What a stream admits ({@link StreamConfig.Admission}) and the JetStream expectations a message
 * carries, checked as nats-server 2.9 checks them ({@code processJetStreamMsg}), in its order:
 * sealed; (the duplicate window, by the stream); {@code Nats-Expected-Stream},
 * {@code -Last-Subject-Sequence}, {@code -Last-Sequence}, {@code -Last-Msg-Id}; the roll-up's
 * permission; the message's size; the limits under discard new. Each refusal is JetStream's error.
 *
 * <p>Threading: {@link #read} on the publisher's thread; {@link #refusal} under the stream's append lock.
 */
final class AppendRules {
    /** JetStream's {@code JSStreamNotMatchErr}. */
    static final int STREAM_NOT_MATCH = 10060;
    /** JetStream's {@code JSStreamWrongLastSequenceErrF}. */
    static final int WRONG_LAST_SEQUENCE = 10071;
    /** JetStream's {@code JSStreamWrongLastMsgIDErrF}. */
    static final int WRONG_LAST_MSG_ID = 10070;
    /** JetStream's {@code JSStreamRollupFailedF}. */
    static final int ROLLUP_FAILED = 10111;
    /** JetStream's {@code JSStreamMessageExceedsMaximumErr}. */
    static final int TOO_LARGE = 10054;
    /** JetStream's {@code JSStreamSealedErr}. */
    static final int SEALED = 10109;
    /** JetStream's {@code JSStreamStoreFailedF}: a limit under discard new. */
    static final int STORE_FAILED = 10077;
    private static final byte[] MARK_EXPECTED = HeaderNames.EXPECTED_PREFIX.getBytes(StandardCharsets.US_ASCII);
    private static final byte[] MARK_ROLLUP = HeaderNames.ROLLUP.getBytes(StandardCharsets.US_ASCII);

    /**
     * The expectations and roll-up one message carries.
     *
     * @param stream              {@code Nats-Expected-Stream}, or null
     * @param lastSequence        {@code Nats-Expected-Last-Sequence}, -1 when absent, -2 when not a number
     * @param lastSubjectSequence {@code Nats-Expected-Last-Subject-Sequence}, as {@code lastSequence}
     * @param lastMsgId           {@code Nats-Expected-Last-Msg-Id}, or null
     * @param rollup              {@code Nats-Rollup}, or null
     */
    record Expectations(String stream, long lastSequence, long lastSubjectSequence, String lastMsgId,
                        String rollup) {
        static final Expectations NONE = new Expectations(null, -1, -1, null, null);

        /** @return whether a roll-up of the message's subject was asked ({@code Nats-Rollup: sub}) */
        boolean rollsUpSubject() {
            return "sub".equals(rollup);
        }
    }

    /** What {@link #refusal} needs to know of the stream, read under its append lock. */
    interface State {
        /** @return the last sequence stored (0 when none) */
        long lastSequence();

        /** @return the last sequence of {@code subject}, 0 when it has none */
        long lastSequenceOf(String subject);

        /** @return the message id of the last message stored, "" when it had none */
        String lastMsgId();

        /** @return messages held now */
        long messages();

        /** @return bytes held now */
        long bytes();

        /** @return messages {@code subject} holds now, or -1 when the stream keeps no per-subject count */
        long messagesOf(String subject);
    }

    private AppendRules() {
    }

    /**
     * @param headers the message's headers, or null
     * @return what it expects; {@link Expectations#NONE} (one scan of the block) when it names none
     */
    static Expectations read(Headers headers) {
        if (headers == null || headers.isEmpty()) {
            return Expectations.NONE;
        }
        byte[] block = headers.natsBlock();
        if (block != null && !contains(block, MARK_EXPECTED) && !contains(block, MARK_ROLLUP)) {
            return Expectations.NONE;
        }
        String rollup = headers.first(HeaderNames.ROLLUP);
        return new Expectations(emptyToNull(headers.first(HeaderNames.EXPECTED_STREAM)),
                number(headers.first(HeaderNames.EXPECTED_LAST_SEQUENCE)),
                number(headers.first(HeaderNames.EXPECTED_LAST_SUBJECT_SEQUENCE)),
                emptyToNull(headers.first(HeaderNames.EXPECTED_LAST_MSG_ID)), emptyToNull(rollup));
    }

    /**
     * @return the refusal of a message of {@code size} bytes (headers and payload) to {@code subject},
     *         or null when the stream admits it
     */
    static PublishRejectedException refusal(StreamConfig config, State state, String subject, int size,
                                            Expectations expected) {
        StreamConfig.Admission admission = config.admission();
        String name = config.name();
        if (admission.sealed()) {
            return refused(400, SEALED, "invalid operation on sealed stream", name);
        }
        if (expected != Expectations.NONE) {
            PublishRejectedException failed = unmet(config, state, subject, expected);
            if (failed != null) {
                return failed;
            }
        }
        if (admission.maxMessageSize() >= 0 && size > admission.maxMessageSize()) {
            return refused(400, TOO_LARGE, "message size exceeds maximum allowed", name);
        }
        return admission.discard() == StreamConfig.Discard.NEW ? full(config, state, subject, size) : null;
    }

    private static PublishRejectedException unmet(StreamConfig config, State state, String subject,
                                                  Expectations expected) {
        String name = config.name();
        if (expected.stream() != null && !expected.stream().equals(name)) {
            return refused(400, STREAM_NOT_MATCH, "expected stream does not match", name);
        }
        if (expected.lastSubjectSequence() != -1) {
            long last = state.lastSequenceOf(subject);
            if (last != expected.lastSubjectSequence()) {
                return refused(400, WRONG_LAST_SEQUENCE, "wrong last sequence: " + last, name);
            }
        }
        if (expected.lastSequence() != -1 && expected.lastSequence() != state.lastSequence()) {
            return refused(400, WRONG_LAST_SEQUENCE, "wrong last sequence: " + state.lastSequence(), name);
        }
        if (expected.lastMsgId() != null && !expected.lastMsgId().equals(state.lastMsgId())) {
            return refused(400, WRONG_LAST_MSG_ID, "wrong last msg ID: " + state.lastMsgId(), name);
        }
        if (expected.rollup() != null) {
            if (!config.admission().allowRollup()) {
                return refused(500, ROLLUP_FAILED, "rollup not permitted", name);
            }
            if (!expected.rollup().equals("sub") && !expected.rollup().equals("all")) {
                return refused(500, ROLLUP_FAILED, "rollup value invalid: \"" + expected.rollup() + "\"", name);
            }
        }
        return null;
    }

    /** Discard new: JetStream's file store refuses what would go past a limit. */
    private static PublishRejectedException full(StreamConfig config, State state, String subject, int size) {
        boolean replacesOldest = false;
        if (config.maxMessagesPerSubject() > 0) {
            long held = state.messagesOf(subject);
            if (held >= config.maxMessagesPerSubject()) {
                if (config.admission().discardNewPerSubject()) {
                    return refused(503, STORE_FAILED, "maximum messages per subject exceeded", config.name());
                }
                replacesOldest = true;
            }
        }
        if (!replacesOldest && config.maxMessages() > 0 && state.messages() >= config.maxMessages()) {
            return refused(503, STORE_FAILED, "maximum messages exceeded", config.name());
        }
        if (!replacesOldest && config.maxBytes() > 0 && state.bytes() + size >= config.maxBytes()) {
            return refused(503, STORE_FAILED, "maximum bytes exceeded", config.name());
        }
        return null;
    }

    private static PublishRejectedException refused(int status, int code, String description, String stream) {
        return new PublishRejectedException(status, code, description, stream);
    }

    /** nats-server's parseInt64: digits only, else -2 (never met, as its -1 read unsigned). */
    private static long number(String text) {
        if (text == null || text.isEmpty()) {
            return -1;
        }
        long value = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9' || value > (Long.MAX_VALUE - 9) / 10) {
                return -2;
            }
            value = value * 10 + (c - '0');
        }
        return value;
    }

    private static String emptyToNull(String text) {
        return text == null || text.isEmpty() ? null : text;
    }

    private static boolean contains(byte[] block, byte[] mark) {
        outer:
        for (int i = 0; i <= block.length - mark.length; i++) {
            for (int j = 0; j < mark.length; j++) {
                if (block[i + j] != mark[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }
}
