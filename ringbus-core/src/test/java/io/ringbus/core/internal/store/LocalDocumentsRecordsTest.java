package io.ringbus.core.internal.store;

import io.ringbus.core.Documents;
import io.ringbus.core.internal.log.DurableFiles;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The documents' append-only record layout ({@link DocumentRecords}): a write appends into the
 * preallocated region with one data force and no rename, a full region is rewritten, a reopen reads
 * the last record, a torn or garbage last record reads as the previous one, and files written before
 * the layout read whole.
 */
class LocalDocumentsRecordsTest {
    /** Offset of the second record of a file whose first record holds 3 bytes. */
    private static final int SECOND = DocumentRecords.HEADER_BYTES + DocumentRecords.RECORD_HEADER_BYTES + 3;

    @TempDir
    Path dir;

    private final List<String> events = new ArrayList<>();

    private DurableFiles files(boolean sync) {
        return new DurableFiles(sync, (operation, path) -> events.add(operation + " " + path.getFileName()));
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void appendsWithOneDataForceAndRewritesWhenTheRegionIsFull() {
        LocalDocuments documents = new LocalDocuments(dir, files(true), 0);
        Random random = new Random(31L);
        int rewrites = 0;
        for (int i = 0; i < 200; i++) {
            byte[] content = new byte[random.nextInt(300)];
            random.nextBytes(content);
            events.clear();
            documents.write("c", content);
            assertThat(documents.read("c")).isEqualTo(content);
            if (events.contains("RENAME c")) {
                rewrites++;
                assertThat(events).containsExactly("SYNC_FILE c.tmp", "RENAME c", "SYNC_DIRECTORY " + dir.getFileName());
            } else {
                assertThat(events).containsExactly("SYNC_FILE c"); // fdatasync only: no rename, no directory
            }
        }
        // a region holds 8 records of the size that opened it: most writes append
        assertThat(rewrites).isBetween(2, 100);
        assertThat(dir.resolve("c").toFile().length()).isLessThanOrEqualTo(DocumentRecords.MAX_FILE_BYTES);
    }

    @Test
    void aReopenReadsTheLastRecordAndRewritesOnItsFirstWrite() {
        LocalDocuments first = new LocalDocuments(dir, files(true));
        for (int i = 0; i < 50; i++) {
            first.write("c", bytes("state " + i));
        }
        assertThat(dir.resolve("c").toFile().length())
                .isEqualTo(DocumentRecords.HEADER_BYTES + LocalDocuments.DEFAULT_MIN_REGION_BYTES);
        LocalDocuments second = new LocalDocuments(dir, files(true));
        assertThat(second.read("c")).isEqualTo(bytes("state 49"));
        events.clear();
        second.write("c", bytes("state 50"));
        assertThat(events).contains("RENAME c"); // never appends after a tail it did not write itself
        second.write("c", bytes("state 51"));
        assertThat(new LocalDocuments(dir, files(true)).read("c")).isEqualTo(bytes("state 51"));
    }

    @Test
    void readsAFileWrittenBeforeTheRecordLayoutWhole() throws IOException {
        Files.write(dir.resolve("old"), bytes("{\"config\":{}}"));
        Files.write(dir.resolve("empty"), new byte[0]);
        LocalDocuments documents = new LocalDocuments(dir, files(true));
        assertThat(documents.read("old")).isEqualTo(bytes("{\"config\":{}}"));
        assertThat(documents.read("empty")).isEmpty();
        documents.write("old", bytes("new"));
        assertThat(new LocalDocuments(dir, files(true)).read("old")).isEqualTo(bytes("new"));
        assertThat(Arrays.copyOf(Files.readAllBytes(dir.resolve("old")), DocumentRecords.HEADER_BYTES))
                .isEqualTo(DocumentRecords.MAGIC);
    }

    @Test
    void aTornLastRecordReadsAsThePreviousOne() throws IOException {
        LocalDocuments documents = new LocalDocuments(dir, files(true));
        documents.write("c", bytes("one"));
        documents.write("c", bytes("two"));
        Path file = dir.resolve("c");
        byte[] written = Files.readAllBytes(file);
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.seek(SECOND + DocumentRecords.RECORD_HEADER_BYTES + 1); // a content byte: the crc no longer matches
            raf.write('X');
        }
        assertThat(documents.read("c")).isEqualTo(bytes("one"));
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(SECOND + 10); // cut inside the second record's header
        }
        assertThat(documents.read("c")).isEqualTo(bytes("one"));
        Files.write(file, written);
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.seek(SECOND + 8); // the sequence: no longer the next
            raf.writeLong(7);
        }
        assertThat(documents.read("c")).isEqualTo(bytes("one"));
        Files.write(file, written);
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.seek(SECOND);
            raf.writeInt(Integer.MAX_VALUE); // a length past the file's end
        }
        assertThat(documents.read("c")).isEqualTo(bytes("one"));
        Files.write(file, written);
        assertThat(documents.read("c")).isEqualTo(bytes("two"));
        // garbage in the zero region after the last record is not read
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.seek(SECOND + DocumentRecords.RECORD_HEADER_BYTES + 3);
            raf.write(new byte[] {0, 0, 0, 3, 1, 2, 3, 4, 0, 0, 0, 0, 0, 0, 0, 3, 'b', 'a', 'd'});
        }
        assertThat(documents.read("c")).isEqualTo(bytes("two"));
    }

    @Test
    void keepsEmptyAndLargestDocuments() {
        LocalDocuments documents = new LocalDocuments(dir, files(true));
        documents.write("c", new byte[0]);
        assertThat(documents.read("c")).isEmpty();
        documents.write("c", bytes("x"));
        documents.write("c", new byte[0]);
        assertThat(documents.read("c")).isEmpty();
        byte[] largest = new byte[Documents.MAX_BYTES];
        new Random(1L).nextBytes(largest);
        documents.write("c", largest);
        largest[0]++;
        documents.write("c", largest);
        assertThat(documents.read("c")).isEqualTo(largest);
        assertThat(dir.resolve("c").toFile().length()).isEqualTo(DocumentRecords.MAX_FILE_BYTES);
        documents.write("c", bytes("small"));
        assertThat(new LocalDocuments(dir, files(true)).read("c")).isEqualTo(bytes("small"));
    }

    @Test
    void forcesNothingUnderTheOsPolicy() {
        LocalDocuments documents = new LocalDocuments(dir, files(false));
        documents.write("c", bytes("one"));
        documents.write("c", bytes("two"));
        assertThat(documents.read("c")).isEqualTo(bytes("two"));
        assertThat(events).containsExactly("RENAME c");
    }

    @Test
    void aDeleteForgetsTheTailSoTheNextWriteCreatesTheFileAgain() {
        LocalDocuments documents = new LocalDocuments(dir, files(true));
        documents.write("c", bytes("one"));
        assertThat(documents.delete("c")).isTrue();
        assertThat(documents.read("c")).isNull();
        documents.write("c", bytes("two"));
        assertThat(new LocalDocuments(dir, files(true)).read("c")).isEqualTo(bytes("two"));
    }
}
