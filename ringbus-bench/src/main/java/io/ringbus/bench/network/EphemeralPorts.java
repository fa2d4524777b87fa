package io.ringbus.bench.network;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Picks free TCP ports on the loopback interface for the servers under test. Never returns the
 * NATS default 4222: a real nats-server may be listening there, and the benchmark must not
 * measure (or disturb) it.
 *
 * <p>The ports come from below the kernel's ephemeral range ({@code ip_local_port_range}), where
 * the outgoing connections of the load generators, probes and attacks take their local ports: a
 * port picked from inside that range could be taken by one of them between the pick and the
 * server's bind (a hostile-client run that opened thousands of connections saw its server fail to
 * start that way). A port is never handed out twice by one JVM.
 */
public final class EphemeralPorts {
    /** The NATS default client port, which the benchmark never uses. */
    public static final int NATS_DEFAULT_PORT = 4222;
    private static final Path LOCAL_RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
    private static final int LOWEST = 10_000;
    private static final int DEFAULT_RANGE_START = 32_768;
    private static final Set<Integer> GIVEN = ConcurrentHashMap.newKeySet();

    private EphemeralPorts() {
    }

    /**
     * Binds a socket to a random port between 10000 and the start of the ephemeral range on
     * 127.0.0.1 and closes it. A tiny race remains (another process could bind the port before
     * the server does); the server then fails to start with a message naming the port.
     *
     * @return a port that was free a moment ago, never 4222, never one returned before
     * @throws UncheckedIOException when no port in that range can be bound after many tries
     */
    public static int pick() {
        int end = ephemeralRangeStart();
        IOException last = null;
        for (int attempt = 0; attempt < 200; attempt++) {
            int port = ThreadLocalRandom.current().nextInt(LOWEST, end);
            if (port == NATS_DEFAULT_PORT || !GIVEN.add(port)) {
                continue;
            }
            try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
                return socket.getLocalPort();
            } catch (IOException taken) {
                last = taken;
            }
        }
        throw new UncheckedIOException("no free loopback port between " + LOWEST + " and " + end, last);
    }

    /** @return the first port of the kernel's ephemeral range (32768 when it cannot be read) */
    static int ephemeralRangeStart() {
        try {
            String[] range = Files.readString(LOCAL_RANGE).trim().split("\\s+");
            int start = Integer.parseInt(range[0]);
            return start > LOWEST + 1000 ? start : DEFAULT_RANGE_START;
        } catch (IOException | RuntimeException unreadable) {
            return DEFAULT_RANGE_START;
        }
    }
}
