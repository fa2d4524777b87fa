package io.ringbus.core.internal.store;

import io.ringbus.core.Documents;
import io.ringbus.core.Storage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The local store's documents: replaced whole, kept across a reopen, deleted, names checked. */
class LocalDocumentsTest {
    @TempDir
    Path dir;

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void writesReadsListsAndDeletesAcrossAReopen() {
        try (Storage storage = Storage.local(dir)) {
            Documents documents = storage.documents("jetstream");
            assertThat(documents.names()).isEmpty();
            assertThat(documents.read("S.a")).isNull();
            documents.write("S.a", bytes("one"));
            documents.write("S.a", bytes("two"));
            documents.write("S.b", bytes("three"));
            assertThat(storage.documents("other").names()).isEmpty();
        }
        try (Storage storage = Storage.local(dir)) {
            Documents documents = storage.documents("jetstream");
            assertThat(documents.names()).containsExactly("S.a", "S.b");
            assertThat(documents.read("S.a")).isEqualTo(bytes("two"));
            assertThat(documents.delete("S.a")).isTrue();
            assertThat(documents.delete("S.a")).isFalse();
            assertThat(documents.names()).containsExactly("S.b");
            assertThat(Files.exists(dir.resolve("documents").resolve("jetstream").resolve("S.a.tmp"))).isFalse();
        }
    }

    @Test
    void refusesBadNamesAndSizesNamingThem() {
        try (Storage storage = Storage.local(dir)) {
            Documents documents = storage.documents("jetstream");
            assertThatThrownBy(() -> documents.write("../x", bytes("x"))).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("name=../x");
            assertThatThrownBy(() -> documents.write("a.tmp", bytes("x"))).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> documents.write("big", new byte[Documents.MAX_BYTES + 1]))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(String.valueOf(Documents.MAX_BYTES));
            assertThatThrownBy(() -> storage.documents("a/b")).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("a/b");
        }
    }
}
