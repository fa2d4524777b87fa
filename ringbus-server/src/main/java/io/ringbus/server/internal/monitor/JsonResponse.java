package io.ringbus.server.internal.monitor;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonFactoryBuilder;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.CharacterEscapes;
import com.fasterxml.jackson.core.io.SerializedString;
import com.fasterxml.jackson.core.util.JsonGeneratorDelegate;
import com.fasterxml.jackson.core.util.JsonRecyclerPools;

import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * The compact JSON body of one monitoring response, streamed by Jackson's {@link JsonGenerator}
 * (no whitespace; Jackson places the commas and does the escaping). A fluent face over the
 * generator so that the endpoint classes read as the documents they write; the caller pairs
 * begin/end. Not thread-safe: one instance per response, on the monitor's event loop.
 *
 * <p>Strings are escaped as JSON requires, and also {@code <} and U+2028/U+2029, so that the
 * dashboard never sees {@code </script>} from a subject or client name and the text is valid
 * JavaScript too. NaN and infinities are written as {@code 0}: JSON has no such numbers, and
 * tools expect a number.
 */
final class JsonResponse {
    /**
     * Shared by every response. Jackson's buffers come from a shared pool rather than its default
     * per-thread one: no ThreadLocal cache (STYLE rule 11), still no new buffer per response.
     */
    private static final JsonFactory FACTORY = new JsonFactoryBuilder()
            .characterEscapes(new MonitorEscapes())
            .recyclerPool(JsonRecyclerPools.sharedConcurrentDequePool())
            .build();

    private final BoundedWriter out = new BoundedWriter(BoundedWriter.MAX_CHARS);
    private final JsonGenerator gen;

    JsonResponse() {
        try {
            gen = FACTORY.createGenerator(out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    JsonResponse beginObject() {
        try {
            gen.writeStartObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    JsonResponse endObject() {
        try {
            gen.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    JsonResponse beginArray() {
        try {
            gen.writeStartArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    JsonResponse endArray() {
        try {
            gen.writeEndArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    JsonResponse name(String name) {
        try {
            gen.writeFieldName(name);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    JsonResponse value(String value) {
        try {
            gen.writeString(value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    JsonResponse value(long value) {
        try {
            gen.writeNumber(value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    /** NaN and infinities become {@code 0}: JSON has no such numbers, and tools expect a number. */
    JsonResponse value(double value) {
        try {
            if (Double.isFinite(value)) {
                gen.writeNumber(value);
            } else {
                gen.writeNumber(0);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    JsonResponse value(boolean value) {
        try {
            gen.writeBoolean(value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    JsonResponse field(String name, String value) {
        return name(name).value(value);
    }

    JsonResponse field(String name, long value) {
        return name(name).value(value);
    }

    JsonResponse field(String name, double value) {
        return name(name).value(value);
    }

    JsonResponse field(String name, boolean value) {
        return name(name).value(value);
    }

    /**
     * Writes JSON text already made (a value of another bounded response) as the next value.
     *
     * @param json one complete JSON value
     */
    JsonResponse rawValue(String json) {
        try {
            gen.writeRawValue(json);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    /** @return this response's generator for an extension to write into; closing it does nothing */
    JsonGenerator forExtension() {
        return new JsonGeneratorDelegate(gen, false) {
            @Override
            public void close() {
                // the monitor closes the document (toJson), never the extension
            }
        };
    }

    /**
     * Ends the document and hands Jackson's buffer back to the pool; call once, last.
     *
     * @return the JSON text
     */
    String toJson() {
        try {
            gen.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString();
    }

    /** JSON's escapes plus {@code <}, U+2028 and U+2029 as {@code \\uXXXX}. */
    private static final class MonitorEscapes extends CharacterEscapes {
        private static final long serialVersionUID = 1L;
        private static final SerializableString LINE_SEPARATOR = new SerializedString("\\u2028");
        private static final SerializableString PARAGRAPH_SEPARATOR = new SerializedString("\\u2029");

        private final int[] ascii;

        MonitorEscapes() {
            ascii = standardAsciiEscapesForJSON();
            ascii['<'] = ESCAPE_STANDARD;
        }

        @Override
        public int[] getEscapeCodesForAscii() {
            return ascii;
        }

        @Override
        public SerializableString getEscapeSequence(int ch) {
            return switch (ch) {
                case 0x2028 -> LINE_SEPARATOR;
                case 0x2029 -> PARAGRAPH_SEPARATOR;
                default -> null;
            };
        }
    }
}
