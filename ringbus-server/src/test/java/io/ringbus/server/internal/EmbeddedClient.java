package io.ringbus.server.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Test fixture: one client connection, the real pipeline ({@link NatsConnection#install}) on an
 * {@code EmbeddedChannel} whose clock is frozen: {@link #send} is one read of the socket,
 * {@link #output} what the server wrote since the last call, {@link #advance} moves the
 * connection's clock (its timers run). Text is ISO-8859-1, one char per byte, so that
 * comparisons are byte-exact.
 */
final class EmbeddedClient implements AutoCloseable {
    final EmbeddedChannel channel;

    EmbeddedClient(ServerContext server) {
        channel = new EmbeddedChannel(false, false);
        channel.freezeTime();
        NatsConnection.install(server, channel.pipeline());
        try {
            channel.register();
        } catch (Exception e) {
            throw new IllegalStateException("cannot register an embedded channel", e);
        }
    }

    /** One read of the socket holding {@code text}, then the connection's pending tasks. */
    EmbeddedClient send(String text) {
        return send(Unpooled.copiedBuffer(text, StandardCharsets.ISO_8859_1));
    }

    /** One read of the socket holding {@code bytes} (taken by the pipeline), then the pending tasks. */
    EmbeddedClient send(ByteBuf bytes) {
        channel.pipeline().fireChannelRead(bytes);
        channel.pipeline().fireChannelReadComplete();
        channel.runPendingTasks();
        return this;
    }

    /** @return what the server wrote to this client since the last call, once its pending tasks ran */
    String output() {
        channel.runPendingTasks();
        StringBuilder text = new StringBuilder();
        for (Object out; (out = channel.readOutbound()) != null; ) {
            ByteBuf buf = (ByteBuf) out;
            text.append(buf.toString(StandardCharsets.ISO_8859_1));
            buf.release();
        }
        return text.toString();
    }

    /** Moves this connection's clock on by {@code time} and runs what became due. */
    EmbeddedClient advance(Duration time) {
        channel.advanceTimeBy(time.toNanos(), TimeUnit.NANOSECONDS);
        channel.runPendingTasks();
        return this;
    }

    /** @return whether the server reads this client's socket ({@code autoRead}) */
    boolean reading() {
        return channel.config().isAutoRead();
    }

    /** @return whether the connection is still open */
    boolean isOpen() {
        return channel.isOpen();
    }

    /** Sets whether the socket takes more output (the client reads it, or not), as Netty tells the pipeline. */
    void writable(boolean writable) {
        channel.unsafe().outboundBuffer().setUserDefinedWritability(1, writable);
        channel.runPendingTasks();
    }

    /** Closes the connection (the client hung up) and releases what it left unread. */
    @Override
    public void close() {
        channel.finishAndReleaseAll();
    }
}
