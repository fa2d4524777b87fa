package io.ringbus.server.internal;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.GlobalEventExecutor;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * The Netty side of the server: epoll where available (NIO otherwise), one acceptor thread that
 * only accepts, and {@code ioThreads} event loops that run every connection; no thread per
 * connection and no blocking call on an event loop.
 */
public final class NettyServer {
    /** Netty stops handing us writes above this many queued bytes per connection. */
    private static final int WRITE_HIGH_WATER = 1 << 20;
    private static final int WRITE_LOW_WATER = 256 << 10;

    private final ServerContext context;
    private final EventLoopGroup acceptor;
    private final EventLoopGroup workers;
    private final ChannelGroup channels = new DefaultChannelGroup("ringbus-clients", GlobalEventExecutor.INSTANCE);
    private final Channel serverChannel;

    /**
     * Binds and starts serving.
     *
     * @throws UncheckedIOException naming the address when it cannot be bound (e.g. port taken)
     */
    public NettyServer(ServerContext context) {
        this.context = context;
        boolean epoll = Epoll.isAvailable();
        int threads = context.config.ioThreads();
        this.acceptor = epoll ? new EpollEventLoopGroup(1, new DefaultThreadFactory("ringbus-accept", true))
                : new NioEventLoopGroup(1, new DefaultThreadFactory("ringbus-accept", true));
        this.workers = epoll ? new EpollEventLoopGroup(threads, new DefaultThreadFactory("ringbus-io", true))
                : new NioEventLoopGroup(threads, new DefaultThreadFactory("ringbus-io", true));
        Class<? extends ServerChannel> channelType = epoll ? EpollServerSocketChannel.class
                : NioServerSocketChannel.class;
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(acceptor, workers)
                .channel(channelType)
                .option(ChannelOption.SO_BACKLOG, 4_096)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK,
                        new WriteBufferWaterMark(WRITE_LOW_WATER, WRITE_HIGH_WATER))
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel channel) {
                        channels.add(channel);
                        if (context.tls != null) {
                            context.tls.installFirst(channel);
                        }
                        NatsConnection.install(context, channel.pipeline());
                    }
                });
        String host = context.config.host();
        int port = context.config.port();
        try {
            this.serverChannel = bootstrap.bind(host, port).syncUninterruptibly().channel();
        } catch (Exception e) {
            shutdownGroups();
            String why = e instanceof BindException ? "address in use or not available" : e.toString();
            throw new UncheckedIOException(new IOException("cannot listen on " + host + ":" + port + " (" + why
                    + "): is another server using port " + port + "? Choose another with --port", e));
        }
        context.boundPort(((InetSocketAddress) serverChannel.localAddress()).getPort());
    }

    /** @return the port actually bound */
    public int port() {
        return context.boundPort;
    }

    /**
     * Stops accepting, lets each connection flush what it has, closes them and stops the threads.
     *
     * @param graceMillis how long to wait for connections to close
     */
    public void close(long graceMillis) {
        stopAccepting();
        for (Channel channel : channels) {
            // Runs after the drain tasks already queued on that loop; closes once written.
            channel.eventLoop().execute(() -> channel.writeAndFlush(Unpooled.EMPTY_BUFFER)
                    .addListener(ChannelFutureListener.CLOSE));
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(graceMillis);
        for (Channel channel : channels) {
            long left = deadline - System.nanoTime();
            if (left <= 0 || !channel.closeFuture().awaitUninterruptibly(left, TimeUnit.NANOSECONDS)) {
                channel.close();
            }
        }
        shutdownGroups();
    }

    /** Closes the listening socket; connected clients stay. */
    public void stopAccepting() {
        serverChannel.close().syncUninterruptibly();
    }

    private void shutdownGroups() {
        if (context.tls != null) {
            context.tls.close();
        }
        acceptor.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(2, TimeUnit.SECONDS);
        workers.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(2, TimeUnit.SECONDS);
    }
}
