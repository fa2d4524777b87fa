package io.ringbus.core;

/** An immutable message, not tied to any ring slot. */
record DetachedMessage(String subject, String replyTo, Headers headers, Object payload, long origin)
        implements Message {
    @Override
    public Message copy() {
        return this;
    }
}
