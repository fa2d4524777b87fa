package io.ringbus.core.internal;

import io.ringbus.core.ExecutionMode;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Tells the watchdog what one thread of execution is running: an event loop for its lifetime,
 * or a worker / virtual-thread drainer while it runs.
 *
 * <p>The owner thread bumps {@code phase} to odd before a handler call and to even after it, a
 * release store each (a plain store on x86): no clock read on the hot path. The watchdog reads
 * {@code phase} with acquire; an odd phase seen unchanged across checks means one handler call
 * has been running since the first of those checks. {@code subscriber} and {@code subject} are
 * written before the odd store, so an acquire read of the phase sees them (re-checked after use
 * with {@link #phaseRecheck()}, as a seqlock; the two fences make it one under the Java memory
 * model, not only on x86).
 */
final class HandlerProbe {
    private static final VarHandle PHASE;

    static {
        try {
            PHASE = MethodHandles.lookup().findVarHandle(HandlerProbe.class, "phase", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final ExecutionMode mode;
    volatile Thread thread;
    private long phase;
    private Subscriber subscriber;
    private String subject;

    /** Watchdog-owned: the odd phase last seen, and when it was first seen. */
    long watchedPhase = -1;
    long watchedSinceNanos;

    HandlerProbe(ExecutionMode mode, Thread thread) {
        this.mode = mode;
        this.thread = thread;
    }

    /** Owner thread: a handler call starts. */
    void enter(Subscriber subscriber, String subject) {
        // Seqlock writer: the previous exit's phase store must be visible before this call's fields
        // (a release store orders only what came before it). A compiler barrier on x86.
        VarHandle.storeStoreFence();
        this.subscriber = subscriber;
        this.subject = subject;
        PHASE.setRelease(this, phase + 1);
    }

    /** Owner thread: the handler call returned or threw. */
    void exit() {
        PHASE.setRelease(this, phase + 1);
    }

    /** Any thread: the current phase, odd while inside a handler. */
    long phaseAcquire() {
        return (long) PHASE.getAcquire(this);
    }

    /**
     * Watchdog: the phase again, after {@link #subscriber()} and {@link #subject()} were read: the
     * fence keeps those plain reads before it (seqlock reader), so an unchanged phase proves they
     * belong to the call that phase numbers.
     */
    long phaseRecheck() {
        VarHandle.loadLoadFence();
        return (long) PHASE.getAcquire(this);
    }

    /** Watchdog: the subscriber of the current call; valid if the phase is unchanged afterwards. */
    Subscriber subscriber() {
        return subscriber;
    }

    /** Watchdog: the subject of the current call; valid if the phase is unchanged afterwards. */
    String subject() {
        return subject;
    }
}
