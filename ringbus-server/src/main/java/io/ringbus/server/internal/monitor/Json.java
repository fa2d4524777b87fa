package io.ringbus.server.internal.monitor;

/**
 * A compact JSON writer for the monitoring responses: objects, arrays, strings, numbers,
 * booleans and {@code null}, without whitespace. Commas are placed by tracking whether the
 * current container has a member yet; the caller pairs begin/end. Not thread-safe.
 */
final class Json {
    private final StringBuilder out = new StringBuilder(1024);
    /** Bit i: the container at depth i has an element; 64 levels are far more than we nest. */
    private long nonEmpty;
    private int depth;
    private boolean afterName;

    Json beginObject() {
        return open('{');
    }

    Json endObject() {
        return close('}');
    }

    Json beginArray() {
        return open('[');
    }

    Json endArray() {
        return close(']');
    }

    Json name(String name) {
        separate();
        string(name);
        out.append(':');
        afterName = true;
        return this;
    }

    Json value(String value) {
        separate();
        if (value == null) {
            out.append("null");
        } else {
            string(value);
        }
        return this;
    }

    Json value(long value) {
        separate();
        out.append(value);
        return this;
    }

    /** NaN and infinities become {@code 0}: JSON has no such numbers, and tools expect a number. */
    Json value(double value) {
        separate();
        out.append(Double.isFinite(value) ? value : 0);
        return this;
    }

    Json value(boolean value) {
        separate();
        out.append(value);
        return this;
    }

    Json field(String name, String value) {
        return name(name).value(value);
    }

    Json field(String name, long value) {
        return name(name).value(value);
    }

    Json field(String name, double value) {
        return name(name).value(value);
    }

    Json field(String name, boolean value) {
        return name(name).value(value);
    }

    @Override
    public String toString() {
        return out.toString();
    }

    private Json open(char c) {
        separate();
        out.append(c);
        depth++;
        nonEmpty &= ~(1L << depth);
        return this;
    }

    private Json close(char c) {
        out.append(c);
        depth--;
        return this;
    }

    private void separate() {
        if (afterName) {
            afterName = false;
            return;
        }
        if (depth > 0) {
            long bit = 1L << depth;
            if ((nonEmpty & bit) != 0) {
                out.append(',');
            }
            nonEmpty |= bit;
        }
    }

    private void string(String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20 || c == '\u2028' || c == '\u2029' || c == '<') {
                        // '<': the dashboard never sees "</script>" from a subject or client name.
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }
}
