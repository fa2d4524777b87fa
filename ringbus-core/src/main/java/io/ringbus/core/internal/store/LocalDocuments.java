package io.ringbus.core.internal.store;

import io.ringbus.core.Documents;
import io.ringbus.core.StorageException;
import io.ringbus.core.internal.log.DurableFiles;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.regex.Pattern;

/**
 * The local store's {@link Documents}: one file per document in the area's directory, in the
 * append-only layout of {@link DocumentRecords}, deleted through {@link DurableFiles#delete}
 * (unlink, directory fsync).
 *
 * <p>A write appends the next record inside the file's zero-filled region and forces the data
 * only ({@link DurableFiles#forceData}, {@code fdatasync}): the write changes neither the file's
 * size nor its allocation, so this is one device flush and no journal commit (ext4), where a
 * replace costs two. When the record does not fit, or on this instance's first write of the
 * document, or after a write failed, the file is rewritten through {@link DurableFiles#replace}
 * (temporary file, fsync, rename, directory fsync) holding just that record and a fresh zero region
 * of {@link #regionBytes} bytes: the region is written (not merely allocated) and forced before the
 * rename, so later appends into it need no metadata. A crash or power cut during an append leaves
 * a torn last record, which a read skips: the old content or the new one, never a mix.
 *
 * <p>Limits: a file is at most {@link DocumentRecords#MAX_FILE_BYTES} (a document of
 * {@link Documents#MAX_BYTES}); a document's region is at least {@code minRegionBytes} (64 KiB by
 * default: the disk each document takes) and {@value #RECORDS_PER_REGION} times the record, capped
 * at {@link DocumentRecords#MAX_REGION_BYTES}. Memory: per document written, its tail (three
 * numbers), dropped on delete; a write allocates its record, a rewrite its whole file; a read
 * allocates the file. A file is opened per write and per read (no channel is kept).
 *
 * <p>Thread-safe: writes and deletes of one document are serialized by one of
 * {@value #LOCK_STRIPES} locks (by name); reads take none (an append in progress reads as the
 * previous record). One instance per area ({@link LocalStorage#documents} keeps them), so that every
 * writer of a document sees its tail.
 */
final class LocalDocuments implements Documents {
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_\\-][A-Za-z0-9_.\\-]{0,254}");
    /** The default least region: 64 KiB, about 200 appends of a 300-byte consumer state per rewrite. */
    static final int DEFAULT_MIN_REGION_BYTES = 64 * 1024;
    /** A rewritten region holds this many records of the size just written, when under the cap. */
    static final int RECORDS_PER_REGION = 8;
    private static final int LOCK_STRIPES = 64;

    /**
     * Where the next record of a document goes, in a file this instance wrote.
     *
     * @param end      the offset after the last record
     * @param size     the file's size (preallocated)
     * @param sequence the next record's sequence
     */
    private record Tail(long end, long size, long sequence) {
    }

    private final Path dir;
    private final DurableFiles files;
    private final int minRegionBytes;
    private final Map<String, Tail> tails = new ConcurrentHashMap<>();
    private final ReentrantLock[] locks = new ReentrantLock[LOCK_STRIPES];

    LocalDocuments(Path dir, DurableFiles files) {
        this(dir, files, DEFAULT_MIN_REGION_BYTES);
    }

    /**
     * @param minRegionBytes the least region a rewrite preallocates, 0 to {@link DocumentRecords#MAX_REGION_BYTES}
     */
    LocalDocuments(Path dir, DurableFiles files, int minRegionBytes) {
        if (minRegionBytes < 0 || minRegionBytes > DocumentRecords.MAX_REGION_BYTES) {
            throw new IllegalArgumentException("minRegionBytes must be 0 to " + DocumentRecords.MAX_REGION_BYTES
                    + ": minRegionBytes=" + minRegionBytes);
        }
        this.dir = dir;
        this.files = files;
        this.minRegionBytes = minRegionBytes;
        for (int i = 0; i < LOCK_STRIPES; i++) {
            locks[i] = new ReentrantLock();
        }
    }

    private ReentrantLock lock(String name) {
        return locks[name.hashCode() & (LOCK_STRIPES - 1)];
    }

    /**
     * @param contentBytes a record's content
     * @return the region a rewrite holding it preallocates: room for it and an empty record header,
     *         at least {@code minRegionBytes} and {@value #RECORDS_PER_REGION} times that, at most
     *         {@link DocumentRecords#MAX_REGION_BYTES}
     */
    int regionBytes(int contentBytes) {
        long need = 2L * DocumentRecords.RECORD_HEADER_BYTES + contentBytes;
        return (int) Math.max(minRegionBytes, Math.min(RECORDS_PER_REGION * need, DocumentRecords.MAX_REGION_BYTES));
    }

    @Override
    public void write(String name, byte[] content) {
        Objects.requireNonNull(content, "content");
        if (content.length > MAX_BYTES) {
            throw new IllegalArgumentException("document '" + name + "' is " + content.length + " bytes; at most "
                    + MAX_BYTES);
        }
        Path file = file(name);
        ReentrantLock lock = lock(name);
        lock.lock();
        try {
            Tail tail = tails.get(name);
            if (tail == null || !append(name, file, tail, content)) {
                rewrite(name, file, tail == null ? 1 : tail.sequence(), content);
            }
        } catch (IOException e) {
            tails.remove(name); // the next write rewrites: never append after what may not be on disk
            throw new StorageException("cannot write " + file + ": " + e, e);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Appends the next record into the file's region and forces its data.
     *
     * @return false when it does not fit or the file is gone: the caller rewrites
     */
    private boolean append(String name, Path file, Tail tail, byte[] content) throws IOException {
        long end = tail.end() + DocumentRecords.RECORD_HEADER_BYTES + content.length;
        if (end > tail.size()) {
            return false;
        }
        // an empty record header after it when there is room: a scan stops there even if a torn
        // longer record from before a crash lay beyond
        int blank = end + DocumentRecords.RECORD_HEADER_BYTES <= tail.size() ? DocumentRecords.RECORD_HEADER_BYTES : 0;
        ByteBuffer record = ByteBuffer.allocate(DocumentRecords.RECORD_HEADER_BYTES + content.length + blank);
        DocumentRecords.put(record, tail.sequence(), content);
        record.clear();
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            long at = tail.end();
            while (record.hasRemaining()) {
                at += channel.write(record, at);
            }
            files.forceData(channel, file);
        } catch (NoSuchFileException e) {
            return false;
        }
        tails.put(name, new Tail(end, tail.size(), tail.sequence() + 1));
        return true;
    }

    /** Replaces the file with a header, one record and a fresh zero region, durably. */
    private void rewrite(String name, Path file, long sequence, byte[] content) throws IOException {
        int size = DocumentRecords.HEADER_BYTES + regionBytes(content.length);
        ByteBuffer whole = ByteBuffer.allocate(size);
        whole.put(DocumentRecords.MAGIC);
        DocumentRecords.put(whole, sequence, content);
        long end = whole.position();
        whole.clear();
        files.createDirectories(dir);
        files.replace(file, whole);
        tails.put(name, new Tail(end, size, sequence + 1));
    }

    @Override
    public byte[] read(String name) {
        Path file = file(name);
        byte[] bytes = readBounded(file);
        if (bytes == null || !DocumentRecords.hasMagic(bytes)) {
            return bytes; // none, or written before the record layout: the whole file
        }
        DocumentRecords.Last last = DocumentRecords.last(bytes);
        if (last == null) {
            throw new StorageException("cannot read " + file + ": no valid record after its header (" + bytes.length
                    + " bytes)");
        }
        return Arrays.copyOfRange(bytes, last.offset(), last.end());
    }

    /** @return the file's bytes, null when it does not exist; refuses one over the layout's largest */
    private static byte[] readBounded(Path file) {
        try (SeekableByteChannel channel = Files.newByteChannel(file)) {
            long size = channel.size();
            if (size > DocumentRecords.MAX_FILE_BYTES) {
                throw new StorageException("cannot read " + file + ": " + size + " bytes, a document file is at most "
                        + DocumentRecords.MAX_FILE_BYTES);
            }
            ByteBuffer bytes = ByteBuffer.allocate((int) size);
            while (bytes.hasRemaining() && channel.read(bytes) >= 0) {
                // until full or the end
            }
            return bytes.position() == bytes.capacity() ? bytes.array() : Arrays.copyOf(bytes.array(), bytes.position());
        } catch (NoSuchFileException e) {
            return null;
        } catch (IOException e) {
            throw new StorageException("cannot read " + file + ": " + e, e);
        }
    }

    /**
     * @return the file's bytes, or null when it does not exist
     * @throws StorageException naming the file when it cannot be read
     */
    static byte[] readOrNull(Path file) {
        try {
            return Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            return null;
        } catch (IOException e) {
            throw new StorageException("cannot read " + file + ": " + e, e);
        }
    }

    @Override
    public boolean delete(String name) {
        Path file = file(name);
        ReentrantLock lock = lock(name);
        lock.lock();
        try {
            tails.remove(name);
            if (!Files.exists(file)) {
                return false;
            }
            files.delete(file);
            return true;
        } catch (IOException e) {
            throw new StorageException("cannot delete " + file + ": " + e, e);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public List<String> names() {
        try (var names = Files.list(dir)) {
            return names.map(p -> p.getFileName().toString()).filter(n -> NAME.matcher(n).matches()
                    && !n.endsWith(".tmp")).sorted().toList();
        } catch (NoSuchFileException e) {
            return List.of();
        } catch (IOException e) {
            throw new StorageException("cannot list " + dir + ": " + e, e);
        }
    }

    private Path file(String name) {
        if (name == null || !NAME.matcher(name).matches() || name.endsWith(".tmp")) {
            throw new IllegalArgumentException("document name must be letters, digits, '-', '_', '.', at most 255, "
                    + "not starting with '.' nor ending with '.tmp': name=" + name);
        }
        return dir.resolve(name);
    }
}
