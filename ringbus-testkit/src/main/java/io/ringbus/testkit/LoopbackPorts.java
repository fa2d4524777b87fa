package io.ringbus.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;

/**
 * Ports on 127.0.0.1 for servers a test starts itself (never 4222, where the machine's own NATS
 * listens). Threading: static methods without state.
 */
public final class LoopbackPorts {
    private LoopbackPorts() {
    }

    /** @return a port free now (the kernel's pick; another process could take it before the test does) */
    public static int free() {
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return probe.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free loopback port: " + e.getMessage(), e);
        }
    }

    /**
     * @param port a loopback port
     * @return whether something accepts TCP connections on it now
     */
    public static boolean accepting(int port) {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            return socket.isConnected();
        } catch (IOException e) {
            return false;
        }
    }
}
