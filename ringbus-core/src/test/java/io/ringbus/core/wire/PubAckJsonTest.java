package io.ringbus.core.wire;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.ringbus.core.PublishAck;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** JetStream's PubAck and error PubAck, as nats-server writes them, with strings escaped as JSON requires. */
class PubAckJsonTest {

    @Test
    void writesTheAckAndItsDuplicateForm() {
        assertThat(PubAckJson.ack(new PublishAck("ORDERS", 7, false))).isEqualTo("{\"stream\":\"ORDERS\",\"seq\":7}");
        assertThat(PubAckJson.ack(new PublishAck("ORDERS", 7, true)))
                .isEqualTo("{\"stream\":\"ORDERS\",\"seq\":7,\"duplicate\":true}");
    }

    @Test
    void writesTheErrorFormWithAndWithoutTheRefusingStream() {
        assertThat(PubAckJson.error(503, 10077, "disk full", null))
                .isEqualTo("{\"error\":{\"code\":503,\"err_code\":10077,\"description\":\"disk full\"}}");
        assertThat(PubAckJson.error(400, 10097, "header too large", "ORDERS")).isEqualTo(
                "{\"error\":{\"code\":400,\"err_code\":10097,\"description\":\"header too large\"},\"stream\":\"ORDERS\",\"seq\":0}");
    }

    @Test
    void escapesQuotesBackslashesAndControlCharacters() throws IOException {
        String odd = "a\"b\\c\nd\re\tf\u0001g\u001fh\u00e9\u2028";
        String ack = PubAckJson.ack(new PublishAck(odd, 1, false));
        String error = PubAckJson.error(503, 10077, odd, odd);
        for (String json : List.of(ack, error)) {
            for (int c = 0; c < 0x20; c++) {
                assertThat(json.indexOf(c)).as("raw control character %d in %s", c, json).isNegative();
            }
            assertThat(strings(json)).contains(odd);
        }
        assertThat(ack).contains("a\\\"b\\\\c\\nd\\re\\tf\\u0001g\\u001Fh\u00e9");
    }

    /** @return every string value of a JSON document, read back by a JSON parser */
    private static List<String> strings(String json) throws IOException {
        List<String> values = new ArrayList<>();
        try (JsonParser parser = new JsonFactory().createParser(json)) {
            for (JsonToken token = parser.nextToken(); token != null; token = parser.nextToken()) {
                if (token == JsonToken.VALUE_STRING) {
                    values.add(parser.getText());
                }
            }
        }
        return values;
    }
}
