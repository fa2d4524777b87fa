package io.ringbus.spring;

import io.ringbus.core.Broker;
import io.ringbus.server.RingbusServer;
import io.ringbus.server.ServerConfig;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.SmartLifecycle;

/**
 * The embedded ringbus-server ({@code ringbus.server.enabled=true}) as a lifecycle bean: it binds
 * its port when the context starts, after the listeners subscribed
 * ({@link RingbusAutoConfiguration#SERVER_PHASE}); on shutdown it first stops accepting
 * connections, then, once the broker has drained, closes the connections (flushing what was
 * delivered to them) when the bean is destroyed. Once bound it logs one INFO line naming the
 * address NATS clients connect to (and the monitoring URL when monitoring is on), so that a port
 * of 0 or a changed property is visible in the start-up log.
 */
public class EmbeddedRingbusServer implements SmartLifecycle, DisposableBean {
    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedRingbusServer.class);

    private final Broker broker;
    private final ServerConfig config;
    private final ReentrantLock lock = new ReentrantLock();
    private RingbusServer server;
    private volatile boolean running;

    /**
     * Creates the bean; nothing is bound before {@link #start()}.
     *
     * @param broker the broker to serve
     * @param config the server's configuration
     */
    public EmbeddedRingbusServer(Broker broker, ServerConfig config) {
        this.broker = broker;
        this.config = config;
    }

    /** Binds the port and starts serving. */
    @Override
    public void start() {
        lock.lock();
        try {
            if (server == null) {
                server = RingbusServer.start(broker, config);
                int monitor = server.monitorPort();
                LOG.info("ringbus NATS server listening on {}:{}{}", config.host(), server.port(),
                        monitor == ServerConfig.MONITOR_OFF ? ""
                                : " (monitoring at http://" + config.monitorHost() + ":" + monitor + "/)");
            }
            running = true;
        } finally {
            lock.unlock();
        }
    }

    /** Stops accepting connections; connected clients keep working until the broker closes. */
    @Override
    public void stop() {
        lock.lock();
        try {
            if (server != null) {
                server.stopAccepting();
            }
            running = false;
        } finally {
            lock.unlock();
        }
    }

    /** Closes every connection and the I/O threads. */
    @Override
    public void destroy() {
        lock.lock();
        try {
            if (server != null) {
                server.close();
            }
            running = false;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return RingbusAutoConfiguration.SERVER_PHASE;
    }

    /** @return the running server, or {@code null} before start */
    public RingbusServer server() {
        lock.lock();
        try {
            return server;
        } finally {
            lock.unlock();
        }
    }

    /** @return the client port bound, or -1 before start */
    public int port() {
        RingbusServer s = server();
        return s == null ? -1 : s.port();
    }
}
