package io.ringbus.core.internal.store;

import io.ringbus.core.StoredMessage;
import io.ringbus.core.wire.HeaderNames;

/**
 * A {@link LocalStream} as {@link AppendRules} sees it: its last sequence, the last sequence of a
 * subject, the id of its last message, what it holds.
 *
 * <p>Threading: under the stream's append lock.
 */
final class StreamRulesState implements AppendRules.State {
    private final LocalStream stream;
    /** The message id of the last record appended ("" when it had none), null until read from the log. */
    private String lastMsgId;

    StreamRulesState(LocalStream stream) {
        this.stream = stream;
    }

    /** A record with {@code msgId} (or none) was appended. */
    void appended(String msgId) {
        lastMsgId = msgId == null ? "" : msgId;
    }

    @Override
    public long lastSequence() {
        return stream.log().lastSequence();
    }

    @Override
    public long lastSequenceOf(String subject) {
        return stream.lastSequenceOf(subject);
    }

    @Override
    public String lastMsgId() {
        if (lastMsgId == null) {
            long last = stream.log().lastSequence();
            StoredMessage message = last == 0 ? null : stream.read(last, 1);
            String id = message == null || message.headers() == null ? null
                    : message.headers().first(HeaderNames.MSG_ID);
            lastMsgId = id == null ? "" : id;
        }
        return lastMsgId;
    }

    @Override
    public long messages() {
        long last = stream.log().lastSequence();
        return stream.held(stream.firstHeld(last), last);
    }

    @Override
    public long bytes() {
        return stream.log().stats().bytes();
    }

    @Override
    public long messagesOf(String subject) {
        return stream.history == null ? -1 : stream.history.count(subject);
    }
}
