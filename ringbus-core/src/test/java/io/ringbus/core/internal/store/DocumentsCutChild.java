package io.ringbus.core.internal.store;

import io.ringbus.core.internal.log.DurableFiles;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * The process {@link DocumentsPowerCutTest} kills: writes document {@value #NAME} over and over,
 * version {@code n} being {@link #content}, with a {@value #MIN_REGION_BYTES}-byte least region so
 * that appends and rewrites both happen every few writes. Prints {@code ready} after its first
 * write and {@code w <n>} once the write of version {@code n} returned. Runs in a JVM of its own.
 *
 * <p>Arguments: {@code <dir> <first version>}.
 */
final class DocumentsCutChild {
    static final String NAME = "consumer";
    static final int MIN_REGION_BYTES = 2048;

    private DocumentsCutChild() {
    }

    /** @return the documents as every process of the test opens them */
    static LocalDocuments open(Path dir) {
        return new LocalDocuments(dir, new DurableFiles(true), MIN_REGION_BYTES);
    }

    /** @return version {@code n}: its number, then 0 to 1,199 bytes drawn from it */
    static byte[] content(long n) {
        StringBuilder text = new StringBuilder("v").append(n).append(' ');
        int extra = (int) ((n * 7919) % 1200);
        for (int i = 0; i < extra; i++) {
            text.append((char) ('a' + (n + i) % 26));
        }
        return text.toString().getBytes(StandardCharsets.US_ASCII);
    }

    /** @return the version a document holds, read from its first word */
    static long version(byte[] content) {
        String text = new String(content, StandardCharsets.US_ASCII);
        return Long.parseLong(text.substring(1, text.indexOf(' ')));
    }

    public static void main(String[] args) {
        LocalDocuments documents = open(Path.of(args[0]));
        for (long n = Long.parseLong(args[1]); ; n++) {
            documents.write(NAME, content(n));
            ChildLines.print("w " + n);
            if (n == Long.parseLong(args[1])) {
                ChildLines.print("ready");
            }
        }
    }
}
