package io.ringbus.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Parses a JSON document (RFC 8259) into plain Java values, for reading benchmark results back:
 * objects become {@code Map<String, Object>} in member order, arrays {@code List<Object>},
 * numbers {@code Double}, strings {@code String}, booleans {@code Boolean} and {@code null}
 * stays {@code null}. The collections are unmodifiable. Nesting is limited to
 * {@value #MAX_DEPTH} levels. The counterpart of {@link JsonWriter}.
 */
public final class JsonReader {
    /** Deepest nesting of objects and arrays accepted. */
    public static final int MAX_DEPTH = 256;

    private final String text;
    private int at;
    private int depth;

    private JsonReader(String text) {
        this.text = text;
    }

    /**
     * @param text a whole JSON document
     * @return its top-level value
     * @throws IllegalArgumentException when the text is not JSON; the message names the offset
     */
    public static Object parse(String text) {
        JsonReader reader = new JsonReader(text);
        Object value = reader.value();
        reader.skipSpace();
        if (reader.at != text.length()) {
            throw reader.error("end of document expected");
        }
        return value;
    }

    private Object value() {
        skipSpace();
        if (at >= text.length()) {
            throw error("a value expected");
        }
        char c = text.charAt(at);
        return switch (c) {
            case '{' -> object();
            case '[' -> array();
            case '"' -> string();
            case 't' -> literal("true", Boolean.TRUE);
            case 'f' -> literal("false", Boolean.FALSE);
            case 'n' -> literal("null", null);
            default -> number();
        };
    }

    private Map<String, Object> object() {
        enter();
        Map<String, Object> members = new LinkedHashMap<>();
        at++;
        skipSpace();
        if (peek() == '}') {
            at++;
            return leave(members);
        }
        while (true) {
            skipSpace();
            if (peek() != '"') {
                throw error("a member name expected");
            }
            String name = string();
            skipSpace();
            expect(':');
            members.put(name, value());
            skipSpace();
            char c = next();
            if (c == '}') {
                return leave(members);
            }
            if (c != ',') {
                at--;
                throw error("',' or '}' expected");
            }
        }
    }

    private List<Object> array() {
        enter();
        List<Object> items = new ArrayList<>();
        at++;
        skipSpace();
        if (peek() == ']') {
            at++;
            depth--;
            return Collections.unmodifiableList(items);
        }
        while (true) {
            items.add(value());
            skipSpace();
            char c = next();
            if (c == ']') {
                depth--;
                return Collections.unmodifiableList(items);
            }
            if (c != ',') {
                at--;
                throw error("',' or ']' expected");
            }
        }
    }

    private String string() {
        at++;
        StringBuilder out = new StringBuilder();
        while (true) {
            char c = next();
            if (c == '"') {
                return out.toString();
            }
            if (c < 0x20) {
                at--;
                throw error("control character in a string");
            }
            if (c != '\\') {
                out.append(c);
                continue;
            }
            char e = next();
            switch (e) {
                case '"', '\\', '/' -> out.append(e);
                case 'b' -> out.append('\b');
                case 'f' -> out.append('\f');
                case 'n' -> out.append('\n');
                case 'r' -> out.append('\r');
                case 't' -> out.append('\t');
                case 'u' -> {
                    if (at + 4 > text.length()) {
                        throw error("four hex digits expected");
                    }
                    try {
                        out.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
                    } catch (NumberFormatException ex) {
                        throw error("four hex digits expected");
                    }
                    at += 4;
                }
                default -> {
                    at--;
                    throw error("unknown escape '\\" + e + "'");
                }
            }
        }
    }

    private Double number() {
        int start = at;
        while (at < text.length() && "+-0123456789.eE".indexOf(text.charAt(at)) >= 0) {
            at++;
        }
        String token = text.substring(start, at);
        // Double.parseDouble also takes "1f", "0x1p3", "Infinity" and leading '+': JSON does not.
        if (!token.matches("-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?")) {
            at = start;
            throw error("a value expected");
        }
        return Double.parseDouble(token);
    }

    private Object literal(String word, Object value) {
        if (!text.startsWith(word, at)) {
            throw error("'" + word + "' expected");
        }
        at += word.length();
        return value;
    }

    private void enter() {
        if (++depth > MAX_DEPTH) {
            throw error("nesting deeper than " + MAX_DEPTH);
        }
    }

    private Map<String, Object> leave(Map<String, Object> members) {
        depth--;
        return Collections.unmodifiableMap(members);
    }

    private void expect(char c) {
        if (next() != c) {
            at--;
            throw error("'" + c + "' expected");
        }
    }

    private char peek() {
        return at < text.length() ? text.charAt(at) : '\0';
    }

    private char next() {
        if (at >= text.length()) {
            throw error("unexpected end of document");
        }
        return text.charAt(at++);
    }

    private void skipSpace() {
        while (at < text.length()) {
            char c = text.charAt(at);
            if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
                return;
            }
            at++;
        }
    }

    private IllegalArgumentException error(String what) {
        return new IllegalArgumentException("not JSON: " + what + ": offset=" + at);
    }
}
