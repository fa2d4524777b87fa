package io.ringbus.server.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.ringbus.core.Backoff;
import io.ringbus.server.ServerConfig;

import java.util.concurrent.TimeUnit;

/**
 * The first handler of a client connection (after TLS): keeps the input that does not yet make
 * a whole operation, within the server's input budget, runs {@link NatsParser} over it, and hands
 * each operation to the connection's {@link ProtocolHandler}. It also decides when the socket is
 * read: reading stops while an operation is refused for now (the broker is full, a subscriber
 * stalls: {@link #pause()}), while the client does not read our replies, and while an
 * authentication is checked off the loop ({@link #holdForAuthentication}). Data already read is
 * kept meanwhile; TCP flow control slows the sender. Nothing accepted is dropped.
 *
 * <p>Input budget: incomplete input beyond {@link #SMALL_INPUT} per connection counts against the
 * server-wide {@link ServerConfig#maxInputBuffer()}. Past it, one connection at a time (the
 * overdraft holder) may go on buffering a large message; the others wait (see
 * {@link #mustWaitForInputBudget}).
 *
 * <p>Event loop of the connection only, but for {@link #lastInputNanos}.
 */
final class InputFramer extends ChannelInboundHandlerAdapter {
    /** Read pauses while the broker is full or a subscriber stalls: 20 us, doubling to 2 ms. */
    private static final Backoff PAUSE_NANOS = new Backoff(20_000, 2_000_000);
    /** Read pauses while waiting for the input budget, up to 50 ms: many connections may wait at once. */
    private static final Backoff INPUT_PAUSE_NANOS = new Backoff(PAUSE_NANOS.initial(), 50_000_000);
    /** Incomplete input a connection may always hold; above it, it waits while the input budget is spent. */
    private static final int SMALL_INPUT = 64 << 10;
    /** How long the holder of the input overdraft may receive nothing before a waiting connection takes it. */
    private static final long OVERDRAFT_IDLE_NANOS = 50_000_000;
    /** Above this, incomplete input is kept on the heap (bounded by the budget), not in direct memory. */
    private static final int HEAP_INPUT = 64 << 10;

    private final NatsSession session;
    private final ServerContext server;
    private final NatsParser parser;
    private final ProtocolHandler operations;
    /** Runs at the end of each read: wakes the subscribers the read's publishes fed, flushes replies. */
    private final Runnable readDone;
    /** Runs when reading goes on after a stop: PONGs unread meanwhile are not held against the client. */
    private final Runnable readingResumed;
    private final Runnable resume = this::resume;
    private ByteBuf cumulation;
    /** The capacity of {@link #cumulation} counted in the server's input budget. */
    private long inputAccounted;
    /** When the client last sent bytes; read by other connections deciding on the input overdraft. */
    private volatile long lastInputNanos = System.nanoTime();
    /** Reading stopped until a refused operation is retried. */
    private boolean paused;
    /** Reading stopped because our own writes (PONG, +OK, -ERR) are not being read by the client. */
    private boolean outputBlocked;
    /** Reading stopped until an authentication is decided off the loop. */
    private boolean authenticating;
    private long retryNanos = PAUSE_NANOS.initial();

    InputFramer(NatsSession session, ProtocolHandler operations, Runnable readDone, Runnable readingResumed) {
        this.session = session;
        this.server = session.server;
        this.parser = new NatsParser(ServerConfig.MAX_CONTROL_LINE, server.config.maxPayload());
        this.operations = operations;
        this.readDone = readDone;
        this.readingResumed = readingResumed;
        session.onClose(parser::close);
    }

    /** @return whether the socket is being read now (its PONGs can arrive) */
    boolean reading() {
        return !paused && !outputBlocked && !authenticating;
    }

    /** Drops the incomplete input and its charge; the connection is gone. */
    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (cumulation != null) {
            cumulation.release();
            cumulation = null;
        }
        accountInput();
        ctx.fireChannelInactive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf in = (ByteBuf) msg;
        if (session.closing) {
            in.release();
            return;
        }
        server.counters.bytesIn.add(in.readableBytes());
        lastInputNanos = System.nanoTime();
        session.stats.active(System.currentTimeMillis());
        cumulate(ctx.alloc(), in);
        if (!paused && !authenticating) {
            parseInput();
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        readDone.run();
        ctx.fireChannelReadComplete();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (ctx.channel().isWritable() && session.outbound != null) {
            // First what waits for the client, then the input: replies the parse below makes
            // queue behind the deliveries already pending, as they were produced.
            session.outbound.onWritable();
        }
        if (ctx.channel().isWritable() && outputBlocked && !session.closing) {
            outputBlocked = false;
            readingResumed.run();
            if (!paused && !authenticating) {
                ctx.channel().config().setAutoRead(true);
                parseInput();
            }
        }
        ctx.fireChannelWritabilityChanged();
    }

    /**
     * Appends what was read to the incomplete input. Grows by a quarter of what has arrived, never
     * to a size a control line announces: a client that sends 1 MiB minus one byte holds about
     * 1 MiB, not more. Large incomplete input lives on the heap.
     */
    private void cumulate(ByteBufAllocator alloc, ByteBuf in) {
        if (cumulation == null) {
            cumulation = in;
        } else if (cumulation.refCnt() == 1 && !cumulation.isReadOnly()
                && cumulation.writableBytes() >= in.readableBytes()) {
            cumulation.writeBytes(in);
            in.release();
        } else {
            int needed = cumulation.readableBytes() + in.readableBytes();
            int capacity = needed + Math.max(needed >> 2, 4_096);
            ByteBuf grown = needed > HEAP_INPUT ? alloc.heapBuffer(capacity) : alloc.ioBuffer(capacity);
            grown.writeBytes(cumulation).writeBytes(in);
            cumulation.release();
            in.release();
            cumulation = grown;
        }
        accountInput();
    }

    /** Keeps the server-wide count of buffered input in step with this connection's buffer. */
    private void accountInput() {
        long capacity = cumulation == null ? 0 : cumulation.capacity();
        if (capacity != inputAccounted) {
            server.inputBudget.add(capacity - inputAccounted);
            inputAccounted = capacity;
        }
        if ((cumulation == null || cumulation.readableBytes() <= SMALL_INPUT) && server.inputOverdraft.get() == this) {
            server.inputOverdraft.compareAndSet(this, null);
        }
    }

    /**
     * Whether this connection must wait before buffering more of a large incomplete message:
     * the server-wide input budget is spent and another connection holds the overdraft. A
     * holder whose client has sent nothing for {@link #OVERDRAFT_IDLE_NANOS} loses it to a
     * waiting connection (a client that holds back its last byte cannot stop everyone else's
     * large messages), while less than twice the budget is buffered: the hard bound.
     */
    private boolean mustWaitForInputBudget() {
        long buffered = server.inputBudget.used();
        long budget = server.inputBudget.limit();
        if (cumulation == null || cumulation.readableBytes() <= SMALL_INPUT || session.closing || paused
                || buffered <= budget) {
            return false;
        }
        Object holder = server.inputOverdraft.get();
        if (holder == this) {
            return false;
        }
        if (holder == null) {
            return !server.inputOverdraft.compareAndSet(null, this);
        }
        boolean idle = holder instanceof InputFramer h && System.nanoTime() - h.lastInputNanos > OVERDRAFT_IDLE_NANOS;
        return !(idle && buffered < 2 * budget && server.inputOverdraft.compareAndSet(holder, this));
    }

    /** Parses what is buffered, as far as the operations are accepted; then decides on reading. */
    void parseInput() {
        if (cumulation != null && !outputBlocked) {
            parser.parse(cumulation, operations);
            if (cumulation != null) {
                if (!cumulation.isReadable()) {
                    cumulation.release();
                    cumulation = null;
                } else {
                    cumulation.discardSomeReadBytes();
                }
            }
            accountInput();
        }
        if (mustWaitForInputBudget()) {
            // Many clients hold large incomplete messages: this one waits until others complete
            // theirs (its data is kept; TCP slows it meanwhile).
            pause(INPUT_PAUSE_NANOS);
        }
        readDone.run();
        if (!session.channel.isWritable() && !session.closing && !outputBlocked) {
            // The client does not read what we answer (PONG, +OK, -ERR): stop reading its
            // input until it does, so that those answers cannot pile up without bound.
            outputBlocked = true;
            session.channel.config().setAutoRead(false);
        }
    }

    /** An operation was refused for now (the broker is full, a subscriber stalls): stop reading, retry later. */
    void pause() {
        pause(PAUSE_NANOS);
    }

    /** Stops reading and retries after {@link #retryNanos}, which grows by {@code backoff} (up to its max). */
    private void pause(Backoff backoff) {
        if (!paused) {
            paused = true;
            session.channel.config().setAutoRead(false);
            server.counters.publishPauses.increment();
        }
        session.channel.eventLoop().schedule(resume, retryNanos, TimeUnit.NANOSECONDS);
        retryNanos = backoff.next(retryNanos);
    }

    private void resume() {
        if (session.closing) {
            return;
        }
        paused = false;
        readingResumed.run();
        parseInput();
        if (reading()) {
            retryNanos = PAUSE_NANOS.initial();
            session.channel.config().setAutoRead(true);
        }
    }

    /**
     * Stops reading until an authentication answered off the loop (a plug-in, a bcrypt check);
     * then the same CONNECT is parsed again, on this connection's loop, by {@link #authenticated}.
     */
    void holdForAuthentication() {
        authenticating = true;
        session.channel.config().setAutoRead(false);
    }

    /** Event loop: the authentication awaited is decided; reading goes on with the same CONNECT. */
    void authenticated() {
        authenticating = false;
        if (session.closing) {
            return;
        }
        parseInput();
        if (reading() && !session.closing) {
            session.channel.config().setAutoRead(true);
        }
    }
}
