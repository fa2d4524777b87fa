package io.ringbus.server.internal;

import io.netty.channel.Channel;
import io.ringbus.core.Scope;
import io.ringbus.core.Subscription;

import javax.net.ssl.SSLSession;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One connection's counters for monitoring (NATS {@code /connz}): messages and payload bytes in
 * and out, last activity and round-trip time.
 *
 * <p>Single writer: every update runs on the connection's Netty event loop (its reads, and the
 * {@link Outbound} drain, which runs there too). The monitor reads from its own thread. Writes
 * are {@code setOpaque} (atomic, no fence: a plain store on x86 and ARM), reads
 * {@code getOpaque}: a reader sees each counter whole (no torn longs) and eventually current,
 * but counters read together may be a few messages apart. That is all monitoring needs, and the
 * hot path pays no fence.
 */
final class ConnectionStats {
    private static final VarHandle IN_MSGS;
    private static final VarHandle IN_BYTES;
    private static final VarHandle OUT_MSGS;
    private static final VarHandle OUT_BYTES;
    private static final VarHandle LAST_ACTIVITY_MILLIS;
    private static final VarHandle RTT_NANOS;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            IN_MSGS = lookup.findVarHandle(ConnectionStats.class, "inMsgs", long.class);
            IN_BYTES = lookup.findVarHandle(ConnectionStats.class, "inBytes", long.class);
            OUT_MSGS = lookup.findVarHandle(ConnectionStats.class, "outMsgs", long.class);
            OUT_BYTES = lookup.findVarHandle(ConnectionStats.class, "outBytes", long.class);
            LAST_ACTIVITY_MILLIS = lookup.findVarHandle(ConnectionStats.class, "lastActivityMillis", long.class);
            RTT_NANOS = lookup.findVarHandle(ConnectionStats.class, "rttNanos", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Wall-clock time of the accept, in epoch milliseconds. */
    final long startMillis = System.currentTimeMillis();
    @SuppressWarnings("unused") // accessed through IN_MSGS
    private long inMsgs;
    @SuppressWarnings("unused")
    private long inBytes;
    @SuppressWarnings("unused")
    private long outMsgs;
    @SuppressWarnings("unused")
    private long outBytes;
    @SuppressWarnings("unused")
    private long lastActivityMillis = startMillis;
    @SuppressWarnings("unused")
    private long rttNanos;

    /** Event loop: one message published by the client, of {@code bytes} payload and header bytes. */
    void received(long bytes) {
        IN_MSGS.setOpaque(this, (long) IN_MSGS.getOpaque(this) + 1);
        IN_BYTES.setOpaque(this, (long) IN_BYTES.getOpaque(this) + bytes);
    }

    /** Event loop: {@code messages} deliveries of {@code bytes} payload and header bytes written. */
    void sent(long messages, long bytes) {
        OUT_MSGS.setOpaque(this, (long) OUT_MSGS.getOpaque(this) + messages);
        OUT_BYTES.setOpaque(this, (long) OUT_BYTES.getOpaque(this) + bytes);
    }

    /** Event loop: the client sent or was sent something now. */
    void active(long nowMillis) {
        LAST_ACTIVITY_MILLIS.setOpaque(this, nowMillis);
    }

    /** Event loop: a server PING was answered after {@code nanos}. */
    void rtt(long nanos) {
        RTT_NANOS.setOpaque(this, nanos);
    }

    long inMsgs() {
        return (long) IN_MSGS.getOpaque(this);
    }

    long inBytes() {
        return (long) IN_BYTES.getOpaque(this);
    }

    long outMsgs() {
        return (long) OUT_MSGS.getOpaque(this);
    }

    long outBytes() {
        return (long) OUT_BYTES.getOpaque(this);
    }

    long lastActivityMillis() {
        return (long) LAST_ACTIVITY_MILLIS.getOpaque(this);
    }

    long rttNanos() {
        return (long) RTT_NANOS.getOpaque(this);
    }

    /**
     * Any thread: the connection as the monitor shows it.
     *
     * @param subscriptions the connection's subscriptions by sid (a concurrent map)
     * @param user          who the client authenticated as, or {@code null}
     */
    ConnectionInfo info(long cid, Channel channel, long pendingBytes, ConnectOptions connect,
                        Map<String, Subscription> subscriptions, boolean withSubscriptions, Scope scope, String user) {
        List<ConnectionInfo.SubscriptionInfo> list = new ArrayList<>();
        int count = 0;
        for (Map.Entry<String, Subscription> entry : subscriptions.entrySet()) {
            Subscription s = entry.getValue();
            if (s.isActive()) {
                count++;
                if (withSubscriptions) {
                    list.add(new ConnectionInfo.SubscriptionInfo(s.id(), s.pattern(), s.options().queueGroup(),
                            entry.getKey(), s.delivered(), cid,
                            s.options().filter() == null ? null : s.options().filter().text(), s.filtered()));
                }
            }
        }
        SSLSession tls = channel == null ? null : TlsPipeline.session(channel);
        InetSocketAddress remote = channel != null && channel.remoteAddress() instanceof InetSocketAddress a ? a : null;
        String ip = remote == null || remote.getAddress() == null ? null : remote.getAddress().getHostAddress();
        return new ConnectionInfo(cid, ip, remote == null ? 0 : remote.getPort(), startMillis, lastActivityMillis(),
                rttNanos(), pendingBytes, inMsgs(), outMsgs(), inBytes(), outBytes(), connect.name(), connect.lang(),
                connect.version(), list, count, scope, user, tls == null ? null : tls.getProtocol(),
                tls == null ? null : tls.getCipherSuite());
    }
}
