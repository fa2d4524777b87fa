package io.ringbus.core.internal.store;

import io.ringbus.core.StreamConfig;
import io.ringbus.core.internal.log.DurableFiles;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A stream's {@code subjects} file: the patterns it stores, one line of UTF-8 each, so that a stream
 * is not reopened for other patterns by mistake. Written through {@link DurableFiles#replace}
 * (temporary file, forced, renamed, directory forced).
 *
 * <p>The pattern is also in the configuration that opens the stream, so a file a crash left
 * damaged (empty, zero-filled, torn before its newline, not UTF-8: what a power loss leaves of a
 * file written without an {@code fsync}, as before this class) is rewritten from it, logged at
 * WARN and counted, never a refusal to start: the records are in the log, not in this file.
 */
final class StreamSubjectsFile {
    /** The file's name in the stream's directory. */
    static final String NAME = "subjects";

    private StreamSubjectsFile() {
    }

    /**
     * Writes the file when missing or damaged; checks the stream stores {@code config}'s pattern.
     *
     * @param file   the stream's {@code subjects} file
     * @param config the configuration that opens it
     * @param files  the store's file discipline
     * @throws IllegalArgumentException when the file holds another pattern
     * @throws IOException              when it cannot be read or written
     */
    static void check(Path file, StreamConfig config, DurableFiles files) throws IOException {
        String expected = String.join("\n", config.subjects());
        if (!Files.exists(file)) {
            write(file, expected, files);
            return;
        }
        byte[] bytes = Files.readAllBytes(file);
        String content = decode(bytes);
        String damage = damage(content, bytes.length, expected);
        if (damage != null) {
            write(file, expected, files);
            files.repaired(file, damage + " (left by a crash): rewritten from the configuration of stream '"
                    + config.name() + "': '" + expected + "'");
            return;
        }
        String stored = content.trim();
        if (!stored.equals(expected)) {
            throw new IllegalArgumentException("stream '" + config.name() + "' stores '" + stored + "', not '"
                    + expected + "' (" + file + "; open it with the pattern it stores, or delete the stream's"
                    + " directory to drop its records)");
        }
    }

    /** @return what is wrong with the content, or null when it is a whole line */
    private static String damage(String content, int length, String expected) {
        if (content == null) {
            return "not UTF-8 (" + length + " bytes)";
        }
        if (content.isBlank()) {
            return "empty (" + length + " bytes)";
        }
        if (content.indexOf('\0') >= 0) {
            return "zero-filled (" + length + " bytes)";
        }
        if (!content.endsWith("\n") && (expected + "\n").startsWith(content) && !content.equals(expected)) {
            return "torn: '" + content + "' without its newline";
        }
        return null;
    }

    /** @return the bytes as strict UTF-8, or null when they are not */
    private static String decode(byte[] bytes) {
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }

    /** Writes the file for {@code config}'s patterns (a reconfigured stream's, before it opens with them). */
    static void rewrite(Path file, StreamConfig config, DurableFiles files) throws IOException {
        write(file, String.join("\n", config.subjects()), files);
    }

    private static void write(Path file, String subjects, DurableFiles files) throws IOException {
        files.replace(file, ByteBuffer.wrap((subjects + "\n").getBytes(StandardCharsets.UTF_8)));
    }
}
