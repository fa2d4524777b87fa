package io.ringbus.server.internal;

import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

class ConnectOptionsTest {

    private static final String JNATS_CONNECT = "{\"lang\":\"java\",\"version\":\"2.21.1\",\"protocol\":1,"
        + "\"verbose\":false,\"pedantic\":false,\"tls_required\":false,\"echo\":true,\"headers\":true,"
        + "\"no_responders\":true,\"name\":\"app\",\"user\":\"u\",\"pass\":\"p\"}";

    @Test
    void parsesEveryKnownField() {
        ConnectOptions o = ConnectOptions.parse(JNATS_CONNECT);
        assertThat(o).isEqualTo(new ConnectOptions(false, false, false, null, "u", "p", "app", "java", "2.21.1", 1,
            true, true, true, null, null));
        ConnectOptions t = ConnectOptions.parse(
            "{\"verbose\":true,\"pedantic\":true,\"tls_required\":true,\"auth_token\":\"tok\",\"echo\":false}");
        assertThat(t.verbose()).isTrue();
        assertThat(t.pedantic()).isTrue();
        assertThat(t.tlsRequired()).isTrue();
        assertThat(t.authToken()).isEqualTo("tok");
        assertThat(t.echo()).isFalse();
    }

    @Test
    void absentAndNullFieldsKeepDefaults() {
        assertThat(ConnectOptions.parse("{}")).isEqualTo(ConnectOptions.DEFAULTS);
        assertThat(ConnectOptions.parse(" \r\n\t{ } \n")).isEqualTo(ConnectOptions.DEFAULTS);
        assertThat(ConnectOptions.parse("{\"echo\":null,\"name\":null,\"protocol\":null,\"verbose\":null}"))
            .isEqualTo(ConnectOptions.DEFAULTS);
        assertThat(ConnectOptions.DEFAULTS.echo()).isTrue();
    }

    @Test
    void readsNkeyAndSigAndIgnoresJwtAndUnknownFieldsIncludingNestedValues() {
        ConnectOptions o = ConnectOptions.parse("{\"sig\":\"abc\",\"jwt\":\"x.y.z\",\"nkey\":\"UABC\","
            + "\"future\":{\"a\":[1,-2.5e+3,true,false,null,{\"b\":[]},\"s\"],\"c\":{}},\"n\":0.5E-1,\"name\":\"n\"}");
        assertThat(o.name()).isEqualTo("n");
        // Absent verbose and pedantic take nats-server's defaults: true.
        assertThat(o).isEqualTo(new ConnectOptions(true, true, false, null, null, null, "n", null, null, 0, true,
            false, false, "UABC", "abc"));
    }

    @Test
    void decodesStringEscapes() {
        assertThat(ConnectOptions.parse("{\"name\":\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\\u00e9\\u20AC\\ud83d\\ude00\"}").name())
            .isEqualTo("a\"b\\c/d\b\f\n\r\t\u00e9\u20ac\ud83d\ude00");
        assertThat(ConnectOptions.parse("{\"name\":\"caf\u00e9\"}").name()).isEqualTo("caf\u00e9");
    }

    @Test
    void lastDuplicateKeyWins() {
        assertThat(ConnectOptions.parse("{\"name\":\"a\",\"name\":\"b\"}").name()).isEqualTo("b");
    }

    @Test
    void rejectsMalformedJsonNamingTheProblem() {
        // The syntax errors are jackson-core's, with the offset where it stopped.
        String[][] cases = {
            {"", "expected '{'"}, {"[]", "expected '{' at offset 0"}, {"{", "end-of-input: expected close marker"},
            {"{\"a\"}", "expecting a colon"}, {"{\"a\":}", "expected a valid value"},
            {"{\"a\":1,}", "expecting double-quote to start field name at offset 7"},
            {"{\"a\":1}x", "unexpected content after the object at offset 7"},
            {"{\"a\":01}", "Leading zeroes not allowed"}, {"{\"a\":1.}", "Decimal point not followed by a digit"},
            {"{\"a\":-}", "expected digit"}, {"{\"a\":1e}", "Exponent indicator not followed by a digit"},
            {"{\"a\":tru}", "Unrecognized token"}, {"{\"a\":\"x}", "expecting closing quote"},
            {"{\"a\":\"\n\"}", "CTRL-CHAR"}, {"{\"a\":\"\\x\"}", "Unrecognized character escape"},
            {"{\"a\":\"\\u12G4\"}", "expected a hex-digit"},
            {"{\"a\":\"\\u\uff21BCD\"}", "expected a hex-digit"}, {"{\"a\":[1 2]}", "expecting comma"},
            {"{\"a\":{1:2}}", "expecting double-quote to start field name"},
            {"{'a':1}", "expecting double-quote to start field name"}, {"{\"a\":1}{}", "after the object"},
            {"{\"a\":NaN}", "Non-standard token 'NaN'"},
            {"{\"a\":" + "[".repeat(40) + "]".repeat(40) + "}", "nesting deeper than 32"},
            {"{\"a\":" + "[".repeat(33) + "1" + "]".repeat(33) + "}", "nesting deeper than 32"},
        };
        for (String[] c : cases) {
            assertThatThrownBy(() -> ConnectOptions.parse(c[0])).as(c[0]).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(c[1]);
        }
        assertThatThrownBy(() -> ConnectOptions.parse(null)).isInstanceOf(IllegalArgumentException.class);
        // 32 levels below the CONNECT object are read; a value of an unknown field may be of any length.
        assertThat(ConnectOptions.parse("{\"a\":" + "[".repeat(33) + "]".repeat(33) + "}")).isEqualTo(ConnectOptions.DEFAULTS);
        assertThat(ConnectOptions.parse("{\"a\":1" + "0".repeat(5_000) + ",\"b\":\"" + "x".repeat(5_000) + "\"}"))
            .isEqualTo(ConnectOptions.DEFAULTS);
    }

    @Test
    void errorsDoNotQuoteTheInputsTokens() {
        assertThatThrownBy(() -> ConnectOptions.parse("{\"pass\":hunter2}")).isInstanceOf(IllegalArgumentException.class)
            .message().doesNotContain("hunter2").doesNotContain("unter");
    }

    @Test
    void rejectsKnownFieldsOfTheWrongType() {
        String[][] cases = {
            {"{\"verbose\":\"yes\"}", "'verbose' must be a boolean"}, {"{\"echo\":1}", "'echo' must be a boolean"},
            {"{\"name\":true}", "'name' must be a string"}, {"{\"pass\":1}", "'pass' must be a string"},
            {"{\"protocol\":\"1\"}", "'protocol' must be an integer"},
            {"{\"protocol\":1.5}", "'protocol' must be an integer"},
            {"{\"protocol\":1e2}", "'protocol' must be an integer"},
            {"{\"protocol\":99999999999}", "'protocol' must be an integer"},
        };
        for (String[] c : cases) {
            assertThatThrownBy(() -> ConnectOptions.parse(c[0])).as(c[0]).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(c[1]);
        }
        assertThat(ConnectOptions.parse("{\"protocol\":-1}").protocol()).isEqualTo(-1);
    }

    @Test
    void toStringMasksSecrets() {
        String s = ConnectOptions.parse("{\"user\":\"bob\",\"pass\":\"hunter2\",\"auth_token\":\"s3cret\"}").toString();
        assertThat(s).contains("user=bob").doesNotContain("hunter2").doesNotContain("s3cret");
    }

    /** Random and mutated inputs either parse or fail with IllegalArgumentException, nothing else. */
    @Test
    void randomInputsNeverThrowAnythingButIllegalArgument() {
        SplittableRandom random = new SplittableRandom(20240601L);
        String alphabet = "{}[]:,\"\\/ \t\r\n0123456789-+.eEtrufalsn\u00e9\u0000abcuUxyz";
        String[] seeds = {JNATS_CONNECT, "{\"a\":[1,{\"b\":\"\\u00e9\"},-0.5e-3,null]}", "{}"};
        int parsed = 0;
        for (int i = 0; i < 200_000; i++) {
            String input;
            if (random.nextBoolean()) {
                StringBuilder sb = new StringBuilder();
                int length = random.nextInt(40);
                for (int j = 0; j < length; j++) {
                    sb.append(alphabet.charAt(random.nextInt(alphabet.length())));
                }
                input = sb.toString();
            } else {
                StringBuilder sb = new StringBuilder(seeds[random.nextInt(seeds.length)]);
                for (int m = random.nextInt(1, 4); m > 0 && !sb.isEmpty(); m--) {
                    int at = random.nextInt(sb.length());
                    switch (random.nextInt(3)) {
                        case 0 -> sb.deleteCharAt(at);
                        case 1 -> sb.insert(at, alphabet.charAt(random.nextInt(alphabet.length())));
                        default -> sb.setLength(at);
                    }
                }
                input = sb.toString();
            }
            try {
                ConnectOptions.parse(input);
                parsed++;
            } catch (IllegalArgumentException expected) {
                assertThat(expected.getMessage()).startsWith("invalid CONNECT json: ");
            } catch (RuntimeException | StackOverflowError e) {
                fail("input " + input + " threw " + e, e);
            }
        }
        assertThat(parsed).as("some mutated inputs are still valid").isPositive();
    }
}
