package io.ringbus.core;

/**
 * Whether the messages of a subject outlive the process.
 *
 * @see Broker#registerSubject(String, Scope, Durability)
 */
public enum Durability {
    /** Messages live in memory only: delivered to the subscribers there are, lost on a crash (the default). */
    MEMORY,
    /**
     * Messages are stored in the broker's {@link Storage} before {@code publish} returns, and
     * durable subscriptions ({@link SubscribeOptions#durable(String)}) receive them at least once,
     * across restarts.
     */
    DURABLE
}
