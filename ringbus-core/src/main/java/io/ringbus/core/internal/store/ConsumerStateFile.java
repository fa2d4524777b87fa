package io.ringbus.core.internal.store;

import io.ringbus.core.internal.log.DurableFiles;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.CRC32C;

/**
 * A durable consumer's saved state, one small file replaced atomically through
 * {@link DurableFiles#replace}: written to {@code <name>.state.tmp}, forced, renamed over
 * {@code <name>.state}, and the directory forced, so a crash leaves the old state or the new one,
 * never a mix.
 *
 * <p>Format (big-endian): magic {@code RBCS}, version 1, filter (modified UTF-8), delivered (8),
 * count (4), count × (sequence (8), deliveries (4)), CRC32C of all before it (4).
 *
 * <p>A file a crash left damaged (empty, short, failing its CRC: possible where the file system
 * kept the rename but not the data, as under the {@code OS} policy) is replaced by the temporary
 * file when that one is whole (a save the crash interrupted); otherwise {@link #load} throws
 * {@link DamagedException} and the consumer starts over where nothing is skipped.
 *
 * <p>Not thread-safe: its consumer serializes saves.
 */
final class ConsumerStateFile {
    private static final int MAGIC = 0x52424353; // "RBCS"
    private static final int VERSION = 1;

    private final Path path;
    private final DurableFiles files;

    /** What a saved file holds. */
    record Saved(String filter, long delivered, Map<Long, Integer> unacked) {
    }

    /** The state file is damaged and no whole copy of it is left. */
    static final class DamagedException extends IOException {
        private static final long serialVersionUID = 1L;

        DamagedException(String message) {
            super(message);
        }
    }

    ConsumerStateFile(Path path, DurableFiles files) {
        this.path = path;
        this.files = files;
    }

    /** A file that forces its saves when {@code force} (tests). */
    ConsumerStateFile(Path path, boolean force) {
        this(path, new DurableFiles(force));
    }

    Path path() {
        return path;
    }

    /**
     * Reads the saved state; a damaged file is replaced by a whole temporary copy when there is one
     * (counted and logged as a repair).
     *
     * @return the saved state, or null when none was saved
     * @throws DamagedException when the file is damaged and no whole copy is left
     * @throws IOException      when the file cannot be read
     */
    Saved load() throws IOException {
        if (!Files.exists(path)) {
            return null;
        }
        try {
            return parse(path, Files.readAllBytes(path));
        } catch (DamagedException damaged) {
            Path tmp = DurableFiles.temporary(path);
            if (Files.exists(tmp)) {
                try {
                    Saved saved = parse(tmp, Files.readAllBytes(tmp));
                    files.repaired(path, damaged.getMessage() + "; resumed from " + tmp.getFileName()
                            + ", the whole save a crash interrupted");
                    return saved;
                } catch (DamagedException tmpDamaged) {
                    damaged.addSuppressed(tmpDamaged);
                }
            }
            throw damaged;
        }
    }

    /** Counts and logs a repair of this file. */
    void repaired(String what) {
        files.repaired(path, what);
    }

    private static Saved parse(Path file, byte[] bytes) throws DamagedException {
        if (bytes.length < 4) {
            throw new DamagedException(file + " is truncated (" + bytes.length + " bytes)");
        }
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, bytes.length - 4);
        int stored = ByteBuffer.wrap(bytes, bytes.length - 4, 4).getInt();
        if ((int) crc.getValue() != stored) {
            throw new DamagedException(file + " fails its CRC (" + bytes.length + " bytes): torn by a crash or"
                    + " changed outside ringbus");
        }
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes, 0, bytes.length - 4))) {
            if (in.readInt() != MAGIC || in.readInt() != VERSION) {
                throw new DamagedException(file + " is not a ringbus consumer state (version 1)");
            }
            String filter = in.readUTF();
            long delivered = in.readLong();
            int count = in.readInt();
            Map<Long, Integer> unacked = new TreeMap<>();
            for (int i = 0; i < count; i++) {
                unacked.put(in.readLong(), in.readInt());
            }
            return new Saved(filter, delivered, unacked);
        } catch (DamagedException e) {
            throw e;
        } catch (IOException e) {
            throw new DamagedException(file + " is short of its own lengths: " + e);
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
        files.replace(path, ByteBuffer.allocate(body.length + 4).put(body).putInt((int) crc.getValue()).flip());
    }
}
