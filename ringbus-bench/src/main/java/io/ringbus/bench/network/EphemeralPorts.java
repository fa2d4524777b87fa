package io.ringbus.bench.network;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/**
 * Picks free TCP ports on the loopback interface for the servers under test. Never returns the
 * NATS default 4222: a real nats-server may be listening there, and the benchmark must not
 * measure (or disturb) it.
 */
public final class EphemeralPorts {
    /** The NATS default client port, which the benchmark never uses. */
    public static final int NATS_DEFAULT_PORT = 4222;

    private EphemeralPorts() {
    }

    /**
     * Binds a socket to port 0 on 127.0.0.1, reads the port the kernel chose, and closes it. A
     * tiny race remains (another process could take the port before the server binds it); the
     * server then fails to start with a message naming the port.
     *
     * @return a port that was free a moment ago, never 4222
     * @throws UncheckedIOException when no socket can be bound
     */
    public static int pick() {
        for (int attempt = 0; attempt < 10; attempt++) {
            try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                socket.setReuseAddress(true);
                int port = socket.getLocalPort();
                if (port != NATS_DEFAULT_PORT) {
                    return port;
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot bind a loopback socket to find a free port", e);
            }
        }
        throw new IllegalStateException("the kernel kept choosing port " + NATS_DEFAULT_PORT);
    }
}
