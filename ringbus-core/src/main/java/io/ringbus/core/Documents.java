package io.ringbus.core;

import java.util.List;

/**
 * Small documents kept durably by a {@link Storage} for an extension ({@link Storage#documents}):
 * each replaced whole, never seen half written, kept across restarts and crashes until deleted.
 * Thread-safe; writes of one document should come from one thread (the last write wins).
 */
public interface Documents {
    /** The largest document: 1 MiB. */
    int MAX_BYTES = Storage.MAX_METADATA_BYTES;

    /**
     * Writes a document: its content is durable (forced, and its name forced) when this returns.
     *
     * @param name    its name: letters, digits and {@code - _ .}, at most 255 characters, not starting with {@code .}
     * @param content at most {@link #MAX_BYTES}
     * @throws IllegalArgumentException naming the value when the name or size is not valid
     * @throws StorageException         when it cannot be written
     */
    void write(String name, byte[] content);

    /**
     * @param name a document's name
     * @return its content, or {@code null} when there is none
     * @throws StorageException when it cannot be read
     */
    byte[] read(String name);

    /**
     * Deletes a document, durably.
     *
     * @param name a document's name
     * @return whether it existed
     * @throws StorageException when it cannot be deleted
     */
    boolean delete(String name);

    /** @return the names of the documents, sorted */
    List<String> names();
}
