package io.ringbus.core;

/**
 * Receives the watchdog's warnings, on the watchdog thread. Called again at every check while a
 * handler stays blocked. Must not block or throw.
 */
@FunctionalInterface
public interface BlockedHandlerListener {
    /**
     * @param warning what is blocked, where, and for how long
     */
    void onBlocked(BlockedHandler warning);
}
