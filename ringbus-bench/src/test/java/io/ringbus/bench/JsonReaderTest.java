package io.ringbus.bench;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class JsonReaderTest {
    @Test
    void readsBackWhatJsonWriterWrote() {
        String text = new JsonWriter().beginObject()
                .name("s").value("a \"quoted\" \\ line\nand\ttab \u0001")
                .name("n").value(-12.5e3)
                .name("l").value(42L)
                .name("b").value(true)
                .name("z").nullValue()
                .name("nan").value(Double.NaN)
                .name("a").beginArray().value(1L).beginObject().endObject().beginArray().endArray().endArray()
                .endObject().toJson();

        Map<?, ?> doc = (Map<?, ?>) JsonReader.parse(text);

        assertThat(String.join(",", doc.keySet().stream().map(String::valueOf).toList())).isEqualTo("s,n,l,b,z,nan,a");
        assertThat(doc.get("s")).isEqualTo("a \"quoted\" \\ line\nand\ttab \u0001");
        assertThat(doc.get("n")).isEqualTo(-12500.0);
        assertThat(doc.get("l")).isEqualTo(42.0);
        assertThat(doc.get("b")).isEqualTo(true);
        assertThat(doc.containsKey("z")).isTrue();
        assertThat(doc.get("z")).isNull();
        assertThat(doc.get("nan")).isNull();
        assertThat(doc.get("a")).isEqualTo(List.of(1.0, Map.of(), List.of()));
    }

    @Test
    void decodesUnicodeEscapes() {
        assertThat(JsonReader.parse("\"\\u00e9\\u20AC\\/\"")).isEqualTo("é€/");
    }

    @Test
    void rejectsWhatIsNotJsonNamingTheOffset() {
        for (String bad : List.of("", "{", "[1,]", "{\"a\" 1}", "{a:1}", "01", "+1", "1.", "NaN", "tru", "\"\\x\"",
                "\"open", "[1] 2", "\"tab\there\"")) {
            assertThatThrownBy(() -> JsonReader.parse(bad), bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("not JSON: ")
                    .hasMessageContaining("offset=");
        }
    }

    @Test
    void limitsNesting() {
        char[] open = new char[JsonReader.MAX_DEPTH + 1];
        Arrays.fill(open, '[');

        assertThatThrownBy(() -> JsonReader.parse(new String(open)))
                .hasMessageContaining("nesting deeper than " + JsonReader.MAX_DEPTH);
    }
}
