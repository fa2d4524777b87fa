package io.ringbus.testkit;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The control channel of {@code powerloss_fs.py}: a Unix socket, one command per connection, one
 * reply line, {@code ok key=value ...} or {@code error what}.
 *
 * <p>Threading: stateless apart from the socket's path; each call blocks until the reply.
 */
final class PowerLossControl {
    /** A reply longer than this is not one the file system sends. */
    private static final int MAX_REPLY = 64 * 1024;
    private final Path socket;

    PowerLossControl(Path socket) {
        this.socket = socket;
    }

    /**
     * Sends {@code command} and reads the reply.
     *
     * @return the reply's {@code key=value} pairs, in order
     * @throws IOException when the socket cannot be reached, or the reply is an error (its text)
     */
    Map<String, Long> send(String command) throws IOException {
        String reply;
        try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            channel.connect(UnixDomainSocketAddress.of(socket));
            ByteBuffer out = ByteBuffer.wrap((command + "\n").getBytes(StandardCharsets.UTF_8));
            while (out.hasRemaining()) {
                channel.write(out);
            }
            ByteBuffer in = ByteBuffer.allocate(MAX_REPLY);
            while (in.hasRemaining() && channel.read(in) >= 0) {
                if (in.position() > 0 && in.get(in.position() - 1) == '\n') {
                    break;
                }
            }
            reply = new String(in.array(), 0, in.position(), StandardCharsets.UTF_8).strip();
        }
        if (!reply.equals("ok") && !reply.startsWith("ok ")) {
            throw new IOException("power-loss file system refused '" + command + "': " + reply);
        }
        Map<String, Long> values = new LinkedHashMap<>();
        for (String pair : reply.substring(2).strip().split(" ")) {
            int eq = pair.indexOf('=');
            if (eq > 0) {
                values.put(pair.substring(0, eq), Long.parseLong(pair.substring(eq + 1)));
            }
        }
        return values;
    }
}
