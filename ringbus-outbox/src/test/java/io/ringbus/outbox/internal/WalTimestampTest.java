package io.ringbus.outbox.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The WAL relay's own reading of PostgreSQL's UTC {@code timestamptz} text against the formatter's. */
class WalTimestampTest {
    @Test
    void readsEveryPrecisionPostgreSqlPrintsAsTheFormatterDoes() {
        assertThat(WalRelayLoop.timestamp("2026-11-28 00:15:12.123456+00")).isEqualTo(Instant.parse("2026-11-28T00:15:12.123456Z"));
        assertThat(WalRelayLoop.timestamp("2026-11-28 00:15:12+00")).isEqualTo(Instant.parse("2026-11-28T00:15:12Z"));
        assertThat(WalRelayLoop.timestamp("2024-02-29 23:59:59.5+00")).isEqualTo(Instant.parse("2024-02-29T23:59:59.500Z"));
        assertThat(WalRelayLoop.timestamp("1969-12-31 23:59:59.000001+00")).isEqualTo(Instant.parse("1969-12-31T23:59:59.000001Z"));
        Random random = new Random(31);
        for (int i = 0; i < 10_000; i++) {
            Instant instant = Instant.ofEpochSecond(random.nextLong(-2_000_000_000L, 8_000_000_000L), random.nextInt(1_000_000) * 1_000);
            String text = OffsetDateTime.ofInstant(instant, ZoneOffset.UTC).toString().replace('T', ' ').replace("Z", "+00");
            if (text.length() < 22) { // toString() leaves out zero seconds; PostgreSQL prints them
                text = text.replace("+00", ":00+00");
            }
            assertThat(WalRelayLoop.timestamp(text)).as(text).isEqualTo(instant);
        }
    }

    @Test
    void otherShapesGoToTheFormatterAndNonsenseIsRefused() {
        assertThat(WalRelayLoop.timestamp("2026-11-28 05:45:12+05:30")).isEqualTo(Instant.parse("2026-11-28T00:15:12Z"));
        assertThatThrownBy(() -> WalRelayLoop.timestamp("2026-11-28 0x:15:12+00")).isInstanceOf(DateTimeParseException.class);
    }
}
