package io.ringbus.core.internal.filter;

import io.ringbus.core.Headers;

import java.util.List;
import java.util.Map;

/**
 * One key of a policy and its array of values: the key matches when any of its values matches
 * (SNS's OR within an array). For headers the key is a header name and every value of a
 * multi-valued header is tried (SNS's {@code String.Array}); for bodies it is a path of nested
 * object keys, and arrays met on the way or at the end are searched element by element.
 * {@code {"exists": true}} matches a present key, {@code {"exists": false}} an absent one; no
 * other value matches an absent key.
 *
 * <p>Threading: immutable, safe to call from any number of threads.
 */
final class KeyCondition extends PolicyCondition {
    private static final int ABSENT = 0;
    private static final int PRESENT = 1;
    private static final int MATCHED = 2;

    private final String name;
    private final String[] path;
    private final ValueMatcher[] matchers;
    private final boolean matchesIfPresent;
    private final boolean matchesIfAbsent;

    KeyCondition(String[] path, ValueMatcher[] matchers, boolean matchesIfPresent, boolean matchesIfAbsent,
                 int entries) {
        super(entries);
        this.name = path[path.length - 1];
        this.path = path;
        this.matchers = matchers;
        this.matchesIfPresent = matchesIfPresent;
        this.matchesIfAbsent = matchesIfAbsent;
    }

    @Override
    boolean matchesHeaders(Headers headers) {
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
        return false;
    }

    @Override
    boolean matchesBody(Map<?, ?> body) {
        int found = visit(body, 0);
        return found == MATCHED || (found == PRESENT ? matchesIfPresent : matchesIfAbsent);
    }

    private int visit(Object node, int depth) {
        if (depth == path.length) {
            return matchesLeaf(node) ? MATCHED : PRESENT;
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
}
