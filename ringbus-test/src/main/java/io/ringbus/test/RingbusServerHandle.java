package io.ringbus.test;

import io.ringbus.core.Broker;
import io.ringbus.server.RingbusServer;
import io.ringbus.server.ServerConfig;
import io.ringbus.server.ServerStats;

import java.time.Duration;

/**
 * A running in-JVM ringbus-server and the broker behind it, as {@link RingbusServerExtension}
 * started it for a test class or method; a test parameter of this type receives it.
 *
 * <p>Thread-safe. The extension closes it: a test must not.
 */
public final class RingbusServerHandle {
    private final Broker broker;
    private final RingbusServer server;
    private final String url;

    RingbusServerHandle(Broker broker, RingbusServer server) {
        this.broker = broker;
        this.server = server;
        this.url = "nats://127.0.0.1:" + server.port();
    }

    /** @return the URL NATS clients connect to, {@code nats://127.0.0.1:<port>} */
    public String url() {
        return url;
    }

    /** @return the client port, a free loopback port picked when the server started */
    public int port() {
        return server.port();
    }

    /**
     * @return the HTTP monitoring port ({@code /varz}, {@code /connz}, ...), or
     *         {@link ServerConfig#MONITOR_OFF} unless {@link RingbusServerTest#monitor()} asked for it
     */
    public int monitorPort() {
        return server.monitorPort();
    }

    /**
     * The in-process broker the server fronts: a client of ROOT scope, so a test can publish and
     * subscribe in-process next to its network clients. Payloads from the network arrive as
     * {@code byte[]}; a {@code String} published in-process goes out as UTF-8.
     *
     * @return the broker
     */
    public Broker broker() {
        return broker;
    }

    /** @return the server itself, for what this handle does not offer */
    public RingbusServer server() {
        return server;
    }

    /** @return a snapshot of the server's counters (connections, messages, bytes, refusals) */
    public ServerStats stats() {
        return server.stats();
    }

    /** Closes the server and then the broker, delivering what the broker accepted (up to 2 s). */
    void close() {
        try {
            server.close();
        } finally {
            broker.close(Duration.ofSeconds(2));
        }
    }

    @Override
    public String toString() {
        return "RingbusServerHandle[" + url + ']';
    }
}
