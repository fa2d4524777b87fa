package io.ringbus.server.internal;

import io.netty.util.concurrent.ScheduledFuture;

import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * PING and PONG, both ways. The server pings every {@code ping_interval} and closes a connection
 * with {@code max_pings_out} PINGs unanswered (stale), measuring the round trip for
 * {@code /connz}; only while it reads the socket, since a PONG cannot arrive otherwise. The
 * client's PING is answered behind the deliveries already queued for it (a flush barrier, as with
 * nats-server), and, while publishes to durable subjects are not yet stored, only once they are
 * (see {@link DurableAcks}).
 *
 * <p>Event loop of the connection only.
 */
final class KeepAlive {
    private final NatsSession session;
    /** Whether the connection reads its socket now. */
    private final BooleanSupplier reading;
    private int pingsOut;
    private long pingSentNanos;
    private ScheduledFuture<?> pingTimer;

    KeepAlive(NatsSession session, BooleanSupplier reading) {
        this.session = session;
        this.reading = reading;
    }

    /** Starts pinging the client. */
    void start() {
        long ping = session.server.config.pingInterval().toNanos();
        pingTimer = session.channel.eventLoop().scheduleAtFixedRate(this::ping, ping, ping, TimeUnit.NANOSECONDS);
    }

    /** Stops pinging: the connection is gone. */
    void stop() {
        if (pingTimer != null) {
            pingTimer.cancel(false);
        }
    }

    /** Reading goes on after a stop: the PONGs unread meanwhile are not held against the client. */
    void readingResumed() {
        pingsOut = 0;
    }

    /** The client's {@code PING}. */
    void onPing() {
        if (session.closing) {
            return;
        }
        if (session.durableAcks != null && session.durableAcks.holdPong()) {
            // A durability barrier: answered once every earlier PUB to a durable subject is stored.
            return;
        }
        pong();
    }

    /** Answers one PING, behind the deliveries queued for this client so far. */
    void pong() {
        if (session.closing) {
            return;
        }
        // Every delivery the client's earlier PUBs caused to network subscribers is queued by now
        // (they run on this thread), so a client that uses PING/PONG as a flush barrier sees its
        // own messages first, as with nats-server.
        if (session.outbound != null) {
            session.outbound.enqueuePong();
        } else {
            session.reply(NatsProtocol.PONG);
        }
    }

    /** The client's {@code PONG}: the answer to our PING. */
    void onPong() {
        pingsOut = 0;
        if (pingSentNanos != 0) {
            session.stats.rtt(System.nanoTime() - pingSentNanos);
            pingSentNanos = 0;
        }
    }

    private void ping() {
        if (session.closing || !reading.getAsBoolean()) {
            // We are not reading the socket now, so its PONGs cannot arrive.
            return;
        }
        if (pingsOut >= session.server.config.maxPingsOut()) {
            session.server.counters.staleConnections.increment();
            session.closeWith(ProtocolError.STALE_CONNECTION);
            return;
        }
        pingsOut++;
        pingSentNanos = System.nanoTime();
        session.channel.writeAndFlush(NatsProtocol.PING_BUFFER.duplicate(), session.channel.voidPromise());
    }
}
