package io.ringbus.outbox;

/**
 * What {@link Inbox#process} did with a message. Every outcome is final for that delivery:
 * acknowledge it (a handler's exception is thrown instead, and then the message must not be
 * acknowledged, so that it is redelivered).
 */
public enum InboxOutcome {
    /** The handler ran and its effects committed with the event id. */
    APPLIED,
    /** The event id was already recorded: the handler did not run and nothing was committed. */
    DUPLICATE,
    /**
     * The message has no usable event id: the handler did not run; where the inbox records
     * refusals, a row in {@code <table>_dead} says why.
     */
    REFUSED
}
