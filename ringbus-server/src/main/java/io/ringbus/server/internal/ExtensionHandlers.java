package io.ringbus.server.internal;

import io.ringbus.server.spi.RequestHandler;

import java.util.Arrays;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The subject prefixes extensions answer ({@link io.ringbus.server.spi.ExtensionContext#handle})
 * and their handlers. Every publish asks {@link #find} first, so a subject whose first character
 * starts no prefix (nearly every application subject: the extensions' start with {@code $}) costs
 * one volatile read and one character compared, whatever the number of prefixes.
 *
 * <p>Thread-safe: lookups from any event loop; registration under a lock, copy on write.
 */
public final class ExtensionHandlers {
    private final ReentrantLock lock = new ReentrantLock();
    /** The prefixes and their handlers, and the first characters of the prefixes, each once: one snapshot. */
    private volatile Table table = new Table(new Entry[0], "");

    private record Entry(String prefix, RequestHandler handler) {
    }

    private record Table(Entry[] entries, String firsts) {
    }

    /**
     * @param prefix  a subject prefix
     * @param handler its handler
     * @throws IllegalArgumentException naming the prefix when it is empty or overlaps one registered
     */
    void register(String prefix, RequestHandler handler) {
        if (prefix == null || prefix.isEmpty() || handler == null) {
            throw new IllegalArgumentException("a handler needs a subject prefix and a handler: prefix='" + prefix + "'");
        }
        if (prefix.startsWith(FilterRequest.API_PREFIX) || FilterRequest.API_PREFIX.startsWith(prefix)) {
            throw new IllegalArgumentException("prefix '" + prefix + "' overlaps the server's own API, "
                    + FilterRequest.API_PREFIX);
        }
        lock.lock();
        try {
            Entry[] entries = table.entries;
            for (Entry entry : entries) {
                if (entry.prefix.startsWith(prefix) || prefix.startsWith(entry.prefix)) {
                    throw new IllegalArgumentException("prefix '" + prefix + "' overlaps prefix '" + entry.prefix
                            + "' already handled");
                }
            }
            Entry[] next = Arrays.copyOf(entries, entries.length + 1);
            next[entries.length] = new Entry(prefix, handler);
            String firsts = table.firsts;
            table = new Table(next, firsts.indexOf(prefix.charAt(0)) < 0 ? firsts + prefix.charAt(0) : firsts);
        } finally {
            lock.unlock();
        }
    }

    /** Forgets every handler (the extensions closed). */
    void clear() {
        table = new Table(new Entry[0], "");
    }

    /** @return the handler of {@code subject}, or null when no extension answers it (the common case) */
    RequestHandler find(String subject) {
        Table current = table;
        if (subject.isEmpty() || current.firsts.indexOf(subject.charAt(0)) < 0) {
            return null;
        }
        for (Entry entry : current.entries) {
            if (subject.startsWith(entry.prefix)) {
                return entry.handler;
            }
        }
        return null;
    }
}
