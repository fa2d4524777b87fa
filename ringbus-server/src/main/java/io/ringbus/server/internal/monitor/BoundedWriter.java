package io.ringbus.server.internal.monitor;

import java.io.Writer;

/**
 * Where a monitoring response is written: a {@link StringBuilder} that refuses to grow past a
 * bound, so that a query over a large server (a {@code /connz?subs=detail} of a hundred thousand
 * long subjects) is answered 400, naming the bound and how to narrow the query, instead of
 * building a document the heap cannot hold. Not thread-safe: one per response.
 */
final class BoundedWriter extends Writer {
    /**
     * The largest response, in characters: a thirty-second of the maximum heap, at least 1 MiB (the
     * text, Jackson's buffer and the response's bytes are held together while it is sent).
     */
    static final int MAX_CHARS = (int) Math.min(Integer.MAX_VALUE - 16,
            Math.max(1L << 20, Runtime.getRuntime().maxMemory() / 32));

    private final StringBuilder text = new StringBuilder(1024);
    private final int limit;

    /** @param limit the most characters this response may hold */
    BoundedWriter(int limit) {
        this.limit = limit;
    }

    @Override
    public void write(char[] chars, int offset, int length) {
        if (text.length() + (long) length > limit) {
            throw new IllegalArgumentException("the response would pass " + limit + " characters (a thirty-second of"
                    + " the heap): ask for less with limit and offset, or without subs (/connz, /subsz) or consumers and"
                    + " config (/jsz)");
        }
        text.append(chars, offset, length);
    }

    @Override
    public void flush() {
    }

    @Override
    public void close() {
    }

    @Override
    public String toString() {
        return text.toString();
    }
}
