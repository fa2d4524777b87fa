package io.ringbus.server.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import io.ringbus.core.Broker;
import io.ringbus.core.Scope;
import io.ringbus.server.ServerConfig;

import java.nio.charset.StandardCharsets;

/**
 * The server's wire path without sockets: one publishing and {@code subscribers} subscribing
 * client connections, each the real pipeline ({@link InputFramer}, {@link NatsConnection}, its
 * handlers, {@link Outbound}) on Netty's {@code EmbeddedChannel}, all run by the calling thread.
 * {@link #publish} feeds the publisher a prepared read of PUBs and takes what the subscribers
 * were sent: parse, route, encode, and nothing else. For the wire-path benchmark
 * ({@code ringbus-bench}'s {@code WirePathBenchmark}) and the test that the path allocates
 * nothing; not for production use. Not thread-safe.
 */
public final class LoopbackPipeline implements AutoCloseable {
    private static final String SUBJECT = "wire.path";

    private final Broker broker;
    private final EmbeddedChannel publisher;
    private final EmbeddedChannel[] subscribers;
    private final ByteBuf read;
    private final int messages;
    private long bytesOut;

    /**
     * @param subscribers  client connections subscribed to the subject
     * @param payloadBytes each PUB's payload size
     * @param batch        PUBs in one read of the publisher's socket
     */
    public LoopbackPipeline(int subscribers, int payloadBytes, int batch) {
        this.broker = Broker.builder().name("loopback").defaultScope(Scope.PUBLIC).build();
        ServerContext server = new ServerContext(broker, ServerConfig.defaults());
        this.publisher = connection(server);
        this.subscribers = new EmbeddedChannel[subscribers];
        for (int i = 0; i < subscribers; i++) {
            this.subscribers[i] = connection(server);
            feed(this.subscribers[i], "CONNECT {\"verbose\":false}\r\nSUB " + SUBJECT + " 1\r\nPING\r\n");
        }
        feed(publisher, "CONNECT {\"verbose\":false}\r\nPING\r\n");
        drain();
        StringBuilder pubs = new StringBuilder();
        String payload = "x".repeat(payloadBytes);
        for (int i = 0; i < batch; i++) {
            pubs.append("PUB ").append(SUBJECT).append(' ').append(payloadBytes).append("\r\n").append(payload)
                    .append("\r\n");
        }
        byte[] bytes = pubs.toString().getBytes(StandardCharsets.US_ASCII);
        this.read = PooledByteBufAllocator.DEFAULT.directBuffer(bytes.length).writeBytes(bytes);
        this.messages = batch;
    }

    private static EmbeddedChannel connection(ServerContext server) {
        EmbeddedChannel channel = new EmbeddedChannel(false, false);
        NatsConnection.install(server, channel.pipeline());
        try {
            channel.register();
        } catch (Exception e) {
            throw new IllegalStateException("cannot register an embedded channel", e);
        }
        return channel;
    }

    private static void feed(EmbeddedChannel channel, String text) {
        channel.pipeline().fireChannelRead(channel.alloc().buffer().writeBytes(text.getBytes(StandardCharsets.US_ASCII)));
        channel.pipeline().fireChannelReadComplete();
        channel.runPendingTasks();
    }

    /**
     * One read of the publisher's socket: its PUBs parsed, routed and encoded for every
     * subscriber, whose output is taken and released.
     *
     * @return the PUBs in the read
     */
    public int publish() {
        read.readerIndex(0).retain(); // the framer takes the read and releases it once parsed
        publisher.pipeline().fireChannelRead(read);
        publisher.pipeline().fireChannelReadComplete();
        drain();
        return messages;
    }

    /** Runs the subscribers' pending drains and releases what they wrote. */
    private void drain() {
        publisher.runPendingTasks();
        takeOutput(publisher);
        for (EmbeddedChannel subscriber : subscribers) {
            subscriber.runPendingTasks();
            takeOutput(subscriber);
        }
    }

    private void takeOutput(EmbeddedChannel channel) {
        for (Object out; (out = channel.readOutbound()) != null; ) {
            ByteBuf buf = (ByteBuf) out;
            bytesOut += buf.readableBytes();
            buf.release();
        }
    }

    /** @return the bytes the connections were sent so far (INFO, PONGs and MSGs) */
    public long bytesOut() {
        return bytesOut;
    }

    @Override
    public void close() {
        publisher.finishAndReleaseAll();
        for (EmbeddedChannel subscriber : subscribers) {
            subscriber.finishAndReleaseAll();
        }
        read.release();
        broker.close();
    }
}
