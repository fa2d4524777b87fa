package io.ringbus.bench.storage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * A fresh directory for one run of the storage scenario, deleted with everything in it on
 * {@link #close()}: each run starts from an empty store, and a run's files (and their dirty pages,
 * which deleting drops) do not weigh on the next one. Not thread-safe.
 */
final class ScratchDirectory implements AutoCloseable {
    private final Path path;

    private ScratchDirectory(Path path) {
        this.path = path;
    }

    /**
     * @param parent where to create it
     * @param prefix the start of its name
     * @return the new, empty directory
     * @throws IOException when it cannot be created
     */
    static ScratchDirectory create(Path parent, String prefix) throws IOException {
        Files.createDirectories(parent);
        return new ScratchDirectory(Files.createTempDirectory(parent, prefix));
    }

    /** @return the directory */
    Path path() {
        return path;
    }

    /**
     * @param dir a directory or file
     * @return its size on disk in bytes, the files under it summed
     * @throws IOException when it cannot be read
     */
    static long bytesUnder(Path dir) throws IOException {
        long[] total = {0};
        Files.walkFileTree(dir, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                total[0] += attrs.size();
                return FileVisitResult.CONTINUE;
            }
        });
        return total[0];
    }

    /**
     * Deletes a tree, files first.
     *
     * @param root the directory; nothing happens when it does not exist
     * @throws UncheckedIOException when something cannot be deleted
     */
    static void deleteTree(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try {
            Files.walkFileTree(root, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    Files.deleteIfExists(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                    if (e instanceof NoSuchFileException) {
                        return FileVisitResult.CONTINUE;
                    }
                    throw e;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
                    Files.deleteIfExists(dir);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + root + ": " + e, e);
        }
    }

    /** Deletes the directory and everything in it. */
    @Override
    public void close() {
        deleteTree(path);
    }
}
