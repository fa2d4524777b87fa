package io.ringbus.server.internal;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.ringbus.core.Headers;
import io.ringbus.core.Message;
import io.ringbus.core.memory.ByteBudget;
import io.ringbus.core.wire.NatsHeaderBlock;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One connection's outbound path for MSG/HMSG and the protocol's replies. Publishing threads
 * (other connections' event loops, in-process publishers) encode each delivery straight into
 * this connection's pending buffers, under a lock held for the copy only, and never wait; the
 * connection's own Netty event loop hands the buffers to the socket while it is writable. So a
 * delivery costs one encode and one copy, with no object per message and no second pass on the
 * other thread (nats-server appends to a subscriber's buffer under its lock the same way).
 * Netty's own buffer is bounded by the channel's write watermark, since buffers are handed over
 * only while the channel is writable.
 *
 * <p>Pending bytes (encoded, not yet handed to Netty) are bounded. Past half of
 * {@code maxPending} the outbound is <em>stalling</em>: a network publisher that delivers to it
 * stops reading its socket until the stall ends (as nats-server stalls producers, but no thread
 * waits: see {@link Publisher#stalledBy}). The stall ends when the client reads enough, or
 * when it has lasted {@code writeDeadline}: then the client is a slow consumer, cut off alone.
 * Past {@code maxPending} while the server's output budget is spent, it is a slow consumer at
 * once. That budget, {@code ServerConfig.outboundBudget()}, bounds the pending buffers of all
 * connections together (counted per buffer): past it every delivery stalls its publisher,
 * network publishers pause before taking another message, and a client that takes nothing from
 * its socket for the write deadline meanwhile is cut off. (Each network publisher learns of a
 * stall from its own next delivery, so many publishers can each add one message past the stall
 * mark: the budget, not {@code maxPending}, is what bounds that.)
 * A subscriber that reads at full speed
 * slows its publishers at most briefly and is never dropped; one that does not read affects
 * only itself and, for at most the write deadline, the publishers that feed it.
 *
 * <pre>
 * MSG  &lt;subject&gt; &lt;sid&gt; [reply-to] &lt;#bytes&gt;\r\n&lt;payload&gt;\r\n
 * HMSG &lt;subject&gt; &lt;sid&gt; [reply-to] &lt;#header bytes&gt; &lt;#total bytes&gt;\r\n&lt;headers&gt;&lt;payload&gt;\r\n
 * </pre>
 */
final class Outbound {
    private static final short CRLF_SHORT = ('\r' << 8) | '\n';
    private static final byte[] EMPTY = new byte[0];
    /**
     * Bytes a drain moves from the pending chains at a time, and only once the previous ones are
     * handed to Netty (Netty's default high write watermark): what a slow client has not taken yet
     * stays in the chains, where a later, higher-priority message can still go before it.
     */
    private static final int MOVE_BYTES = 64 * 1024;

    private final Channel channel;
    private final ServerCounters counters;
    private final ConnectionStats stats;
    private final long maxPending;
    private final Runnable onSlowConsumer;
    private final long stallBytes;
    private final long writeDeadlineNanos;
    /** The capacity of every connection's pending buffers, and its bound (ServerConfig.outboundBudget). */
    private final ByteBudget serverBudget;
    private final AtomicBoolean scheduled = new AtomicBoolean();
    /** When pending bytes went past the stall mark (System.nanoTime, never 0), or 0 when below it. */
    private final AtomicLong stallingSince = new AtomicLong();
    private final AtomicBoolean slow = new AtomicBoolean();
    private final Runnable drain = this::drain;
    private final Runnable checkStall = this::checkStall;
    private volatile boolean closed;
    /** Whether the client announced {@code headers}: if not, it gets MSG with the payload only, as from nats-server. */
    private volatile boolean headersSupported;

    // Guarded by lock: the pending buffers in order (full ones, then the one being filled), the
    // messages in them for the connection's statistics, and the encoder's scratch state (the
    // control line, the last subject's bytes, the last payload size's digits).
    private final ReentrantLock lock = new ReentrantLock();
    /** The pending buffers, one chain per priority. */
    private final OutboundChains chains;
    /** The chain {@link #writable} appends to: the priority of the message being encoded. */
    private int level = Message.DEFAULT_PRIORITY;
    private long messages;
    private long payloadBytes;
    /** MSG/HMSG bytes in the pending buffers (for {@code bytesOut}, which leaves out replies). */
    private long messageBytes;
    /** Bytes in the pending buffers (messages and replies). */
    private long lockedBytes;
    private byte[] line = new byte[256];
    private String lastSubject;
    private byte[] lastSubjectBytes;
    private final byte[] sizeDigits = new byte[10];
    private int sizeDigitsLength;
    private int lastSize = -1;
    // Event loop only: the buffers taken from the pending ones and not yet handed to Netty, and
    // their bytes (read by publishers: pending = lockedBytes + takenBytes).
    private final ArrayDeque<ByteBuf> taken = new ArrayDeque<>();
    private volatile long takenBytes;

    Outbound(Channel channel, ServerCounters counters, ConnectionStats stats, long maxPending,
             long writeDeadlineNanos, ByteBudget serverBudget, Runnable onSlowConsumer) {
        this.channel = channel;
        this.serverBudget = serverBudget;
        this.counters = counters;
        this.stats = stats;
        this.maxPending = maxPending;
        this.stallBytes = maxPending / 2;
        this.writeDeadlineNanos = writeDeadlineNanos;
        this.onSlowConsumer = onSlowConsumer;
        this.chains = new OutboundChains(channel, serverBudget);
    }

    /** @param supported whether the client announced {@code headers} in CONNECT */
    void headersSupported(boolean supported) {
        this.headersSupported = supported;
    }

    /**
     * Encodes a delivery; called on the publishing thread (a PUBLISHER subscription's handler).
     * Never waits but for the lock, held by others only while they copy: past the stall mark it
     * tells the publishing connection, if any, to stop reading (see the class comment). A
     * network publisher's {@link WireMessage} is copied straight from its input buffer.
     *
     * @param sid the subscription id, as the client sent it
     */
    void enqueue(Message message, byte[] sid) {
        if (closed) {
            return;
        }
        if (message instanceof WireMessage wire) {
            enqueueWire(wire, sid);
            return;
        }
        String subject = message.subject();
        Object body = message.payload();
        if (body instanceof io.ringbus.server.spi.DeliveredAs shown) {
            subject = shown.subject();
            body = shown.payload();
        }
        byte[] payload = payloadBytes(body);
        byte[] headerBlock = headersSupported ? headerBlock(message.headers()) : null;
        int priority = message.priority();
        long queued;
        lock.lock();
        try {
            if (closed) {
                return;
            }
            level = priority;
            int headersLength = headerBlock == null ? -1 : headerBlock.length;
            int n = controlLine(subject, sid, message.replyTo(), headersLength, payload.length);
            ByteBuf out = writable(n + Math.max(headersLength, 0) + payload.length + 2);
            out.writeBytes(line, 0, n);
            if (headerBlock != null) {
                out.writeBytes(headerBlock);
            }
            out.writeBytes(payload);
            out.writeShort(CRLF_SHORT);
            queued = countLocked(n + Math.max(headersLength, 0) + payload.length + 2, Math.max(headersLength, 0)
                    + payload.length);
        } finally {
            lock.unlock();
        }
        afterEnqueue(queued, null);
    }

    /**
     * {@link #enqueue} of a network publish: the control line, then the header block (if this
     * client takes headers) and payload copied from the publisher's input. No allocation.
     */
    private void enqueueWire(WireMessage wire, byte[] sid) {
        int priority = wire.priority();
        int headersLength = headersSupported && wire.headersLength() > 0 ? wire.headersLength() : -1;
        int payloadLength = wire.payloadLength();
        ByteBuf input = wire.input();
        long queued;
        lock.lock();
        try {
            if (closed) {
                return;
            }
            level = priority;
            int n = controlLine(wire.subject(), sid, wire.replyTo(), headersLength, payloadLength);
            int size = n + Math.max(headersLength, 0) + payloadLength + 2;
            ByteBuf out = writable(size);
            out.writeBytes(line, 0, n);
            if (headersLength > 0) {
                out.writeBytes(input, wire.headersAt(), headersLength);
            }
            out.writeBytes(input, wire.payloadAt(), payloadLength);
            out.writeShort(CRLF_SHORT);
            queued = countLocked(size, Math.max(headersLength, 0) + payloadLength);
        } finally {
            lock.unlock();
        }
        afterEnqueue(queued, wire.publisher());
    }

    /**
     * Under the lock: counts one message written. Counted under the lock we hold anyway: no shared
     * atomic per delivery (fan-in has many publishers on one subscriber); the totals reach the
     * counters at each drain.
     *
     * @return the bytes now queued for this client
     */
    private long countLocked(int size, int bodyBytes) {
        level = Message.DEFAULT_PRIORITY;
        messages++;
        payloadBytes += bodyBytes;
        messageBytes += size;
        lockedBytes += size;
        return lockedBytes + takenBytes;
    }

    /**
     * After a delivery was queued: a slow consumer is cut off; else the drain is scheduled (by
     * the network publisher at the end of its read, or now) and a stall noted.
     *
     * @param publisher the network connection whose publish this is, or {@code null}
     */
    private void afterEnqueue(long queued, Publisher publisher) {
        if (queued > maxPending && serverBudget.exceeded()) {
            slowConsumer();
            return;
        }
        if (!scheduled.get() && scheduled.compareAndSet(false, true)) {
            if (publisher != null) {
                publisher.flushLater(this);
            } else {
                channel.eventLoop().execute(drain);
            }
        }
        if (queued > stallBytes || serverBudget.exceeded()) {
            // Past this client's stall mark, or the server's output budget is spent: its
            // publishers wait, and the write-deadline clock runs.
            stallSlowPath(publisher);
        }
    }

    /** The block to send: as received when the headers came over NATS, else encoded; null for none. */
    private static byte[] headerBlock(Headers headers) {
        byte[] block = headers.natsBlock();
        if (block != null) {
            return block;
        }
        return headers.isEmpty() ? null : NatsHeaderBlock.encode(headers, null);
    }

    /** Publishing thread: past the stall mark. Starts the write-deadline clock; slows a network publisher. */
    private void stallSlowPath(Publisher publisher) {
        long now = System.nanoTime() | 1; // never 0, which means "not stalling"
        if (stallingSince.get() == 0 && stallingSince.compareAndSet(0, now)) {
            counters.outboundStalls.increment();
            channel.eventLoop().schedule(checkStall, writeDeadlineNanos, TimeUnit.NANOSECONDS);
        }
        if (publisher != null) {
            publisher.stalledBy(this);
        }
    }

    /** Event loop: the write deadline of a stall has passed, unless the client read meanwhile. */
    private void checkStall() {
        long since = stallingSince.get();
        if (since == 0 || closed) {
            return;
        }
        long left = since + writeDeadlineNanos - System.nanoTime();
        if (left > 0) {
            // A newer stall started after the one this check was scheduled for.
            channel.eventLoop().schedule(checkStall, left, TimeUnit.NANOSECONDS);
            return;
        }
        if (pending() <= stallBytes && !serverBudget.exceeded()) {
            // Stalled by the server's budget, which others have freed since: not slow.
            stallingSince.set(0);
            return;
        }
        slowConsumer();
    }

    /** @return whether publishers to this connection should wait (it is past the stall mark and not cut off) */
    boolean isStalling() {
        return stallingSince.get() != 0 && !closed;
    }

    /** Any thread: cuts the client off once; its buffers are released on its event loop. */
    private void slowConsumer() {
        closed = true;
        if (slow.compareAndSet(false, true)) {
            onSlowConsumer.run();
        }
    }

    /**
     * Event loop: queues a PONG behind every delivery queued so far, so that a client's PING is
     * answered after the messages its earlier PUBs delivered to it, as nats-server does.
     */
    void enqueuePong() {
        enqueueControl(NatsProtocol.PONG);
    }

    /**
     * Event loop: queues a protocol reply ({@code +OK}, {@code -ERR}, a 503 status message)
     * behind the deliveries queued so far, so that the client reads answers and messages in
     * the order nats-server writes them (a PUB's own delivery before the next op's {@code +OK}).
     *
     * @param bytes the whole reply, CRLF included
     */
    void enqueueControl(byte[] bytes) {
        if (closed) {
            return;
        }
        lock.lock();
        try {
            if (closed) {
                return;
            }
            writable(bytes.length).writeBytes(bytes);
            lockedBytes += bytes.length;
        } finally {
            lock.unlock();
        }
        if (scheduled.compareAndSet(false, true)) {
            channel.eventLoop().execute(drain);
        }
    }

    /** Publishing connection's event loop, at the end of its read: lets this connection's loop write what was queued. */
    void scheduleDrain() {
        channel.eventLoop().execute(drain);
    }

    /** Netty loop: the channel became writable again. */
    void onWritable() {
        drain();
    }

    /** Event loop: stops queueing and releases what is pending; the connection is closing. */
    void close() {
        closed = true;
        releasePending();
    }

    /** Any thread (the monitor): bytes encoded for the client and not yet handed to Netty. */
    long pending() {
        lock.lock();
        try {
            return lockedBytes + takenBytes;
        } finally {
            lock.unlock();
        }
    }

    private void releasePending() {
        long freed = 0;
        lock.lock();
        try {
            freed += chains.releaseAll();
            lockedBytes = 0;
        } finally {
            lock.unlock();
        }
        for (ByteBuf buffer : taken) {
            freed += buffer.capacity();
            buffer.release();
        }
        if (freed > 0) {
            serverBudget.add(-freed);
        }
        taken.clear();
        takenBytes = 0;
    }

    /**
     * Event loop: hands the pending buffers to Netty while the channel is writable, highest
     * priority first ({@link OutboundChains#takeInto}), moving them out of the chains only as Netty takes them.
     */
    private void drain() {
        scheduled.set(false);
        if (!channel.isActive() || closed) {
            releasePending();
            return;
        }
        long sentMessages = 0;
        long sentPayload = 0;
        long sentBytes = 0;
        long written = 0;
        long handedCapacity = 0;
        boolean counted = false;
        for (;;) {
            while (!taken.isEmpty() && channel.isWritable()) {
                ByteBuf buffer = taken.poll();
                written += buffer.readableBytes();
                handedCapacity += buffer.capacity();
                channel.write(buffer, channel.voidPromise());
            }
            boolean take = taken.isEmpty() && channel.isWritable();
            if (!take && counted) {
                break;
            }
            long moved = 0;
            lock.lock();
            try {
                if (!counted) {
                    // The deliveries encoded so far count as sent, once, whether or not the
                    // socket takes them now (the statistics of a drain, as before priorities).
                    counted = true;
                    sentMessages = messages;
                    sentPayload = payloadBytes;
                    sentBytes = messageBytes;
                    messages = 0;
                    payloadBytes = 0;
                    messageBytes = 0;
                }
                if (take) {
                    moved = chains.takeInto(taken, MOVE_BYTES);
                    lockedBytes -= moved;
                    // Moved from the locked count to the taken one before the lock is let go: a
                    // publisher never sees these bytes in neither.
                    takenBytes += moved;
                }
            } finally {
                lock.unlock();
            }
            if (moved == 0) {
                break;
            }
        }
        if (handedCapacity > 0) {
            // Netty's own queue is bounded by the channel's write watermark, not by this budget.
            serverBudget.add(-handedCapacity);
        }
        if (sentMessages > 0) {
            counters.messagesOut.add(sentMessages);
            counters.bytesOut.add(sentBytes);
            counters.payloadBytesOut.add(sentPayload);
            stats.sent(sentMessages, sentPayload);
            stats.active(System.currentTimeMillis());
        }
        if (written > 0) {
            // Handed to Netty: publishers stalled on this client may go on.
            takenBytes -= written;
            channel.flush();
        }
        if (stallingSince.get() != 0) {
            clearStallIfTaken();
        }
        // What is left waits for the channel to become writable again (onWritable).
    }

    /**
     * Event loop, while stalling: the stall ends once this client is below its stall mark and holds
     * nothing the server has no budget left for (a client that takes nothing while the budget is
     * spent stays stalling, and is cut off at the write deadline).
     */
    private void clearStallIfTaken() {
        long left = pending();
        if (left <= stallBytes && (left == 0 || !serverBudget.exceeded())) {
            stallingSince.set(0);
        }
    }

    /** Under the lock: the buffer to append {@code size} bytes to, in the chain of {@link #level}. */
    private ByteBuf writable(int size) {
        return chains.writable(level, size);
    }

    /**
     * Under the lock: builds one MSG/HMSG control line, with its CRLF, in {@link #line}: written
     * with one bulk copy, then the body (three writes per message instead of one per field).
     *
     * @param headersLength the header block's length, or -1 for a MSG
     * @return the line's length
     */
    private int controlLine(String subjectText, byte[] sid, String replyTo, int headersLength, int payloadLength) {
        byte[] subject = subjectBytes(subjectText);
        // "HMSG " + subject + ' ' + sid + ' ' + [reply + ' '] + 10 digits + ' ' + 10 digits + CRLF;
        // UTF-8 takes at most three bytes per char.
        int most = 5 + subject.length + 1 + sid.length + 1
                + (replyTo == null ? 0 : SubjectCodec.maxEncodedLength(replyTo) + 1) + 24;
        byte[] l = line;
        if (l.length < most) {
            l = line = new byte[Math.max(most, l.length * 2)];
        }
        int n;
        if (headersLength < 0) {
            l[0] = 'M';
            l[1] = 'S';
            l[2] = 'G';
            l[3] = ' ';
            n = 4;
        } else {
            l[0] = 'H';
            l[1] = 'M';
            l[2] = 'S';
            l[3] = 'G';
            l[4] = ' ';
            n = 5;
        }
        System.arraycopy(subject, 0, l, n, subject.length);
        n += subject.length;
        l[n++] = ' ';
        System.arraycopy(sid, 0, l, n, sid.length);
        n += sid.length;
        l[n++] = ' ';
        if (replyTo != null) {
            n = SubjectCodec.encodeInto(l, n, replyTo);
            l[n++] = ' ';
        }
        if (headersLength >= 0) {
            n = putDecimal(l, n, headersLength);
            l[n++] = ' ';
            n = putDecimal(l, n, headersLength + payloadLength);
        } else {
            n = putSize(l, n, payloadLength);
        }
        l[n++] = '\r';
        l[n++] = '\n';
        return n;
    }

    /** The bytes of a subject; subscribers mostly see one subject again and again (the parser interns them). */
    private byte[] subjectBytes(String subject) {
        if (subject != lastSubject) {
            lastSubjectBytes = SubjectCodec.encode(subject);
            lastSubject = subject;
        }
        return lastSubjectBytes;
    }

    /** Puts a payload size in decimal at {@code at}; returns the index after it. Sizes mostly repeat. */
    private int putSize(byte[] to, int at, int size) {
        if (size != lastSize) {
            int end = putDecimal(sizeDigits, 0, size);
            sizeDigitsLength = end;
            lastSize = size;
        }
        System.arraycopy(sizeDigits, 0, to, at, sizeDigitsLength);
        return at + sizeDigitsLength;
    }

    /** Puts a non-negative int in decimal at {@code at}; returns the index after it. */
    private static int putDecimal(byte[] to, int at, int value) {
        int digits = 1;
        for (int v = value; v >= 10; v /= 10) {
            digits++;
        }
        int end = at + digits;
        for (int i = end - 1, v = value; i >= at; i--, v /= 10) {
            to[i] = (byte) ('0' + v % 10);
        }
        return end;
    }

    /**
     * The bytes sent for a payload: a {@code byte[]} as is (network publishers publish those), a
     * {@link CharSequence} as UTF-8, {@code null} as empty, anything else as its
     * {@code toString()} in UTF-8.
     */
    static byte[] payloadBytes(Object payload) {
        if (payload instanceof byte[] bytes) {
            return bytes;
        }
        if (payload == null) {
            return EMPTY;
        }
        return payload.toString().getBytes(StandardCharsets.UTF_8);
    }
}
