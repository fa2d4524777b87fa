package io.ringbus.core;

/**
 * Receives the exceptions thrown by message handlers. Must not throw; if it does, the broker logs
 * that and carries on.
 *
 * <p>Threading: called on the thread whose handler threw (a dispatch, worker, virtual or
 * publishing thread), so from several threads at once: it must be thread-safe and must not block.
 */
@FunctionalInterface
public interface ErrorHandler {
    /**
     * Called on the thread that ran the handler, right after it threw.
     *
     * @param error        what the handler threw
     * @param message      the message being handled; valid only during this call
     * @param subscription the subscription whose handler threw
     */
    void onError(Throwable error, Message message, Subscription subscription);
}
