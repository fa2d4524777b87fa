package io.ringbus.server.internal;

import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * One client's claim on the {@link CostlyCheckPool}: where it comes from (the fairness key),
 * until when its answer is still wanted, and whether its client is still there. Made by
 * {@link CostlyCheckPool#ticket}; {@link #abandon()} when the client leaves drops its waiting
 * checks, so that no thread ever works for a client that is gone.
 *
 * <p>Thread-safe: abandoned on the client's event loop, read on the pool's threads.
 */
public final class CheckTicket {
    private final CostlyCheckPool pool;
    private final String source;
    private final long deadlineNanos;
    private volatile boolean abandoned;

    CheckTicket(CostlyCheckPool pool, String source, long deadlineNanos) {
        this.pool = pool;
        this.source = source;
        this.deadlineNanos = deadlineNanos;
    }

    /**
     * @param remote a client's address
     * @return the source its costly checks are queued under: the IP address, so that the
     *         connections of one host share one queue; another address's text; {@code "unknown"}
     */
    static String sourceOf(SocketAddress remote) {
        if (remote instanceof InetSocketAddress inet && inet.getAddress() != null) {
            return inet.getAddress().getHostAddress();
        }
        return remote == null ? "unknown" : remote.toString();
    }

    /** @return the source (remote IP address) this ticket's checks queue under */
    public String source() {
        return source;
    }

    /** @return whether the client's deadline has passed at {@code nowNanos} ({@link System#nanoTime()}) */
    boolean expiredAt(long nowNanos) {
        return nowNanos - deadlineNanos > 0;
    }

    /** @return whether the client left */
    boolean abandoned() {
        return abandoned;
    }

    /** Any thread, idempotent: the client left; its checks still waiting are dropped, none is started. */
    public void abandon() {
        if (!abandoned) {
            abandoned = true;
            pool.drop(this);
        }
    }
}
