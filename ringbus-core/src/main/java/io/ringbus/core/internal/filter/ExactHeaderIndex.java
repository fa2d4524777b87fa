package io.ringbus.core.internal.filter;

import io.ringbus.core.Headers;
import io.ringbus.core.MessageFilter;
import io.ringbus.core.wire.NatsHeaderLines;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Header filters indexed by the exact values of one header, so that routing a message to many
 * filtered subscriptions costs one lookup rather than one evaluation each (SNS-style policies such
 * as {@code {"region":["eu","us"]}} say "only these values of this header"). Built once per route
 * and event loop, then only read: {@link #lookup} finds the items whose filter can take the
 * message, allocating nothing (an ASCII NATS header block is read in place; the table hashes its
 * bytes as {@code String.hashCode} hashes text).
 *
 * <p>A filter is indexable ({@link #keyOf}) when its policy is one such header key, or an AND of
 * keys one of which is such a key; in the latter case, an item found still has its whole filter
 * tested ({@link Key#whole()} is {@code false}).
 *
 * <p>Threading: immutable once built; {@link #lookup} is safe from any thread.
 */
public final class ExactHeaderIndex {
    /** {@link #lookup}'s answer when the header has several values: test every item's filter instead. */
    public static final Object[] SEVERAL_VALUES = new Object[0];
    private static final Object[] NONE = new Object[0];

    private final String header;
    private final byte[] asciiHeader;
    private final String[] keys;
    private final byte[][] asciiKeys;
    private final int[] hashes;
    private final Object[][] items;
    private final int mask;

    private ExactHeaderIndex(String header, Map<String, List<Object>> byValue) {
        this.header = header;
        this.asciiHeader = NatsHeaderLines.asciiName(header);
        int capacity = Integer.highestOneBit(Math.max(2, byValue.size() * 2 - 1)) << 1;
        this.keys = new String[capacity];
        this.asciiKeys = new byte[capacity][];
        this.hashes = new int[capacity];
        this.items = new Object[capacity][];
        this.mask = capacity - 1;
        for (Map.Entry<String, List<Object>> entry : byValue.entrySet()) {
            String key = entry.getKey();
            int slot = key.hashCode() & mask;
            while (keys[slot] != null) {
                slot = (slot + 1) & mask;
            }
            keys[slot] = key;
            hashes[slot] = key.hashCode();
            asciiKeys[slot] = ValueMatcher.ascii(key);
            items[slot] = entry.getValue().toArray();
        }
    }

    /**
     * How a filter can be indexed.
     *
     * @param header the header whose exact values decide
     * @param values the values that can be taken
     * @param whole  whether taking one of the values is the whole filter (no other key to test)
     */
    public record Key(String header, String[] values, boolean whole) {
    }

    /** @return how {@code filter} can be indexed, or {@code null} when it cannot */
    public static Key keyOf(MessageFilter filter) {
        if (!(filter instanceof HeaderPolicyFilter policy)) {
            return null;
        }
        if (policy.root instanceof KeyCondition key && key.exactHeader() != null) {
            return new Key(key.exactHeader(), key.exactValues(), true);
        }
        if (policy.root instanceof AllOf all) {
            for (PolicyCondition part : all.parts()) {
                if (part instanceof KeyCondition key && key.exactHeader() != null) {
                    return new Key(key.exactHeader(), key.exactValues(), false);
                }
            }
        }
        return null;
    }

    /** Collects items by value for one header, then {@link #build}s the index. */
    public static final class Builder {
        private final String header;
        private final Map<String, List<Object>> byValue = new LinkedHashMap<>();

        /** @param header the header the index looks up */
        public Builder(String header) {
            this.header = header;
        }

        /** @param key an item's key (its header is this builder's) @param item the item @return this */
        public Builder add(Key key, Object item) {
            for (String value : key.values()) {
                List<Object> list = byValue.computeIfAbsent(value, v -> new ArrayList<>());
                if (!list.contains(item)) {
                    list.add(item);
                }
            }
            return this;
        }

        /** @return the index */
        public ExactHeaderIndex build() {
            return new ExactHeaderIndex(header, byValue);
        }
    }

    /** @return the header the index looks up */
    public String header() {
        return header;
    }

    /**
     * @param headers a message's headers
     * @return the items whose value the message's one value of the header is (empty when it has
     *         none or no item wants it), or {@link #SEVERAL_VALUES}
     */
    public Object[] lookup(Headers headers) {
        byte[] block = headers.natsBlock();
        if (block != null && NatsHeaderLines.isAscii(block)) {
            if (asciiHeader == null) {
                return NONE;
            }
            long value = NatsHeaderLines.first(block, asciiHeader);
            if (value < 0) {
                return NONE;
            }
            if (NatsHeaderLines.next(block, value, asciiHeader) >= 0) {
                return SEVERAL_VALUES;
            }
            return find(block, NatsHeaderLines.start(value), NatsHeaderLines.end(value));
        }
        if (headers == Headers.EMPTY) {
            return NONE;
        }
        List<String> values = headers.all(header);
        int count = values.size();
        return count == 0 ? NONE : count > 1 ? SEVERAL_VALUES : find(values.get(0));
    }

    private Object[] find(String value) {
        int hash = value.hashCode();
        for (int slot = hash & mask; keys[slot] != null; slot = (slot + 1) & mask) {
            if (hashes[slot] == hash && keys[slot].equals(value)) {
                return items[slot];
            }
        }
        return NONE;
    }

    private Object[] find(byte[] block, int from, int to) {
        int hash = 0;
        for (int i = from; i < to; i++) {
            hash = 31 * hash + (block[i] & 0xff);
        }
        for (int slot = hash & mask; keys[slot] != null; slot = (slot + 1) & mask) {
            byte[] key = asciiKeys[slot];
            if (hashes[slot] == hash && key != null && key.length == to - from
                    && java.util.Arrays.equals(block, from, to, key, 0, key.length)) {
                return items[slot];
            }
        }
        return NONE;
    }

    @Override
    public String toString() {
        return "ExactHeaderIndex{header=" + header + '}';
    }
}
