package io.ringbus.outbox.internal;

import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The relays started from one {@code Outbox} in this JVM, woken by its appends: the in-process
 * signal that replaces a NOTIFY per commit. An append wakes them before its transaction commits
 * (the outbox cannot see the caller's commit), so a woken relay looks again at its busy pace for a
 * while rather than once.
 */
public final class Wakeups {
    private final CopyOnWriteArrayList<Runnable> relays = new CopyOnWriteArrayList<>();

    /** @param wakeUp what wakes one relay; called on the appending thread, so it must not block */
    public void register(Runnable wakeUp) {
        relays.add(wakeUp);
    }

    /** @param wakeUp a callback given to {@link #register} */
    public void unregister(Runnable wakeUp) {
        relays.remove(wakeUp);
    }

    /** Wakes every registered relay. */
    public void wakeAll() {
        for (Runnable relay : relays) {
            relay.run();
        }
    }
}
