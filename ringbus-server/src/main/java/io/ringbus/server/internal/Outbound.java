package io.ringbus.server.internal;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.ringbus.core.Headers;
import io.ringbus.core.Message;
import org.jctools.queues.atomic.MpscUnboundedAtomicArrayQueue;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One connection's outbound path for MSG/HMSG. Publishing threads (other connections' event
 * loops, in-process publishers) enqueue deliveries and never wait; the connection's own Netty
 * event loop drains them in batches into pooled buffers while the channel is writable. Netty's
 * own buffer is bounded by the channel's write watermark, since draining stops while the
 * channel is not writable.
 *
 * <p>Pending bytes (queued, not yet handed to Netty) are bounded. Past half of
 * {@code maxPending} the outbound is <em>stalling</em>: a network publisher that delivers to it
 * stops reading its socket until the stall ends (as nats-server stalls producers, but no thread
 * waits: see {@link NatsConnection#stalledBy}). The stall ends when the client reads enough, or
 * when it has lasted {@code writeDeadline}: then the client is a slow consumer, cut off alone.
 * Past {@code maxPending} it is a slow consumer at once. A subscriber that reads at full speed
 * slows its publishers at most briefly and is never dropped; one that does not read affects
 * only itself and, for at most the write deadline, the publishers that feed it.
 *
 * <pre>
 * MSG  &lt;subject&gt; &lt;sid&gt; [reply-to] &lt;#bytes&gt;\r\n&lt;payload&gt;\r\n
 * HMSG &lt;subject&gt; &lt;sid&gt; [reply-to] &lt;#header bytes&gt; &lt;#total bytes&gt;\r\n&lt;headers&gt;&lt;payload&gt;\r\n
 * </pre>
 */
final class Outbound {
    /** Bytes per buffer handed to Netty before starting another. */
    private static final int BATCH_BYTES = 64 * 1024;
    /** Control-line overhead counted per message on top of subject, reply, headers and payload. */
    private static final int FRAME_OVERHEAD = 48;
    private static final short CRLF_SHORT = ('\r' << 8) | '\n';
    private static final byte[] EMPTY = new byte[0];

    private final Channel channel;
    private final ServerCounters counters;
    private final ConnectionStats stats;
    private final long maxPending;
    private final Runnable onSlowConsumer;
    private final long stallBytes;
    private final long writeDeadlineNanos;
    private final MpscUnboundedAtomicArrayQueue<Frame> queue = new MpscUnboundedAtomicArrayQueue<>(256);
    private final AtomicLong pending = new AtomicLong();
    private final AtomicBoolean scheduled = new AtomicBoolean();
    /** When pending bytes went past the stall mark (System.nanoTime, never 0), or 0 when below it. */
    private final AtomicLong stallingSince = new AtomicLong();
    private final AtomicBoolean slow = new AtomicBoolean();
    private final Runnable drain = this::drain;
    private final Runnable checkStall = this::checkStall;
    private volatile boolean closed;
    /** Whether the client announced {@code headers}: if not, it gets MSG with the payload only, as from nats-server. */
    private volatile boolean headersSupported;
    // Event loop only (drain): the control line being encoded, the last subject's bytes, the
    // last payload size's digits.
    private byte[] line = new byte[256];
    private String lastSubject;
    private byte[] lastSubjectBytes;
    private final byte[] sizeDigits = new byte[10];
    private int sizeDigitsLength;
    private int lastSize = -1;

    private static final byte[] PONG = {'P', 'O', 'N', 'G', '\r', '\n'};
    /** Not a message: a PONG, queued behind the deliveries before it (see {@link #enqueueControl}). */
    private static final Frame PONG_FRAME = new Frame(null, null, null, null, PONG, 0);

    private record Frame(String subject, byte[] sid, String replyTo, byte[] headers, byte[] payload, int size) {
    }

    Outbound(Channel channel, ServerCounters counters, ConnectionStats stats, long maxPending,
             long writeDeadlineNanos, Runnable onSlowConsumer) {
        this.channel = channel;
        this.counters = counters;
        this.stats = stats;
        this.maxPending = maxPending;
        this.stallBytes = maxPending / 2;
        this.writeDeadlineNanos = writeDeadlineNanos;
        this.onSlowConsumer = onSlowConsumer;
    }

    /** @param supported whether the client announced {@code headers} in CONNECT */
    void headersSupported(boolean supported) {
        this.headersSupported = supported;
    }

    /**
     * Queues a delivery; called on the publishing thread (a PUBLISHER subscription's handler).
     * Never waits: past the stall mark it tells the publishing connection, if any, to stop
     * reading (see the class comment).
     *
     * @param sid the subscription id, as the client sent it
     */
    void enqueue(Message message, byte[] sid) {
        if (closed) {
            return;
        }
        byte[] payload = payloadBytes(message.payload());
        byte[] headerBlock = headersSupported ? headerBlock(message.headers()) : null;
        String replyTo = message.replyTo();
        int size = FRAME_OVERHEAD + message.subject().length() + (replyTo == null ? 0 : replyTo.length())
                + payload.length + (headerBlock == null ? 0 : headerBlock.length);
        long queued = pending.addAndGet(size);
        if (queued > maxPending) {
            slowConsumer();
            return;
        }
        queue.offer(new Frame(message.subject(), sid, replyTo, headerBlock, payload, size));
        if (!scheduled.get() && scheduled.compareAndSet(false, true)) {
            NatsConnection publisher = NatsConnection.currentPublisher();
            if (publisher != null) {
                // Woken once at the end of the publisher's read, not once per message: a wake-up
                // of another event loop is a system call (as nats-server flushes per read loop).
                publisher.flushLater(this);
            } else {
                channel.eventLoop().execute(drain);
            }
        }
        if (queued > stallBytes) {
            stallSlowPath();
        }
    }

    /** The block to send: as received when the headers came over NATS, else encoded; null for none. */
    private static byte[] headerBlock(Headers headers) {
        byte[] block = headers.natsBlock();
        if (block != null) {
            return block;
        }
        return headers.isEmpty() ? null : encodeHeaders(headers, null);
    }

    /** Publishing thread: past the stall mark. Starts the write-deadline clock; slows the publisher. */
    private void stallSlowPath() {
        long now = System.nanoTime() | 1; // never 0, which means "not stalling"
        if (stallingSince.get() == 0 && stallingSince.compareAndSet(0, now)) {
            counters.outboundStalls.increment();
            channel.eventLoop().schedule(checkStall, writeDeadlineNanos, TimeUnit.NANOSECONDS);
        }
        NatsConnection publisher = NatsConnection.currentPublisher();
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
        slowConsumer();
    }

    /** @return whether publishers to this connection should wait (it is past the stall mark and not cut off) */
    boolean isStalling() {
        return stallingSince.get() != 0 && !closed;
    }

    /** Any thread: cuts the client off once; the queue is emptied on its event loop. */
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
        enqueueControl(PONG_FRAME);
    }

    /**
     * Event loop: queues a protocol reply ({@code +OK}, {@code -ERR}, a 503 status message)
     * behind the deliveries queued so far, so that the client reads answers and messages in
     * the order nats-server writes them (a PUB's own delivery before the next op's {@code +OK}).
     *
     * @param bytes the whole reply, CRLF included
     */
    void enqueueControl(byte[] bytes) {
        enqueueControl(new Frame(null, null, null, null, bytes, 0));
    }

    private void enqueueControl(Frame frame) {
        if (closed) {
            return;
        }
        queue.offer(frame);
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
        if (!queue.isEmpty()) {
            drain();
        }
    }

    /** Event loop: stops queueing and forgets what is queued; the connection is closing. */
    void close() {
        closed = true;
        queue.clear();
        pending.set(0);
    }

    /** @return bytes queued and not yet written to Netty */
    long pending() {
        return pending.get();
    }

    private void drain() {
        scheduled.set(false);
        if (!channel.isActive() || closed) {
            queue.clear();
            return;
        }
        ByteBuf buffer = null;
        long bytes = 0;
        long frameBytes = 0;
        long messages = 0;
        long payloadBytes = 0;
        long controlBytes = 0;
        while (channel.isWritable()) {
            Frame frame = queue.poll();
            if (frame == null) {
                break;
            }
            if (buffer == null) {
                buffer = channel.alloc().ioBuffer(BATCH_BYTES);
            }
            if (frame.subject == null) {
                buffer.writeBytes(frame.payload);
                controlBytes += frame.payload.length; // a protocol reply: not in bytesOut, which counts MSG/HMSG
                continue;
            }
            encode(frame, buffer);
            frameBytes += frame.size;
            payloadBytes += frame.payload.length + (frame.headers == null ? 0 : frame.headers.length);
            messages++;
            if (buffer.readableBytes() >= BATCH_BYTES) {
                bytes += buffer.readableBytes();
                channel.write(buffer, channel.voidPromise());
                buffer = null;
                // Handed to Netty: a stalled broker thread may go on.
                pending.addAndGet(-frameBytes);
                frameBytes = 0;
            }
        }
        if (buffer != null) {
            bytes += buffer.readableBytes();
            channel.write(buffer, channel.voidPromise());
        }
        if (frameBytes > 0) {
            pending.addAndGet(-frameBytes);
        }
        if (stallingSince.get() != 0 && pending.get() <= stallBytes) {
            stallingSince.set(0);
        }
        if (messages > 0) {
            counters.messagesOut.add(messages);
            counters.payloadBytesOut.add(payloadBytes);
            stats.sent(messages, payloadBytes);
            stats.active(System.currentTimeMillis());
        }
        if (bytes > 0) {
            if (bytes > controlBytes) {
                counters.bytesOut.add(bytes - controlBytes);
            }
            channel.flush();
        }
    }

    /**
     * Event loop: writes one MSG/HMSG. The control line is built in {@link #line} and written with
     * one bulk copy, then the payload: three writes per message instead of one per field.
     */
    private void encode(Frame frame, ByteBuf out) {
        byte[] subject = subjectBytes(frame.subject);
        byte[] sid = frame.sid;
        String replyTo = frame.replyTo;
        byte[] headers = frame.headers;
        byte[] payload = frame.payload;
        // "HMSG " + subject + ' ' + sid + ' ' + [reply + ' '] + 10 digits + ' ' + 10 digits + CRLF;
        // UTF-8 takes at most three bytes per char.
        int most = 5 + subject.length + 1 + sid.length + 1
                + (replyTo == null ? 0 : SubjectCodec.maxEncodedLength(replyTo) + 1) + 24;
        byte[] l = line;
        if (l.length < most) {
            l = line = new byte[Math.max(most, l.length * 2)];
        }
        int n;
        if (headers == null) {
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
        if (headers != null) {
            n = putDecimal(l, n, headers.length);
            l[n++] = ' ';
            n = putDecimal(l, n, headers.length + payload.length);
        } else {
            n = putSize(l, n, payload.length);
        }
        l[n++] = '\r';
        l[n++] = '\n';
        out.writeBytes(l, 0, n);
        if (headers != null) {
            out.writeBytes(headers);
        }
        out.writeBytes(payload);
        out.writeShort(CRLF_SHORT);
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

    /**
     * Encodes a NATS header block: {@code NATS/1.0[ status]\r\n(Name: value\r\n)*\r\n}.
     *
     * @param status a status line suffix such as {@code "503"}, or {@code null}
     */
    static byte[] encodeHeaders(Headers headers, String status) {
        StringBuilder block = new StringBuilder(64).append("NATS/1.0");
        if (status != null) {
            block.append(' ').append(status);
        }
        block.append("\r\n");
        for (String name : headers.names()) {
            for (String value : headers.all(name)) {
                block.append(name).append(": ").append(value).append("\r\n");
            }
        }
        return block.append("\r\n").toString().getBytes(StandardCharsets.UTF_8);
    }
}
