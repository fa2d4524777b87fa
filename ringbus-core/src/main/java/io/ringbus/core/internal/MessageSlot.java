package io.ringbus.core.internal;

import io.ringbus.core.Headers;
import io.ringbus.core.Message;

/**
 * One preallocated ring slot. A publisher fills it between claiming and publishing its
 * sequence; event loops read it afterwards. The ring's sequence barriers order these plain
 * accesses, and the publisher cannot reuse the slot before every event loop has moved past it,
 * so a handler never sees a slot that a later publish has overwritten.
 */
final class MessageSlot implements Message {
    /** {@code null} marks a slot claimed while the broker closed: event loops skip it. */
    Route route;
    String subject;
    String replyTo;
    Headers headers;
    Object payload;
    long origin;

    void set(Route route, String subject, String replyTo, Headers headers, Object payload, long origin) {
        this.origin = origin;
        this.route = route;
        this.subject = subject;
        this.replyTo = replyTo;
        this.headers = headers;
        this.payload = payload;
    }

    @Override
    public String subject() {
        return subject;
    }

    @Override
    public String replyTo() {
        return replyTo;
    }

    @Override
    public Headers headers() {
        return headers;
    }

    @Override
    public Object payload() {
        return payload;
    }

    @Override
    public long origin() {
        return origin;
    }

    @Override
    public Message copy() {
        return Message.of(subject, replyTo, headers, payload, origin);
    }

    @Override
    public String toString() {
        return "Message{subject=" + subject + ", replyTo=" + replyTo + ", headers=" + headers + '}';
    }
}
