package io.ringbus.server;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A client that floods PINGs and never reads the PONGs must not make the server buffer PONGs
 * without bound: the server stops reading that client until it reads again, then answers every
 * PING.
 */
@Timeout(60)
class OutputBackpressureTest {
    private static final byte[] PINGS = "PING\r\n".repeat(1_000).getBytes(StandardCharsets.US_ASCII);

    @Test
    void aClientThatDoesNotReadItsPongsIsNoLongerReadUntilItDoes() throws Exception {
        try (ServerUnderTest server = ServerUnderTest.start();
             Socket socket = new Socket()) {
            socket.setReceiveBufferSize(4_096);
            socket.setSoTimeout(15_000);
            socket.connect(new InetSocketAddress("127.0.0.1", server.port()));
            InputStream in = socket.getInputStream();
            OutputStream out = socket.getOutputStream();
            out.write("CONNECT {\"verbose\":false}\r\n".getBytes(StandardCharsets.US_ASCII));

            AtomicLong pingsSent = new AtomicLong();
            AtomicBoolean stop = new AtomicBoolean();
            Thread writer = Thread.ofPlatform().start(() -> {
                try {
                    while (!stop.get()) {
                        out.write(PINGS);
                        pingsSent.addAndGet(1_000);
                    }
                } catch (IOException e) {
                    pingsSent.set(-1);
                }
            });

            // Wait until the writer is stuck: the server stopped reading us.
            long last = -1;
            int stableChecks = 0;
            while (stableChecks < 5) {
                Thread.sleep(200);
                long now = pingsSent.get();
                stableChecks = now == last ? stableChecks + 1 : 0;
                last = now;
            }
            long bytesInWhileBlocked = server.stats().bytesIn();
            // Bounded by the socket buffers and the write watermark, not by what the client sends.
            assertThat(bytesInWhileBlocked).isLessThan(64L << 20);
            assertThat(pingsSent.get()).isPositive();

            // Now read: the server resumes, and every PING gets its PONG.
            stop.set(true);
            long pongs = 0;
            byte[] buffer = new byte[64 * 1024];
            StringBuilder partial = new StringBuilder();
            String info = null;
            while (writer.isAlive() || pongs < pingsSent.get()) {
                int n = in.read(buffer);
                assertThat(n).as("connection closed after %d PONGs", pongs).isPositive();
                partial.append(new String(buffer, 0, n, StandardCharsets.US_ASCII));
                int end;
                while ((end = partial.indexOf("\r\n")) >= 0) {
                    String line = partial.substring(0, end);
                    partial.delete(0, end + 2);
                    if (line.equals("PONG")) {
                        pongs++;
                    } else if (line.startsWith("INFO")) {
                        info = line;
                    } else {
                        throw new AssertionError("unexpected line: " + line);
                    }
                }
            }
            writer.join();
            assertThat(info).isNotNull();
            assertThat(pingsSent.get()).isPositive();
            assertThat(pongs).isEqualTo(pingsSent.get());
            assertThat(server.stats().connections()).isEqualTo(1);
        }
    }
}
