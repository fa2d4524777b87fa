package io.ringbus.bench.hostile;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One raw TCP connection to a server under attack: it writes exactly the bytes an attack gives it
 * and reads the server's answers line by line (or throws them away), so an attack is the same
 * bytes whichever server it is sent to. Not thread-safe: one writer, and either line reads or
 * {@link #discardInput()}.
 */
final class Wire implements AutoCloseable {
    /** Bound on any single read or connect, far above what a loaded machine needs. */
    static final int TIMEOUT_MILLIS = 10_000;

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final AtomicLong errors = new AtomicLong();

    private Wire(Socket socket) throws IOException {
        this.socket = socket;
        this.in = new BufferedInputStream(socket.getInputStream(), 16 * 1024);
        this.out = socket.getOutputStream();
    }

    /**
     * Connects to 127.0.0.1:{@code port}, optionally from another loopback address (a second
     * "source" for servers that queue work per source address).
     *
     * @param port          the server's port
     * @param from          the local address, or {@code null} for any
     * @param receiveBuffer SO_RCVBUF when positive (small, so that a client that never reads
     *                      fills up quickly)
     * @return the open connection; nothing read yet
     * @throws IOException when the server refuses or does not answer the connect
     */
    static Wire open(int port, InetAddress from, int receiveBuffer) throws IOException {
        Socket socket = new Socket();
        try {
            if (receiveBuffer > 0) {
                socket.setReceiveBufferSize(receiveBuffer);
            }
            if (from != null) {
                socket.bind(new InetSocketAddress(from, 0));
            }
            socket.setTcpNoDelay(true);
            socket.setSoTimeout(TIMEOUT_MILLIS);
            socket.connect(new InetSocketAddress("127.0.0.1", port), TIMEOUT_MILLIS);
            return new Wire(socket);
        } catch (IOException e) {
            socket.close();
            throw e;
        }
    }

    /** {@link #open(int, InetAddress, int)} from any address, default buffers. */
    static Wire open(int port) throws IOException {
        return open(port, null, 0);
    }

    /**
     * Opens a connection, reads INFO and sends {@code CONNECT} with the given JSON fields, and
     * a PING whose PONG proves the server took them.
     *
     * @param port   the server's port
     * @param fields JSON object members, e.g. {@code "user":"alice","pass":"x"}, or empty
     * @return the logged-in connection
     * @throws IOException when the server refuses (its {@code -ERR} line is the message)
     */
    static Wire login(int port, String fields) throws IOException {
        Wire wire = open(port);
        try {
            wire.readLine();
            wire.send(connectLine(fields) + "PING\r\n");
            wire.expectPong();
            return wire;
        } catch (IOException | RuntimeException e) {
            wire.close();
            throw e;
        }
    }

    /**
     * @param fields JSON object members, or empty
     * @return a CONNECT line (with its CRLF) that asks for no {@code +OK}s
     */
    static String connectLine(String fields) {
        return "CONNECT {\"verbose\":false,\"pedantic\":false,\"headers\":true,\"no_responders\":true"
                + (fields.isEmpty() ? "" : "," + fields) + "}\r\n";
    }

    /**
     * Writes bytes and flushes.
     *
     * @param bytes the bytes
     * @throws IOException when the connection is gone
     */
    void send(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    /** Writes the text as ASCII and flushes. */
    void send(String text) throws IOException {
        send(text.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * @return the next line without its CRLF
     * @throws IOException when the connection closed or nothing came within the timeout
     */
    String readLine() throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int previous = -1;
        while (true) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("connection closed by the server after: " + line);
            }
            if (previous == '\r' && b == '\n') {
                byte[] bytes = line.toByteArray();
                return new String(bytes, 0, bytes.length - 1, StandardCharsets.UTF_8);
            }
            line.write(b);
            previous = b;
        }
    }

    /**
     * Reads lines until PONG, answering the server's PINGs and skipping deliveries.
     *
     * @throws IOException naming the {@code -ERR} when the server sends one instead
     */
    void expectPong() throws IOException {
        while (true) {
            String line = readLine();
            if (line.equals("PONG")) {
                return;
            }
            if (line.equals("PING")) {
                send("PONG\r\n");
            } else if (line.startsWith("-ERR")) {
                errors.incrementAndGet();
                throw new IOException("server answered " + line);
            } else if (line.startsWith("MSG ") || line.startsWith("HMSG ")) {
                skipPayload(line);
            }
        }
    }

    /**
     * Reads the payload of a {@code MSG} or {@code HMSG} (headers and payload together) whose
     * control line was just read, and its CRLF.
     *
     * @param control the control line
     * @return the bytes
     * @throws IOException when the connection closes first
     */
    byte[] readPayload(String control) throws IOException {
        String[] parts = control.split(" ");
        int size = Integer.parseInt(parts[parts.length - 1]);
        byte[] bytes = in.readNBytes(size + 2);
        if (bytes.length < size + 2) {
            throw new IOException("connection closed inside a message");
        }
        return java.util.Arrays.copyOf(bytes, size);
    }

    private void skipPayload(String control) throws IOException {
        String[] parts = control.split(" ");
        long size = Long.parseLong(parts[parts.length - 1]) + 2;
        while (size > 0) {
            long skipped = in.skip(size);
            if (skipped <= 0) {
                if (in.read() < 0) {
                    throw new IOException("connection closed inside a message");
                }
                skipped = 1;
            }
            size -= skipped;
        }
    }

    /**
     * Reads and throws away everything the server sends, on a virtual thread, until the
     * connection closes, counting {@code -ERR} lines roughly (by their first bytes).
     */
    void discardInput() {
        Thread.ofVirtual().name("hostile-discard").start(() -> {
            byte[] buffer = new byte[64 * 1024];
            try {
                socket.setSoTimeout(0);
                for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                    for (int i = 0; i + 4 <= n; i++) {
                        if (buffer[i] == '-' && buffer[i + 1] == 'E' && buffer[i + 2] == 'R' && buffer[i + 3] == 'R') {
                            errors.incrementAndGet();
                        }
                    }
                }
            } catch (IOException closed) {
                // the attack or the server ended the connection
            }
        });
    }

    /** @return the {@code -ERR} lines seen so far */
    long errors() {
        return errors.get();
    }

    /** @return whether the server has not closed this connection, as far as this side knows */
    boolean isOpen() {
        return !socket.isClosed() && socket.isConnected() && !socket.isInputShutdown();
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException e) {
            // closing anyway
        }
    }
}
