package io.ringbus.bench;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.deser.std.StdScalarDeserializer;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.std.StdScalarSerializer;

import java.io.IOException;

/**
 * The one JSON form of the scenario runner's results: every results document is a record, written
 * and read here, so that the writers, the charts and the committed files in {@code bench-results/}
 * share one schema. Thread-safe: the mapper is configured once and only used afterwards.
 *
 * <p>The format: two-space indentation, {@code "name": value}, one array element per line, members
 * in record-component order, a trailing newline. A member the record does not know fails the read
 * (a renamed field breaks the round trip instead of emptying a chart). JSON has no NaN: a
 * non-finite {@code double} is written as {@code null}, and {@code null} or an absent member reads
 * back into a {@code double} as NaN ("not measured").
 */
public final class ResultsJson {
    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(SerializationFeature.INDENT_OUTPUT)
            .defaultPrettyPrinter(printer())
            .addModule(new SimpleModule("ringbus-bench-results")
                    .addSerializer(double.class, new FiniteDoubleSerializer(double.class))
                    .addSerializer(Double.class, new FiniteDoubleSerializer(Double.class))
                    .addDeserializer(double.class, new NullAsNanDeserializer()))
            .build();

    private ResultsJson() {
    }

    /**
     * @param document a results record (or any value made of records, lists, maps, strings, numbers, booleans)
     * @return its JSON text, ending with a newline
     * @throws IllegalArgumentException when it cannot be written, naming the type
     */
    public static String write(Object document) {
        try {
            return MAPPER.writeValueAsString(document) + "\n";
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot write as JSON: type=" + document.getClass().getName()
                    + ": " + e.getOriginalMessage(), e);
        }
    }

    /**
     * @param json a JSON document
     * @param type the record it holds
     * @param <T>  the record type
     * @return the record
     * @throws IllegalArgumentException when the text is not JSON or does not fit the record, with
     *                                  Jackson's message (it names the member and the line)
     */
    public static <T> T read(String json, Class<T> type) {
        try {
            return MAPPER.readValue(json, type);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not a " + type.getSimpleName() + " document: " + e.getOriginalMessage()
                    + location(e), e);
        }
    }

    /**
     * @param json a JSON document
     * @return it as a tree, numbers as JSON wrote them
     * @throws IllegalArgumentException when the text is not JSON
     */
    public static JsonNode tree(String json) {
        try {
            return MAPPER.readTree(json);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not JSON: " + e.getOriginalMessage() + location(e), e);
        }
    }

    /**
     * @param tree a document read by {@link #tree}
     * @param type the record it holds
     * @param <T>  the record type
     * @return the record
     * @throws IllegalArgumentException when the tree does not fit the record
     */
    public static <T> T read(JsonNode tree, Class<T> type) {
        try {
            return MAPPER.treeToValue(tree, type);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not a " + type.getSimpleName() + " document: " + e.getOriginalMessage()
                    + location(e), e);
        }
    }

    private static String location(JsonProcessingException e) {
        return e.getLocation() == null || e.getLocation().getLineNr() < 0 ? "" : " (line " + e.getLocation().getLineNr() + ", column "
                + e.getLocation().getColumnNr() + ")";
    }

    /** Two-space indentation everywhere, no space before a colon, {@code []} and {@code {}} when empty. */
    private static DefaultPrettyPrinter printer() {
        DefaultIndenter indenter = new DefaultIndenter("  ", "\n");
        Separators separators = Separators.createDefaultInstance()
                .withObjectFieldValueSpacing(Separators.Spacing.AFTER)
                .withObjectEmptySeparator("")
                .withArrayEmptySeparator("");
        DefaultPrettyPrinter printer = new DefaultPrettyPrinter().withSeparators(separators);
        printer.indentObjectsWith(indenter);
        printer.indentArraysWith(indenter);
        return printer;
    }

    /** Writes NaN and the infinities as {@code null}: JSON has no number for them. */
    private static final class FiniteDoubleSerializer extends StdScalarSerializer<Double> {
        private static final long serialVersionUID = 1L;

        FiniteDoubleSerializer(Class<?> type) {
            super(type, false);
        }

        @Override
        public void serialize(Double value, JsonGenerator gen, SerializerProvider provider) throws IOException {
            if (Double.isFinite(value)) {
                gen.writeNumber(value);
            } else {
                gen.writeNull();
            }
        }
    }

    /**
     * Reads {@code null} (and an absent member) into a primitive {@code double} as NaN, the writer's
     * inverse; also the strings {@code "NaN"} and {@code "Infinity"} that JMH writes.
     */
    private static final class NullAsNanDeserializer extends StdScalarDeserializer<Double> {
        private static final long serialVersionUID = 1L;

        NullAsNanDeserializer() {
            super(double.class);
        }

        @Override
        public Double deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
            if (p.currentToken() == JsonToken.VALUE_NUMBER_INT || p.currentToken() == JsonToken.VALUE_NUMBER_FLOAT) {
                return p.getDoubleValue();
            }
            if (p.currentToken() == JsonToken.VALUE_STRING) {
                // JMH writes an unknown error as the string "NaN"
                switch (p.getText()) {
                    case "NaN" -> {
                        return Double.NaN;
                    }
                    case "Infinity" -> {
                        return Double.POSITIVE_INFINITY;
                    }
                    case "-Infinity" -> {
                        return Double.NEGATIVE_INFINITY;
                    }
                    default -> {
                    }
                }
            }
            return (Double) ctxt.handleUnexpectedToken(double.class, p);
        }

        @Override
        public Double getNullValue(DeserializationContext ctxt) {
            return Double.NaN;
        }
    }
}
