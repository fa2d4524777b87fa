package io.ringbus.core.internal.filter;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/** DecimalText reads JSON-style decimals as Double.parseDouble does, and nothing else. */
class DecimalTextTest {

    @ParameterizedTest
    @ValueSource(strings = {"0", "-0", "7", "-42", "+42", "007", "3.25", "-0.001", ".5", "1e2", "1E+2", "2.5e-3",
            "-1.5E10", "123456789012345", "0.1", "0.30000000000000004", "9007199254740993", "1e22", "1e23",
            "1e-22", "1e-300", "12345678901234567890123", "4.9e-324", "1.7976931348623157e308"})
    void readsNumbersAsParseDoubleDoes(String text) {
        assertThat(DecimalText.parse(text)).isEqualTo(Double.parseDouble(text));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "-", "+", ".", "1.", "e5", "1e", "1e+", "abc", "1a", "1.2.3", " 1", "1 ", "0x10", "NaN",
            "Infinity", "1d", "1f", "--1", "1_000", "1,5"})
    void anythingElseIsNaN(String text) {
        assertThat(DecimalText.parse(text)).isNaN();
    }
}
