package io.ringbus.core.internal.store;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.CRC32C;

/**
 * A durable consumer's saved state, one small file replaced atomically: written to
 * {@code <name>.state.tmp}, forced, renamed over {@code <name>.state}, and the directory forced, so
 * a crash leaves the old state or the new one, never a mix.
 *
 * <p>Format (big-endian): magic {@code RBCS}, version 1, filter (modified UTF-8), delivered (8),
 * count (4), count × (sequence (8), deliveries (4)), CRC32C of all before it (4).
 *
 * <p>Not thread-safe: its consumer serializes saves.
 */
final class ConsumerStateFile {
    private static final int MAGIC = 0x52424353; // "RBCS"
    private static final int VERSION = 1;

    private final Path path;
    private final Path tmp;
    private final boolean force;

    /** What a saved file holds. */
    record Saved(String filter, long delivered, Map<Long, Integer> unacked) {
    }

    ConsumerStateFile(Path path, boolean force) {
        this.path = path;
        this.tmp = path.resolveSibling(path.getFileName() + ".tmp");
        this.force = force;
    }

    /** @return the saved state, or null when none was saved */
    Saved load() throws IOException {
        if (!Files.exists(path)) {
            return null;
        }
        byte[] bytes = Files.readAllBytes(path);
        if (bytes.length < 4) {
            throw new IOException(path + " is truncated (" + bytes.length + " bytes)");
        }
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, bytes.length - 4);
        int stored = ByteBuffer.wrap(bytes, bytes.length - 4, 4).getInt();
        if ((int) crc.getValue() != stored) {
            throw new IOException(path + " fails its CRC: the file was changed outside ringbus");
        }
        try (DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(bytes, 0, bytes.length - 4))) {
            if (in.readInt() != MAGIC || in.readInt() != VERSION) {
                throw new IOException(path + " is not a ringbus consumer state (version 1)");
            }
            String filter = in.readUTF();
            long delivered = in.readLong();
            int count = in.readInt();
            Map<Long, Integer> unacked = new TreeMap<>();
            for (int i = 0; i < count; i++) {
                unacked.put(in.readLong(), in.readInt());
            }
            return new Saved(filter, delivered, unacked);
        }
    }

    void save(String filter, long delivered, Map<Long, Integer> unacked) throws IOException {
        ByteArrayOutputStream buffer = new ByteArrayOutputStream(32 + unacked.size() * 12);
        try (DataOutputStream out = new DataOutputStream(buffer)) {
            out.writeInt(MAGIC);
            out.writeInt(VERSION);
            out.writeUTF(filter);
            out.writeLong(delivered);
            out.writeInt(unacked.size());
            for (Map.Entry<Long, Integer> entry : unacked.entrySet()) {
                out.writeLong(entry.getKey());
                out.writeInt(entry.getValue());
            }
        }
        byte[] body = buffer.toByteArray();
        CRC32C crc = new CRC32C();
        crc.update(body);
        ByteBuffer all = ByteBuffer.allocate(body.length + 4).put(body).putInt((int) crc.getValue()).flip();
        try (FileChannel channel = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            while (all.hasRemaining()) {
                channel.write(all);
            }
            if (force) {
                channel.force(true);
            }
        }
        Files.move(tmp, path, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        if (force) {
            try (FileChannel dir = FileChannel.open(path.getParent(), StandardOpenOption.READ)) {
                dir.force(true);
            }
        }
    }
}
