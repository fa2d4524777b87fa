package io.ringbus.core.internal.store;

import io.ringbus.core.Documents;
import io.ringbus.core.StorageException;
import io.ringbus.core.internal.log.DurableFiles;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The local store's {@link Documents}: one file per document in the area's directory, replaced
 * through {@link DurableFiles#replace} (temporary file, fsync, rename, directory fsync) and deleted
 * through {@link DurableFiles#delete} (unlink, directory fsync).
 */
final class LocalDocuments implements Documents {
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_\\-][A-Za-z0-9_.\\-]{0,254}");

    private final Path dir;
    private final DurableFiles files;

    LocalDocuments(Path dir, DurableFiles files) {
        this.dir = dir;
        this.files = files;
    }

    @Override
    public void write(String name, byte[] content) {
        Objects.requireNonNull(content, "content");
        if (content.length > MAX_BYTES) {
            throw new IllegalArgumentException("document '" + name + "' is " + content.length + " bytes; at most "
                    + MAX_BYTES);
        }
        Path file = file(name);
        try {
            files.createDirectories(dir);
            files.replace(file, ByteBuffer.wrap(content));
        } catch (IOException e) {
            throw new StorageException("cannot write " + file + ": " + e, e);
        }
    }

    @Override
    public byte[] read(String name) {
        return readOrNull(file(name));
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
        try {
            if (!Files.exists(file)) {
                return false;
            }
            files.delete(file);
            return true;
        } catch (IOException e) {
            throw new StorageException("cannot delete " + file + ": " + e, e);
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
