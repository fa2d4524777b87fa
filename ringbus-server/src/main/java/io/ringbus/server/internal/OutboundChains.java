package io.ringbus.server.internal;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.ringbus.core.Message;
import io.ringbus.core.memory.ByteBudget;

import java.util.ArrayDeque;

/**
 * The buffers encoded for one client and not yet handed to Netty, one chain per
 * {@linkplain Message#priority() priority}: in each, the full buffers in order, then the one being
 * filled. Replies and default-priority messages use the default chain, always there; another is
 * made when its first message comes. Taking hands over the highest priority first, in order
 * within a priority, except that while several chains are in use every
 * {@link Message#PRIORITY_SHARE}-th buffer comes from the lowest priority waiting (no starvation).
 *
 * <p>Threading: guarded by the owning {@link Outbound}'s lock. The capacity of every buffer is
 * counted in the server's output budget ({@code serverBudget}) while it is here.
 */
final class OutboundChains {
    /** Largest size a pending buffer grows to; a larger message gets a buffer of its own size. */
    private static final int CHUNK_BYTES = 64 * 1024;
    /** Size a pending buffer starts at. */
    private static final int INITIAL_BUFFER_BYTES = 512;
    private static final int DEFAULT_ONLY = 1 << Message.DEFAULT_PRIORITY;

    private final Channel channel;
    private final ByteBudget serverBudget;
    @SuppressWarnings({"unchecked", "rawtypes"}) // no generic array creation in Java
    private final ArrayDeque<ByteBuf>[] full = new ArrayDeque[Message.MAX_PRIORITY + 1];
    private final ByteBuf[] current = new ByteBuf[Message.MAX_PRIORITY + 1];
    /** A bit per priority whose chain exists. */
    private int chains = DEFAULT_ONLY;
    /** Buffers taken while several chains were in use. */
    private int handed;
    /**
     * Size the next buffer starts at: what the last buffer handed over held, rounded up to a power
     * of two (at least {@link #INITIAL_BUFFER_BYTES}, at most {@link #CHUNK_BYTES}). A busy client's
     * buffer starts at its usual size instead of doubling from 512 bytes, copying itself at each
     * step, on every drain; an idle one's comes back down with the next small drain.
     */
    private int nextBufferBytes = INITIAL_BUFFER_BYTES;

    OutboundChains(Channel channel, ByteBudget serverBudget) {
        this.channel = channel;
        this.serverBudget = serverBudget;
        full[Message.DEFAULT_PRIORITY] = new ArrayDeque<>();
    }

    /**
     * The buffer to append {@code size} bytes to at {@code priority}. A buffer starts small and
     * grows (doubling) up to {@link #CHUNK_BYTES}, then a new one starts: what waits for a client
     * takes memory in proportion to its bytes, however often drains hand over nearly empty buffers.
     */
    ByteBuf writable(int priority, int size) {
        ByteBuf buffer = current[priority];
        if (buffer != null && buffer.writableBytes() < size) {
            if (buffer.readableBytes() + size <= CHUNK_BYTES) {
                int before = buffer.capacity();
                buffer.ensureWritable(size);
                serverBudget.add(buffer.capacity() - before);
                return buffer;
            }
            full[priority].add(buffer);
            buffer = null;
        }
        if (buffer == null) {
            if (full[priority] == null) {
                full[priority] = new ArrayDeque<>();
                chains |= 1 << priority;
            }
            // On the heap: what waits for a slow client is bounded by max_pending and counted in
            // the heap, not in direct memory (Netty copies to a direct buffer as it writes).
            buffer = current[priority] = channel.alloc().heapBuffer(Math.max(nextBufferBytes, size));
            serverBudget.add(buffer.capacity());
        }
        return buffer;
    }

    /**
     * Moves about {@code limit} bytes of buffers to {@code taken}, in the order to hand them over.
     *
     * @return the bytes moved
     */
    long takeInto(ArrayDeque<ByteBuf> taken, long limit) {
        long moved = 0;
        while (moved < limit) {
            int p = next();
            if (p < 0) {
                break;
            }
            ByteBuf buffer = full[p].poll();
            if (buffer == null) {
                buffer = current[p];
                current[p] = null;
            }
            taken.add(buffer);
            int held = buffer.readableBytes();
            moved += held;
            nextBufferBytes = held <= INITIAL_BUFFER_BYTES ? INITIAL_BUFFER_BYTES
                    : Math.min(CHUNK_BYTES, Integer.highestOneBit(held - 1) << 1);
        }
        return moved;
    }

    /** Releases every buffer. @return their capacity (to take off the server's budget) */
    long releaseAll() {
        long freed = 0;
        for (int p = 0; p <= Message.MAX_PRIORITY; p++) {
            if (full[p] != null) {
                for (ByteBuf buffer : full[p]) {
                    freed += buffer.capacity();
                    buffer.release();
                }
                full[p].clear();
            }
            if (current[p] != null) {
                freed += current[p].capacity();
                current[p].release();
                current[p] = null;
            }
        }
        return freed;
    }

    /** @return the chain to take the next buffer from, or -1 when nothing is pending */
    private int next() {
        if (chains == DEFAULT_ONLY) {
            return hasPending(Message.DEFAULT_PRIORITY) ? Message.DEFAULT_PRIORITY : -1;
        }
        if (++handed % Message.PRIORITY_SHARE == 0) {
            for (int p = 0; p <= Message.MAX_PRIORITY; p++) {
                if (hasPending(p)) {
                    return p;
                }
            }
            return -1;
        }
        for (int p = Message.MAX_PRIORITY; p >= 0; p--) {
            if (hasPending(p)) {
                return p;
            }
        }
        return -1;
    }

    private boolean hasPending(int p) {
        ArrayDeque<ByteBuf> chain = full[p];
        return chain != null && (!chain.isEmpty() || current[p] != null && current[p].isReadable());
    }
}
