package io.ringbus.core.internal.store;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * A power-cut child's stdout: one {@code write} per line, so that a line is whole on the pipe
 * (atomic under 4 KiB) when the process is killed, and a line the test reads was printed after what
 * it reports happened. Thread-safe.
 */
final class ChildLines {
    private static final FileOutputStream OUT = new FileOutputStream(FileDescriptor.out);

    private ChildLines() {
    }

    /** Writes {@code line} and a newline in one {@code write}. */
    static void print(String line) {
        try {
            OUT.write((line + "\n").getBytes(StandardCharsets.US_ASCII));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
