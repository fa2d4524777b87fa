package io.ringbus.outbox.internal;

import io.ringbus.core.Headers;

/**
 * Stores headers in one text column: one {@code name: value} line per value, in order. Header
 * names have no ':' and values no CR/LF ({@link Headers} checks both), so the text is unambiguous.
 */
public final class HeaderCodec {
    private HeaderCodec() {
    }

    /**
     * @param headers the headers
     * @return the column text, or {@code null} when there are none
     */
    public static String encode(Headers headers) {
        if (headers.isEmpty()) {
            return null;
        }
        StringBuilder text = new StringBuilder();
        for (String name : headers.names()) {
            for (String value : headers.all(name)) {
                text.append(name).append(": ").append(value).append('\n');
            }
        }
        return text.toString();
    }

    /**
     * @param text the column text, or {@code null}
     * @return the headers
     * @throws IllegalArgumentException naming the line when the text was not written by {@link #encode}
     */
    public static Headers decode(String text) {
        if (text == null || text.isEmpty()) {
            return Headers.EMPTY;
        }
        Headers.Builder builder = Headers.builder();
        int start = 0;
        while (start < text.length()) {
            int end = text.indexOf('\n', start);
            if (end < 0) {
                end = text.length();
            }
            String line = text.substring(start, end);
            int colon = line.indexOf(':');
            if (colon <= 0) {
                throw new IllegalArgumentException("stored header line has no name: line='" + line + "'");
            }
            String value = line.substring(colon + 1);
            builder.add(line.substring(0, colon), value.startsWith(" ") ? value.substring(1) : value);
            start = end + 1;
        }
        return builder.build();
    }
}
