package io.ringbus.core.internal.store;

import io.ringbus.core.internal.log.DurableFiles;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * A stream's per-key outbox ids as of one sequence ({@code <stream>/keyed-ids}), replaced atomically
 * through {@link DurableFiles#replace} (temporary file, forced, renamed, directory forced): a crash
 * leaves the old snapshot or the new one.
 *
 * <p>Format (big-endian): magic {@code RBKI}, version 1, through (8: every record up to this sequence
 * is in it), count (4), count × (prefix length (4), prefix (UTF-8), key length (4), key (UTF-8),
 * number (8), sequence (8)), least recently updated first; CRC32C of all before it (4).
 *
 * <p>Not thread-safe: its {@link KeyedIdsCheckpoint} serializes saves.
 */
final class KeyedIdsFile {
    /** The file's name in the stream's directory. */
    static final String NAME = "keyed-ids";
    private static final int MAGIC = 0x52424b49; // "RBKI"
    private static final int VERSION = 1;

    private final Path path;
    private final DurableFiles files;

    /** What a snapshot holds. */
    record Saved(long through, List<KeyedIds.Entry> entries) {
    }

    KeyedIdsFile(Path path, DurableFiles files) {
        this.path = path;
        this.files = files;
    }

    Path path() {
        return path;
    }

    /**
     * @return the saved snapshot, or null when none was saved
     * @throws IOException when it cannot be read, or is damaged (naming the file and what is wrong)
     */
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
        if ((int) crc.getValue() != ByteBuffer.wrap(bytes, bytes.length - 4, 4).getInt()) {
            throw new IOException(path + " fails its CRC (" + bytes.length + " bytes): changed outside ringbus");
        }
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes, 0, bytes.length - 4))) {
            if (in.readInt() != MAGIC || in.readInt() != VERSION) {
                throw new IOException(path + " is not a ringbus keyed-ids snapshot (version 1)");
            }
            long through = in.readLong();
            int count = in.readInt();
            List<KeyedIds.Entry> entries = new ArrayList<>(Math.min(count, 1 << 16));
            for (int i = 0; i < count; i++) {
                entries.add(new KeyedIds.Entry(string(in), string(in), in.readLong(), in.readLong()));
            }
            return new Saved(through, entries);
        }
    }

    /** Writes the snapshot and forces it (as the store's policy forces files). */
    void save(long through, KeyedIds.Entry[] entries) throws IOException {
        ByteArrayOutputStream buffer = new ByteArrayOutputStream(32 + entries.length * 48);
        try (DataOutputStream out = new DataOutputStream(buffer)) {
            out.writeInt(MAGIC);
            out.writeInt(VERSION);
            out.writeLong(through);
            out.writeInt(entries.length);
            for (KeyedIds.Entry entry : entries) {
                string(out, entry.prefix());
                string(out, entry.key());
                out.writeLong(entry.number());
                out.writeLong(entry.sequence());
            }
        }
        byte[] body = buffer.toByteArray();
        CRC32C crc = new CRC32C();
        crc.update(body);
        files.replace(path, ByteBuffer.allocate(body.length + 4).put(body).putInt((int) crc.getValue()).flip());
    }

    private static String string(DataInputStream in) throws IOException {
        int length = in.readInt();
        if (length < 0 || length > in.available()) {
            throw new IOException("a length out of range: " + length);
        }
        return new String(in.readNBytes(length), StandardCharsets.UTF_8);
    }

    private static void string(DataOutputStream out, String value) throws IOException {
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        out.writeInt(bytes.length);
        out.write(bytes);
    }
}
