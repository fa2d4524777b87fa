package io.ringbus.core.internal;

import io.ringbus.core.Headers;
import io.ringbus.core.Message;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One preallocated ring slot. A publisher fills it between claiming and publishing its
 * sequence; event loops read it afterwards. The ring's sequence barriers order these plain
 * accesses, and the publisher cannot reuse the slot before every event loop has moved past it,
 * so a handler never sees a slot that a later publish has overwritten.
 *
 * <p>The last event loop done with a slot clears it ({@link #release}), so that the ring keeps
 * no payload, headers or reply subject alive after dispatch, and gives its payload bytes back
 * to the broker's in-flight budget.
 */
final class MessageSlot implements Message {
    private static final VarHandle LOOPS_LEFT;

    static {
        try {
            LOOPS_LEFT = MethodHandles.lookup().findVarHandle(MessageSlot.class, "loopsLeft", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** {@code null} marks a slot claimed while the broker closed: event loops skip it. */
    Route route;
    String subject;
    String replyTo;
    Headers headers;
    Object payload;
    long origin;
    /** Payload bytes counted in the broker's in-flight budget; 0 when none. */
    int bytes;
    /** Event loops that have not finished with this slot; written by the publisher before publishing. */
    private int loopsLeft;

    void set(Route route, String subject, String replyTo, Headers headers, Object payload, long origin) {
        set(route, subject, replyTo, headers, payload, origin, 0, 1);
    }

    void set(Route route, String subject, String replyTo, Headers headers, Object payload, long origin, int bytes,
             int loops) {
        this.origin = origin;
        this.bytes = bytes;
        this.loopsLeft = loops;
        this.route = route;
        this.subject = subject;
        this.replyTo = replyTo;
        this.headers = headers;
        this.payload = payload;
    }

    /**
     * Event loop, after dispatching this slot: the last of the {@code loops} loops clears it.
     *
     * @return the payload bytes to give back to the budget, 0 when none or not the last loop
     */
    int release(int loops) {
        // Plain read then a single write when one loop reads the ring; otherwise a decrement
        // (getAndAdd is a full fence, so the clearing loop sees every other loop's reads done).
        if (loops > 1 && (int) LOOPS_LEFT.getAndAdd(this, -1) != 1) {
            return 0;
        }
        int released = bytes;
        route = null;
        subject = null;
        replyTo = null;
        headers = null;
        payload = null;
        bytes = 0;
        return released;
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
