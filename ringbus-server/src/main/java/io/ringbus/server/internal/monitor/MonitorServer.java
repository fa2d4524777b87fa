package io.ringbus.server.internal.monitor;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.flow.FlowControlHandler;
import io.netty.handler.timeout.ReadTimeoutHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.ringbus.server.internal.ServerContext;
import io.ringbus.server.monitor.MonitorSources;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * The HTTP monitoring port: one Netty event loop of its own ({@code ringbus-monitor}) that
 * accepts, answers every request and samples the throughput once a second, so that neither
 * monitoring traffic nor a slow scrape ever runs on the NATS I/O threads. Requests are bounded:
 * request line 4 KiB, headers 8 KiB, body 4 KiB (413 above); a connection idle for 60 s is closed.
 * A bcrypt credential is checked on the server's costly-check pool, never on this loop, and a
 * connection sends nothing more to the handler until it is answered.
 * With {@code monitorTls} it speaks HTTPS only, with the client port's TLS material.
 */
public final class MonitorServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(MonitorServer.class);
    private static final int MAX_INITIAL_LINE = 4_096;
    private static final int MAX_HEADER_BYTES = 8_192;
    private static final int MAX_BODY_BYTES = 4_096;
    private static final int IDLE_SECONDS = 60;
    private static final String DASHBOARD = "dashboard.html";

    private final EventLoopGroup loop;
    private final Channel serverChannel;
    private final PrometheusMeterRegistry ownRegistry;
    private final int port;

    private MonitorServer(ServerContext server, MonitorSources sources) {
        PrometheusMeterRegistry given = sources.meterRegistry().orElse(null);
        this.ownRegistry = given == null ? MonitorSources.jvmMeterRegistry() : null;
        MonitorView view = new MonitorView(server, given != null ? given : ownRegistry,
                sources.blockedHandlers().orElse(null), sources.outboxBacklog().orElse(null),
                sources.storage().orElse(null), sources.streams());
        MonitorHandler handler = new MonitorHandler(view, dashboard());
        this.loop = new NioEventLoopGroup(1, new DefaultThreadFactory("ringbus-monitor", true));
        boolean https = server.config().monitorTls();
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(loop)
                .channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel channel) {
                        if (https) {
                            channel.pipeline().addLast(server.newTlsHandler(channel.alloc()));
                        }
                        channel.pipeline()
                                .addLast(new ReadTimeoutHandler(IDLE_SECONDS))
                                .addLast(new HttpServerCodec(MAX_INITIAL_LINE, MAX_HEADER_BYTES, MAX_BODY_BYTES))
                                .addLast(new HttpObjectAggregator(MAX_BODY_BYTES))
                                // Holds requests already read while the handler waits for a credential check.
                                .addLast(new FlowControlHandler())
                                .addLast(handler);
                    }
                });
        String host = server.config().monitorHost();
        int requested = server.config().monitorPort();
        try {
            this.serverChannel = bootstrap.bind(host, requested).syncUninterruptibly().channel();
        } catch (Exception e) {
            shutdown();
            String why = e instanceof BindException ? "address in use or not available" : e.toString();
            throw new UncheckedIOException(new IOException("cannot listen for monitoring on " + host + ":" + requested
                    + " (" + why + "): choose another port with --http-port, or turn monitoring off with "
                    + "--no-monitor", e));
        }
        this.port = ((InetSocketAddress) serverChannel.localAddress()).getPort();
        view.httpPort = https ? 0 : port;
        view.httpsPort = https ? port : 0;
        loop.scheduleAtFixedRate(() -> {
            try {
                view.sample();
            } catch (RuntimeException e) {
                // A failed sample must not cancel the schedule: log and keep sampling.
                LOG.warn("monitor: throughput sample failed", e);
            }
        }, 0, 1, TimeUnit.SECONDS);
    }

    /**
     * Binds the monitoring port and starts serving.
     *
     * @param server  the running server to show
     * @param sources meter registry, watchdog log and outbox source (each optional)
     * @return the running monitor
     * @throws UncheckedIOException naming the address when it cannot be bound
     */
    public static MonitorServer start(ServerContext server, MonitorSources sources) {
        return new MonitorServer(server, sources);
    }

    /** @return the port actually bound */
    public int port() {
        return port;
    }

    /** Closes the port and stops the loop; closes the meter registry only if it created it. */
    @Override
    public void close() {
        serverChannel.close().syncUninterruptibly();
        shutdown();
    }

    private void shutdown() {
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(2, TimeUnit.SECONDS);
        if (ownRegistry != null) {
            ownRegistry.close();
        }
    }

    private static byte[] dashboard() {
        try (InputStream in = MonitorServer.class.getResourceAsStream(DASHBOARD)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + DASHBOARD + " next to " + MonitorServer.class);
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the dashboard page", e);
        }
    }
}
