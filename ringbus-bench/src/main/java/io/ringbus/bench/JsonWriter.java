package io.ringbus.bench;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Writes a small JSON document into a string, two-space indented. Enough for benchmark reports:
 * objects, arrays, strings, numbers, booleans and {@code null}. Not thread-safe.
 *
 * <p>Usage: {@code beginObject().name("a").value(1).endObject()}; names are required inside
 * objects and forbidden inside arrays. Non-finite doubles are written as {@code null}, since JSON
 * has no NaN.
 */
public final class JsonWriter {
    private final StringBuilder out = new StringBuilder();
    /** One entry per open container: {@code true} for an object. */
    private final Deque<Boolean> objects = new ArrayDeque<>();
    /** One entry per open container: whether it has an element yet. */
    private final Deque<Boolean> nonEmpty = new ArrayDeque<>();
    private boolean afterName;

    /** Creates a writer with an empty document. */
    public JsonWriter() {
    }

    /** @return this writer, in a new object */
    public JsonWriter beginObject() {
        return open('{', true);
    }

    /** @return this writer, after closing the current object */
    public JsonWriter endObject() {
        return close('}', true);
    }

    /** @return this writer, in a new array */
    public JsonWriter beginArray() {
        return open('[', false);
    }

    /** @return this writer, after closing the current array */
    public JsonWriter endArray() {
        return close(']', false);
    }

    /**
     * @param name the member name of the value that follows
     * @return this writer
     * @throws IllegalStateException when not directly inside an object
     */
    public JsonWriter name(String name) {
        if (objects.isEmpty() || !objects.peek() || afterName) {
            throw new IllegalStateException("a name is allowed only inside an object: name='" + name + "'");
        }
        separate();
        quote(name);
        out.append(": ");
        afterName = true;
        return this;
    }

    /**
     * @param value a string or {@code null}
     * @return this writer
     */
    public JsonWriter value(String value) {
        beforeValue();
        if (value == null) {
            out.append("null");
        } else {
            quote(value);
        }
        return this;
    }

    /**
     * @param value a whole number
     * @return this writer
     */
    public JsonWriter value(long value) {
        beforeValue();
        out.append(value);
        return this;
    }

    /**
     * @param value a number; NaN and infinities become {@code null}
     * @return this writer
     */
    public JsonWriter value(double value) {
        beforeValue();
        out.append(Double.isFinite(value) ? Double.toString(value) : "null");
        return this;
    }

    /**
     * @param value a boolean
     * @return this writer
     */
    public JsonWriter value(boolean value) {
        beforeValue();
        out.append(value);
        return this;
    }

    /**
     * Writes a value as {@link JsonReader#parse} returns it, so that a parsed document can be
     * embedded in another.
     *
     * @param parsed a {@code Map} with string keys, {@code List}, {@code String}, {@code Double},
     *               {@code Boolean} or {@code null}
     * @return this writer
     * @throws IllegalArgumentException naming the type of anything else
     */
    public JsonWriter parsedValue(Object parsed) {
        switch (parsed) {
            case null -> nullValue();
            case java.util.Map<?, ?> map -> {
                beginObject();
                map.forEach((k, v) -> name(String.valueOf(k)).parsedValue(v));
                endObject();
            }
            case java.util.List<?> list -> {
                beginArray();
                list.forEach(this::parsedValue);
                endArray();
            }
            case String s -> value(s);
            case Double d -> value(d.doubleValue());
            case Boolean b -> value(b.booleanValue());
            default -> throw new IllegalArgumentException("not a parsed JSON value: type=" + parsed.getClass().getName());
        }
        return this;
    }

    /** @return this writer, after writing {@code null} */
    public JsonWriter nullValue() {
        beforeValue();
        out.append("null");
        return this;
    }

    /**
     * @return the document
     * @throws IllegalStateException when a container is still open
     */
    public String toJson() {
        if (!objects.isEmpty()) {
            throw new IllegalStateException("unclosed containers: depth=" + objects.size());
        }
        return out.append('\n').toString();
    }

    private JsonWriter open(char bracket, boolean object) {
        beforeValue();
        out.append(bracket);
        objects.push(object);
        nonEmpty.push(false);
        return this;
    }

    private JsonWriter close(char bracket, boolean object) {
        if (objects.isEmpty() || objects.peek() != object || afterName) {
            throw new IllegalStateException("nothing to close with '" + bracket + "' here");
        }
        objects.pop();
        if (nonEmpty.pop()) {
            newline();
        }
        out.append(bracket);
        return this;
    }

    private void beforeValue() {
        if (afterName) {
            afterName = false;
            return;
        }
        if (!objects.isEmpty()) {
            if (objects.peek()) {
                throw new IllegalStateException("a value inside an object needs a name first");
            }
            separate();
        } else if (!out.isEmpty()) {
            throw new IllegalStateException("a document has a single top-level value");
        }
    }

    private void separate() {
        if (nonEmpty.peek()) {
            out.append(',');
        }
        nonEmpty.pop();
        nonEmpty.push(true);
        newline();
    }

    private void newline() {
        out.append('\n');
        out.append("  ".repeat(objects.size()));
    }

    private void quote(String s) {
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
                    if (c < 0x20) {
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
