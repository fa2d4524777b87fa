package io.ringbus.core.internal.filter;

import io.ringbus.core.Headers;
import io.ringbus.core.wire.NatsHeaderLines;

import java.util.List;
import java.util.Map;

/**
 * One key of a policy and its array of values: the key matches when any entry of the array
 * matches (SNS's OR within an array). For headers the key is a header name and a multi-valued
 * header (SNS's {@code String.Array}) matches an entry when any of its values does; for bodies it
 * is a path of nested object keys, and arrays met on the way or at the end are searched element
 * by element. {@code anything-but} is the exception, as in SNS: it matches when none of the
 * values is excluded (and there is at least one). {@code {"exists": true}} matches a present key
 * (in a body: with a non-null value), {@code {"exists": false}} an absent one; no other entry
 * matches an absent key.
 *
 * <p>Threading: immutable, safe to call from any number of threads.
 */
final class KeyCondition extends PolicyCondition {
    private static final int ABSENT = 0;
    private static final int PRESENT = 1;
    private static final int MATCHED = 2;

    private final String name;
    /** The name's bytes for reading a NATS block in place; {@code null} when no header can have it. */
    private final byte[] asciiName;
    private final String[] path;
    private final ValueMatcher[] matchers;
    private final ValueMatcher[] exclusions;
    private final boolean matchesIfPresent;
    private final boolean matchesIfAbsent;

    /**
     * @param path             the header name (one element) or the body path
     * @param matchers         entries any value may match
     * @param exclusions       {@code anything-but} entries, which every value must pass
     * @param matchesIfPresent whether there is {@code {"exists": true}}
     * @param matchesIfAbsent  whether there is {@code {"exists": false}}
     * @param entries          how many entries the key's array has
     */
    KeyCondition(String[] path, ValueMatcher[] matchers, ValueMatcher[] exclusions, boolean matchesIfPresent,
                 boolean matchesIfAbsent, int entries) {
        super(entries);
        this.name = path[path.length - 1];
        this.asciiName = NatsHeaderLines.asciiName(name);
        this.path = path;
        this.matchers = matchers;
        this.exclusions = exclusions;
        this.matchesIfPresent = matchesIfPresent;
        this.matchesIfAbsent = matchesIfAbsent;
    }

    /**
     * @return the header name when this key matches exactly the headers with one of
     *         {@link #exactValues()} (only exact text entries), else {@code null}
     */
    String exactHeader() {
        if (path.length != 1 || exclusions.length > 0 || matchesIfPresent || matchesIfAbsent || matchers.length == 0) {
            return null;
        }
        for (ValueMatcher matcher : matchers) {
            if (!(matcher instanceof ValueMatcher.ExactText)) {
                return null;
            }
        }
        return name;
    }

    /** @return the exact texts of the entries; meaningful when {@link #exactHeader()} is not null */
    String[] exactValues() {
        String[] values = new String[matchers.length];
        for (int i = 0; i < matchers.length; i++) {
            values[i] = ((ValueMatcher.ExactText) matchers[i]).expected();
        }
        return values;
    }

    @Override
    boolean matchesHeaders(Headers headers, byte[] asciiBlock) {
        if (asciiBlock != null) {
            return matchesBlock(asciiBlock);
        }
        List<String> values = headers.all(name);
        int count = values.size();
        if (count == 0) {
            return matchesIfAbsent;
        }
        if (matchesIfPresent) {
            return true;
        }
        ValueMatcher[] local = matchers;
        for (int i = 0; i < count; i++) {
            String value = values.get(i);
            for (ValueMatcher matcher : local) {
                if (matcher.matchesText(value)) {
                    return true;
                }
            }
        }
        for (ValueMatcher exclusion : exclusions) {
            if (everyValuePasses(values, count, exclusion)) {
                return true;
            }
        }
        return false;
    }

    private static boolean everyValuePasses(List<String> values, int count, ValueMatcher exclusion) {
        for (int i = 0; i < count; i++) {
            if (!exclusion.matchesText(values.get(i))) {
                return false;
            }
        }
        return true;
    }

    /** {@link #matchesHeaders} over a NATS block's lines, read in place. */
    private boolean matchesBlock(byte[] block) {
        byte[] key = asciiName;
        long first = key == null ? -1 : NatsHeaderLines.first(block, key);
        if (first < 0) {
            return matchesIfAbsent;
        }
        if (matchesIfPresent) {
            return true;
        }
        for (long value = first; value >= 0; value = NatsHeaderLines.next(block, value, key)) {
            int from = NatsHeaderLines.start(value);
            int to = NatsHeaderLines.end(value);
            for (ValueMatcher matcher : matchers) {
                if (matcher.matchesAscii(block, from, to)) {
                    return true;
                }
            }
        }
        for (ValueMatcher exclusion : exclusions) {
            boolean every = true;
            for (long value = first; value >= 0 && every; value = NatsHeaderLines.next(block, value, key)) {
                every = exclusion.matchesAscii(block, NatsHeaderLines.start(value), NatsHeaderLines.end(value));
            }
            if (every) {
                return true;
            }
        }
        return false;
    }

    @Override
    boolean matchesBody(Map<?, ?> body) {
        int found = visit(body, 0);
        if (found == MATCHED || (found == PRESENT ? matchesIfPresent : matchesIfAbsent)) {
            return true;
        }
        for (ValueMatcher exclusion : exclusions) {
            if (every(body, 0, exclusion) == MATCHED) {
                return true;
            }
        }
        return false;
    }

    /** @return MATCHED when a value matches, else PRESENT when a non-null value is there, else ABSENT */
    private int visit(Object node, int depth) {
        if (depth == path.length) {
            return matchesLeaf(node) ? MATCHED : node == null ? ABSENT : PRESENT;
        }
        if (node instanceof Map<?, ?> object) {
            String key = path[depth];
            return object.containsKey(key) ? visit(object.get(key), depth + 1) : ABSENT;
        }
        if (node instanceof List<?> array) {
            int best = ABSENT;
            for (Object element : array) {
                best = Math.max(best, visit(element, depth));
                if (best == MATCHED) {
                    break;
                }
            }
            return best;
        }
        return ABSENT;
    }

    private boolean matchesLeaf(Object value) {
        if (value instanceof List<?> array) {
            for (Object element : array) {
                if (matchesLeaf(element)) {
                    return true;
                }
            }
            return false;
        }
        for (ValueMatcher matcher : matchers) {
            if (matcher.matchesValue(value)) {
                return true;
            }
        }
        return false;
    }

    /** @return MATCHED when every value on the path passes, PRESENT when one fails, ABSENT when there is none */
    private int every(Object node, int depth, ValueMatcher exclusion) {
        if (depth == path.length && !(node instanceof List<?>)) {
            return exclusion.matchesValue(node) ? MATCHED : PRESENT;
        }
        if (node instanceof List<?> array) {
            int result = ABSENT;
            for (Object element : array) {
                int one = every(element, depth, exclusion);
                if (one == PRESENT) {
                    return PRESENT;
                }
                result = Math.max(result, one);
            }
            return result;
        }
        if (node instanceof Map<?, ?> object && object.containsKey(path[depth])) {
            return every(object.get(path[depth]), depth + 1, exclusion);
        }
        return ABSENT;
    }
}
