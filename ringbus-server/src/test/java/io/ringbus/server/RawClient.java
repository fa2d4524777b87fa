package io.ringbus.server;

import org.junit.jupiter.api.Assumptions;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A NATS client on a plain {@link Socket} that writes exactly the bytes a test gives it and
 * reads the server's answers line by line, so tests see the wire protocol itself. Every read
 * is bounded by the socket timeout: a missing answer fails the test instead of hanging it.
 */
final class RawClient implements AutoCloseable {
    /** Bound on any single read; far above what a loaded machine needs. */
    static final int READ_TIMEOUT_MILLIS = 15_000;

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    /** One MSG or HMSG as received; {@code headers} is the raw header block or {@code null}. */
    record Delivery(String subject, String sid, String replyTo, String headers, byte[] payload) {
        String text() {
            return new String(payload, StandardCharsets.UTF_8);
        }
    }

    private RawClient(Socket socket) throws IOException {
        this.socket = socket;
        this.in = new BufferedInputStream(socket.getInputStream(), 8 * 1024);
        this.out = socket.getOutputStream();
    }

    /** Connects without reading anything yet. */
    static RawClient connect(int port) {
        return connect(port, 0);
    }

    /**
     * Connects from another loopback address ({@code 127.0.0.2}: Linux routes all of 127/8), so
     * that the server sees a second source; fails the assumption where the address cannot be bound.
     */
    static RawClient connectFrom(String localAddress, int port) {
        try {
            Socket socket = new Socket();
            try {
                socket.bind(new InetSocketAddress(localAddress, 0));
            } catch (IOException e) {
                socket.close();
                Assumptions.abort("cannot bind " + localAddress + " on this machine: " + e);
            }
            socket.setTcpNoDelay(true);
            socket.setSoTimeout(READ_TIMEOUT_MILLIS);
            socket.connect(new InetSocketAddress("127.0.0.1", port), READ_TIMEOUT_MILLIS);
            return new RawClient(socket);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot connect from " + localAddress + " to 127.0.0.1:" + port, e);
        }
    }

    /**
     * Connects with a small receive buffer when {@code receiveBufferSize > 0}, so that a client
     * that stops reading fills up quickly.
     */
    static RawClient connect(int port, int receiveBufferSize) {
        try {
            Socket socket = new Socket();
            if (receiveBufferSize > 0) {
                socket.setReceiveBufferSize(receiveBufferSize);
            }
            socket.setTcpNoDelay(true);
            socket.setSoTimeout(READ_TIMEOUT_MILLIS);
            socket.connect(new InetSocketAddress("127.0.0.1", port), READ_TIMEOUT_MILLIS);
            return new RawClient(socket);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot connect to 127.0.0.1:" + port, e);
        }
    }

    /**
     * Reads INFO, sends {@code CONNECT <json>} and a PING, and waits for the PONG (skipping the
     * +OK of verbose mode, answering the server's PINGs), so that the connection is ready when
     * this returns.
     *
     * @return the INFO line
     */
    String handshake(String connectJson) {
        String info = readLine();
        if (!info.startsWith("INFO {")) {
            throw new AssertionError("expected INFO first, got: " + info);
        }
        send("CONNECT " + connectJson + "\r\nPING\r\n");
        String line = readLine();
        while (line.equals("+OK") || line.equals("PING")) {
            if (line.equals("PING")) { // the server's keep-alive may come first when its interval is short
                send("PONG\r\n");
            }
            line = readLine();
        }
        if (!line.equals("PONG")) {
            throw new AssertionError("expected PONG after CONNECT, got: " + line);
        }
        return info;
    }

    /** Handshake with the default options: not verbose, not pedantic, headers on. */
    String handshake() {
        return handshake("{\"verbose\":false,\"pedantic\":false,\"headers\":true,\"no_responders\":true}");
    }

    void send(String text) {
        send(text.getBytes(StandardCharsets.UTF_8));
    }

    void send(byte[] bytes) {
        try {
            out.write(bytes);
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("write failed", e);
        }
    }

    /** Writes {@code bytes} in chunks of the given sizes (cycled), flushing each one. */
    void sendInChunks(byte[] bytes, int[] chunkSizes) {
        int offset = 0;
        for (int i = 0; offset < bytes.length; i++) {
            int length = Math.min(chunkSizes[i % chunkSizes.length], bytes.length - offset);
            try {
                out.write(bytes, offset, length);
                out.flush();
            } catch (IOException e) {
                throw new UncheckedIOException("write failed at offset " + offset, e);
            }
            offset += length;
        }
    }

    /** @return the next line without its CRLF; fails on end of stream or timeout */
    String readLine() {
        String line = readLineOrNull();
        if (line == null) {
            throw new AssertionError("connection closed by the server while a line was expected");
        }
        return line;
    }

    /** Reads the next line and checks it. */
    void expectLine(String expected) {
        String line = readLine();
        if (!line.equals(expected)) {
            throw new AssertionError("expected line <" + expected + "> but got <" + line + ">");
        }
    }

    /** Reads one MSG or HMSG with its payload; fails on anything else. */
    Delivery readDelivery() {
        return readDelivery(readLine());
    }

    /** Reads the payload of the MSG or HMSG whose control line was already read. */
    Delivery readDelivery(String line) {
        String[] args = line.split(" ");
        try {
            if (args[0].equals("MSG") && (args.length == 4 || args.length == 5)) {
                int size = Integer.parseInt(args[args.length - 1]);
                byte[] payload = readPayload(size);
                return new Delivery(args[1], args[2], args.length == 5 ? args[3] : null, null, payload);
            }
            if (args[0].equals("HMSG") && (args.length == 5 || args.length == 6)) {
                int headerSize = Integer.parseInt(args[args.length - 2]);
                int total = Integer.parseInt(args[args.length - 1]);
                byte[] all = readPayload(total);
                String headers = new String(all, 0, headerSize, StandardCharsets.UTF_8);
                byte[] payload = Arrays.copyOfRange(all, headerSize, total);
                return new Delivery(args[1], args[2], args.length == 6 ? args[3] : null, headers, payload);
            }
        } catch (NumberFormatException e) {
            throw new AssertionError("bad size in: " + line, e);
        }
        throw new AssertionError("expected MSG or HMSG, got: " + line);
    }

    /**
     * Reads lines until the server closes the connection (a reset counts as closed).
     *
     * @return the lines read, in order; fails if the server keeps the connection open past the
     *         read timeout
     */
    List<String> readUntilClosed() {
        List<String> lines = new ArrayList<>();
        for (String line = readLineOrNull(); line != null; line = readLineOrNull()) {
            lines.add(line);
        }
        return lines;
    }

    /**
     * Subscribes to {@code subject} on a fresh sid, publishes to it, reads the message back and
     * unsubscribes: the connection can do real work.
     */
    void assertRoundTrip(String subject) {
        assertRoundTrip(subject, false);
    }

    /** Like {@link #assertRoundTrip(String)}, answering server PINGs when asked to. */
    void assertRoundTrip(String subject, boolean answerPings) {
        send("SUB " + subject + " rt\r\nPUB " + subject + " 4\r\nping\r\n");
        String line = readLine();
        while (answerPings && line.equals("PING")) {
            send("PONG\r\n");
            line = readLine();
        }
        Delivery delivery = readDelivery(line);
        if (!delivery.subject().equals(subject) || !delivery.sid().equals("rt") || !delivery.text().equals("ping")) {
            throw new AssertionError("round trip on " + subject + " delivered " + delivery.subject() + " sid "
                    + delivery.sid() + ": " + delivery.text());
        }
        send("UNSUB rt\r\n");
    }

    /** Sends PING and expects PONG as the very next line: the connection is open and in sync. */
    void assertOpen() {
        send("PING\r\n");
        expectLine("PONG");
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing a test socket: nothing to do
        }
    }

    private String readLineOrNull() {
        ByteArrayOutputStream line = new ByteArrayOutputStream(128);
        try {
            while (true) {
                int b = in.read();
                if (b < 0) {
                    return line.size() == 0 ? null : line.toString(StandardCharsets.UTF_8);
                }
                if (b == '\n') {
                    byte[] bytes = line.toByteArray();
                    int length = bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
                    return new String(bytes, 0, length, StandardCharsets.UTF_8);
                }
                line.write(b);
            }
        } catch (SocketTimeoutException e) {
            throw new AssertionError("no complete line from the server within " + READ_TIMEOUT_MILLIS
                    + " ms; partial line: <" + line.toString(StandardCharsets.UTF_8) + ">", e);
        } catch (SocketException reset) {
            // "Connection reset": the server closed with our bytes unread; the stream is over.
            return line.size() == 0 ? null : line.toString(StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private byte[] readPayload(int size) {
        try {
            byte[] payload = in.readNBytes(size);
            if (payload.length != size || in.read() != '\r' || in.read() != '\n') {
                throw new AssertionError("payload of " + size + " bytes not followed by CRLF");
            }
            return payload;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
