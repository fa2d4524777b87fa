package io.ringbus.core.internal.store;

import io.ringbus.core.Headers;
import io.ringbus.core.StreamConfig;
import io.ringbus.core.StreamInfo;
import io.ringbus.core.wire.HeaderNames;

import java.util.Iterator;
import java.util.LinkedHashMap;

/**
 * A stream's per-key outbox ids ({@link StreamConfig#keyDedupBytes()}): for each (prefix, key) the
 * highest number stored and the sequence of the message that stored it. A message whose
 * {@code Ringbus-Event-Id} is that prefix followed by a number at or below it is a duplicate, however
 * long ago the first copy came: the outbox delivers a key's rows in id order and publishes a row only
 * once the previous one was acknowledged, so a lower number of a stored key is a redelivery.
 *
 * <p>Bounded in bytes: each key costs twice the characters of its prefix and key plus
 * {@link StreamConfig#KEY_DEDUP_ENTRY_OVERHEAD}; past the bound the least recently updated key is
 * forgotten (counted: {@link StreamInfo.KeyedIds#evicted()}), and its messages are then checked by the duplicate window only.
 *
 * <p>Not thread-safe: used under the stream's append lock (and at open, before any append).
 */
final class KeyedIds {
    /** A remembered key: immutable, so a roll can capture the map by reference ({@link #capture}). */
    record Entry(String prefix, String key, long number, long sequence) {
        long cost() {
            return 2L * (prefix.length() + key.length()) + StreamConfig.KEY_DEDUP_ENTRY_OVERHEAD;
        }

        String mapKey() {
            return KeyedIds.mapKey(prefix, key);
        }
    }

    /** A message's outbox id: the event id's prefix (everything before its trailing digits), key and number. */
    record Id(String prefix, String key, long number) {
    }

    private final long maxBytes;
    /** Least recently updated first. */
    private final LinkedHashMap<String, Entry> entries = new LinkedHashMap<>();
    private long bytes;
    private long evicted;
    private long duplicates;

    /** @param maxBytes the most bytes the keys may take, at least {@link StreamConfig#MIN_KEY_DEDUP_BYTES} */
    KeyedIds(long maxBytes) {
        if (maxBytes < StreamConfig.MIN_KEY_DEDUP_BYTES) {
            throw new IllegalArgumentException("keyDedupBytes must be at least " + StreamConfig.MIN_KEY_DEDUP_BYTES
                    + ": keyDedupBytes=" + maxBytes);
        }
        this.maxBytes = maxBytes;
    }

    /**
     * Reads a message's outbox id. Cheap when the headers do not carry one: {@link Headers#first}
     * scans the raw block without parsing it.
     *
     * @return the id, or null when the message lacks {@code Ringbus-Key} (or it is empty) or
     *         {@code Ringbus-Event-Id}, or the event id does not end in a number that fits a long
     */
    static Id parse(Headers headers) {
        if (headers == null || headers.isEmpty()) {
            return null;
        }
        String eventId = headers.first(HeaderNames.EVENT_ID);
        if (eventId == null) {
            return null;
        }
        return parse(eventId, headers.first(HeaderNames.KEY));
    }

    /** As {@link #parse(Headers)}, from the two header values (either may be null). */
    static Id parse(String eventId, String key) {
        if (eventId == null || key == null || key.isEmpty()) {
            return null;
        }
        int end = eventId.length();
        int start = end;
        while (start > 0 && eventId.charAt(start - 1) >= '0' && eventId.charAt(start - 1) <= '9') {
            start--;
        }
        if (start == end) {
            return null;
        }
        long number = 0;
        for (int i = start; i < end; i++) {
            int digit = eventId.charAt(i) - '0';
            if (number > (Long.MAX_VALUE - digit) / 10) {
                return null; // past a long: not an outbox row id, left to the duplicate window
            }
            number = number * 10 + digit;
        }
        return new Id(eventId.substring(0, start), key, number);
    }

    static String mapKey(String prefix, String key) {
        return prefix + '\0' + key; // NUL: in neither a header value nor a prefix read from one
    }

    /**
     * @return the sequence of the message that stored {@code id}'s key at a number at or above
     *         {@code id}'s (counted as a duplicate), or 0 when {@code id} is new
     */
    long duplicateOf(Id id) {
        Entry entry = entries.get(mapKey(id.prefix(), id.key()));
        if (entry == null || id.number() > entry.number()) {
            return 0;
        }
        duplicates++;
        return entry.sequence();
    }

    /**
     * Remembers that {@code sequence} stored {@code id}, unless its key holds a higher number (a
     * replay at open of a record stored while the key was forgotten); the key becomes the most
     * recently updated. Evicts the least recently updated keys while over the bound.
     */
    void remember(Id id, long sequence) {
        remember(new Entry(id.prefix(), id.key(), id.number(), sequence));
    }

    /** As {@link #remember(Id, long)}, for an entry read back from a snapshot. */
    void remember(Entry entry) {
        String mapKey = entry.mapKey();
        Entry old = entries.remove(mapKey);
        if (old != null) {
            bytes -= old.cost();
            if (old.number() >= entry.number()) {
                entry = old;
            }
        }
        long cost = entry.cost();
        if (cost > maxBytes) {
            evicted++; // larger than the whole bound: never remembered
            return;
        }
        entries.put(mapKey, entry);
        bytes += cost;
        Iterator<Entry> oldest = entries.values().iterator();
        while (bytes > maxBytes && oldest.hasNext()) {
            bytes -= oldest.next().cost();
            oldest.remove();
            evicted++;
        }
    }

    /** @return the entries, least recently updated first: an array of immutable entries, cheap to take at a roll */
    Entry[] capture() {
        return entries.values().toArray(new Entry[0]);
    }

    /** @return the figures for {@link StreamInfo} */
    StreamInfo.KeyedIds figures() {
        return new StreamInfo.KeyedIds(entries.size(), bytes, evicted, duplicates);
    }
}
