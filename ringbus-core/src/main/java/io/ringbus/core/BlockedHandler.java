package io.ringbus.core;

import java.time.Duration;

/**
 * A watchdog warning: a handler has been running longer than its limit.
 *
 * @param threadName   the thread running it (an event loop, a worker, or a virtual thread)
 * @param virtual      whether that thread is virtual
 * @param mode         the subscription's execution mode
 * @param subject      the subject of the message being handled
 * @param subscription the subscription whose handler is blocked
 * @param elapsed      how long it has been running, at least
 * @param limit        the limit it passed
 * @param stackTrace   the thread's stack when the warning was raised
 */
public record BlockedHandler(String threadName, boolean virtual, ExecutionMode mode, String subject,
                             Subscription subscription, Duration elapsed, Duration limit,
                             StackTraceElement[] stackTrace) {
}
