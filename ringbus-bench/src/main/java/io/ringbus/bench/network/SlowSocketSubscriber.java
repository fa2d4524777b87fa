package io.ringbus.bench.network;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * A subscriber that reads its socket slowly, the way a slow NATS client looks to a server: it
 * speaks just enough of the client protocol (CONNECT, SUB, PING/PONG, MSG), has a small receive
 * buffer, and reads one message per {@link Pacer} slot. Unlike jnats, whose reader thread drains
 * the socket into an in-memory queue however slow the handler is, this lets the server's
 * outbound buffer fill, which is what makes a server drop a slow consumer.
 *
 * <p>Reads on its own thread until the server disconnects it or {@link #close()} is called.
 */
final class SlowSocketSubscriber implements AutoCloseable {
    private static final int RECEIVE_BUFFER = 64 * 1024;

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final Pacer pacer;
    private final SequenceCheck check;
    private final Thread reader;
    private volatile boolean closing;
    private volatile boolean disconnected;
    private volatile String serverError;

    private SlowSocketSubscriber(Socket socket, Pacer pacer, SequenceCheck check) throws IOException {
        this.socket = socket;
        this.in = new BufferedInputStream(socket.getInputStream(), 4_096);
        this.out = socket.getOutputStream();
        this.pacer = pacer;
        this.check = check;
        this.reader = Thread.ofPlatform().name("bench-slow-socket").daemon().unstarted(this::readLoop);
    }

    /**
     * Connects, subscribes, waits for the server's PONG (so the SUB is in place) and starts reading.
     *
     * @param port         the server's port on 127.0.0.1
     * @param subject      the subject
     * @param perPublisher messages each publisher will send
     * @param pacer        the read rate
     * @return the subscriber
     * @throws IOException when the server cannot be reached or answers unexpectedly
     */
    static SlowSocketSubscriber open(int port, String subject, long[] perPublisher, Pacer pacer) throws IOException {
        Socket socket = new Socket();
        // Set before connect, so that the TCP window is negotiated small.
        socket.setReceiveBufferSize(RECEIVE_BUFFER);
        socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
        socket.setSoTimeout(10_000);
        SlowSocketSubscriber subscriber = new SlowSocketSubscriber(socket, pacer, new SequenceCheck(perPublisher));
        String info = subscriber.readLine();
        if (!info.startsWith("INFO ")) {
            socket.close();
            throw new IOException("expected INFO from 127.0.0.1:" + port + ", got '" + info + "'");
        }
        subscriber.out.write(("CONNECT {\"verbose\":false,\"pedantic\":false,\"name\":\"slow-socket\",\"protocol\":1}\r\n"
                + "SUB " + subject + " 1\r\nPING\r\n").getBytes(StandardCharsets.US_ASCII));
        subscriber.out.flush();
        String line;
        while (!(line = subscriber.readLine()).equals("PONG")) {
            if (line.startsWith("-ERR")) {
                socket.close();
                throw new IOException("server refused the slow subscriber: " + line);
            }
        }
        socket.setSoTimeout(0);
        subscriber.reader.start();
        return subscriber;
    }

    private void readLoop() {
        try {
            while (!closing) {
                String line = readLine();
                if (line.startsWith("MSG ")) {
                    int size = Integer.parseInt(line.substring(line.lastIndexOf(' ') + 1));
                    byte[] payload = in.readNBytes(size);
                    if (payload.length < size || in.readNBytes(2).length < 2) {
                        throw new IOException("connection closed inside a message");
                    }
                    check.accept(payload);
                    pacer.pace();
                } else if (line.equals("PING")) {
                    out.write("PONG\r\n".getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                } else if (line.startsWith("-ERR")) {
                    serverError = line.substring(4).trim();
                }
            }
        } catch (IOException | RuntimeException e) {
            if (!closing) {
                disconnected = true;
            }
        }
    }

    /** Reads one CRLF-terminated line, without the CRLF. */
    private String readLine() throws IOException {
        StringBuilder line = new StringBuilder(64);
        int b;
        while ((b = in.read()) != '\n') {
            if (b < 0) {
                throw new IOException("connection closed by the server");
            }
            if (b != '\r') {
                line.append((char) b);
            }
        }
        return line.toString();
    }

    /** @return messages read so far */
    long received() {
        return check.received();
    }

    /** @return whether the server closed the connection */
    boolean disconnected() {
        return disconnected;
    }

    /** @return the last {@code -ERR} text the server sent, or {@code null} */
    String serverError() {
        return serverError;
    }

    /**
     * Waits until the server disconnected this subscriber.
     *
     * @param millis longest wait
     * @return whether it was disconnected
     */
    boolean awaitDisconnect(long millis) throws InterruptedException {
        reader.join(millis);
        return disconnected;
    }

    @Override
    public void close() throws IOException {
        closing = true;
        socket.close();
    }
}
