package io.ringbus.bench.outbox;

import io.ringbus.bench.BenchMain;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs the outbox scenario at toy size against the machine's PostgreSQL (127.0.0.1:5432, database
 * {@code test}; {@code RINGBUS_TEST_PG_URL} overrides), so a runner that loses, double-counts or
 * leaves rows behind fails the build. No speed is asserted.
 */
class OutboxScenarioSmokeTest {
    private static final String PG_URL = System.getenv().getOrDefault("RINGBUS_TEST_PG_URL",
            "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");

    @Test
    void everyContenderDeliversEveryEventAndDropsItsSchemas(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("outbox.json");
        long schemasBefore = benchSchemas();

        int exit = BenchMain.run("outbox", "--pg-url", PG_URL, "--backlog", "3000", "--naive-backlog", "1500",
                "--warmup-backlog", "0", "--rate", "300", "--warmup", "0s", "--duration", "2s",
                "--http-events", "400", "--http-latency", "10ms", "--http-cases", "20:100,100:400",
                "--http-warmup-events", "0", "--timeout", "30s", "--json", json.toString());

        assertThat(exit).isZero();
        String text = Files.readString(json, StandardCharsets.UTF_8);
        for (RelayContender contender : RelayContender.values()) {
            assertThat(text).contains("\"contender\": \"" + contender.label() + "\"");
        }
        assertThat(count(text, "\"verified\": true")).isEqualTo(3 + 3 + 2);
        assertThat(text).doesNotContain("\"verified\": false");
        assertThat(values(text, "delivered")).containsExactly(3000L, 3000L, 1500L);
        assertThat(values(text, "pendingAfter")).containsOnly(0L);
        assertThat(values(text, "measuredEvents")).containsOnly(600L);
        assertThat(values(text, "missing")).containsOnly(0L);
        assertThat(values(text, "peakInFlight")).allMatch(peak -> peak >= 1 && peak <= 101);
        assertThat(benchSchemas()).isEqualTo(schemasBefore);
        // one throughput bar per contender, p50 and p99 per contender, elapsed and ideal per HTTP case
        assertThat(count(Files.readString(dir.resolve("outbox.svg"), StandardCharsets.UTF_8), "class=\"bar\""))
                .isEqualTo(3 + 2 * 3 + 2 * 2);
    }

    @Test
    void deliveryLogCountsDuplicatesAndStrangersApart() {
        DeliveryLog log = new DeliveryLog(3);
        log.committed(0, 100);
        log.committed(1, 100);
        log.delivered(0, 2_100);
        log.delivered(1, 50);
        log.delivered(1, 60);
        log.delivered(7, 60);

        assertThat(log.distinct()).isEqualTo(2);
        assertThat(log.duplicates()).isEqualTo(1);
        assertThat(log.strangers()).isEqualTo(1);
        assertThat(log.awaitDistinct(3, 1_000_000)).isFalse();
        assertThat(log.deliveredBeforeCommitReturned(0, 3)).isEqualTo(1);
        assertThat(log.latencyMicros(0, 3).getMaxValue()).isEqualTo(2);
    }

    @Test
    void payloadCarriesItsSequenceAndKeysSpreadOverAllAggregates() {
        assertThat(EventPayload.sequence(EventPayload.encode(123_456))).isEqualTo(123_456);
        assertThat(EventPayload.encode(0)).hasSize(EventPayload.BYTES);
        java.util.Set<String> keys = new java.util.HashSet<>();
        for (int i = 0; i < 20_000; i++) {
            keys.add(EventPayload.key(i));
        }
        assertThat(keys).hasSize(EventPayload.KEYS);
    }

    private static long benchSchemas() throws Exception {
        try (Connection c = DriverManager.getConnection(PG_URL); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM information_schema.schemata"
                     + " WHERE schema_name LIKE 'bench\\_%'")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static java.util.List<Long> values(String json, String name) {
        java.util.List<Long> values = new java.util.ArrayList<>();
        Matcher m = Pattern.compile("\"" + name + "\": (\\d+)").matcher(json);
        while (m.find()) {
            values.add(Long.parseLong(m.group(1)));
        }
        return values;
    }

    private static int count(String text, String needle) {
        int n = 0;
        for (int at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + 1)) {
            n++;
        }
        return n;
    }
}
