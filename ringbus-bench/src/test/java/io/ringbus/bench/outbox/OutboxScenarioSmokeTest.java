package io.ringbus.bench.outbox;

import io.ringbus.bench.BenchMain;
import io.ringbus.bench.JsonReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs the outbox scenario at toy size against the machine's PostgreSQL (127.0.0.1:5432, database
 * {@code test}; {@code RINGBUS_TEST_PG_URL} overrides), so a runner that loses, double-counts or
 * leaves rows behind, or reorders a key's rows, fails the build. No speed is asserted.
 */
class OutboxScenarioSmokeTest {
    private static final String PG_URL = System.getenv().getOrDefault("RINGBUS_TEST_PG_URL",
            "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");

    @Test
    void everyPartDeliversEveryEventInKeyOrderAndDropsItsSchemas(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("outbox.json");
        long schemasBefore = benchSchemas();

        int exit = BenchMain.run("outbox", "--pg-url", PG_URL, "--producers", "2", "--producer-warmup", "0s",
                "--producer-duration", "1s", "--backlog", "3000", "--repeats", "1", "--warmup-backlog", "0", "--rate", "300",
                "--warmup", "0s", "--duration", "2s", "--window", "1s", "--http-events", "400", "--http-latency", "10ms",
                "--http-cases", "20:100,100:400", "--http-warmup-events", "0", "--timeout", "30s", "--json", json.toString());

        assertThat(exit).isZero();
        Map<?, ?> doc = (Map<?, ?>) JsonReader.parse(Files.readString(json, StandardCharsets.UTF_8));
        Map<?, ?> floor = (Map<?, ?>) doc.get("floor");
        assertThat((Double) floor.get("commits")).isPositive();
        assertThat(floor.get("claimRows")).isEqualTo(3000.0);
        List<Map<?, ?>> producers = objects(doc, "producers");
        assertThat(producers).extracting(r -> (Object) r.get("contender")).containsExactly(
                ProducerScenario.APPENDS_ALONE, RelayContender.RINGBUS_1.label(), RelayContender.RINGBUS_WAL.label(),
                RelayContender.POLLER.label(), RelayContender.GRUELBOX.label(), RelayContender.NAMASTACK.label());
        assertThat(producers).allSatisfy(r -> assertThat((Double) r.get("commits")).isPositive());
        assertThat(producers.subList(1, 6)).allSatisfy(r -> assertThat(r.get("delivered")).isEqualTo(r.get("events")));
        List<Map<?, ?>> drain = objects(doc, "drain");
        assertThat(drain).extracting(r -> (Object) r.get("contender"))
                .containsExactly(Arrays.stream(RelayContender.values()).map(RelayContender::label).toArray());
        assertThat(drain).extracting(r -> (Object) r.get("delivered")).containsOnly(3000.0);
        assertThat(drain).extracting(r -> (Object) r.get("pendingAfter")).containsOnly(0.0);
        List<Map<?, ?>> sustained = objects(doc, "sustained");
        assertThat(sustained).extracting(r -> (Object) r.get("measuredEvents")).containsExactly(600.0, 600.0, 600.0, 600.0, 600.0);
        assertThat(sustained).extracting(r -> (Object) r.get("missing")).containsOnly(0.0);
        assertThat(sustained).allSatisfy(r -> assertThat((List<?>) r.get("windows")).hasSize(2));
        // ringbus and namastack promise per-key order: a reordering would have failed their runs (verified false)
        for (String part : List.of("producers", "drain", "sustained")) {
            objects(doc, part).stream().filter(r -> RelayContender.keepsKeyOrder((String) r.get("contender"))
                            && (Double) r.get("relays") > 0)
                    .forEach(r -> assertThat(r.get("keyOrderViolations")).isEqualTo(0.0));
        }
        assertThat(objects(doc, "http")).extracting(r -> (Double) r.get("peakInFlight"))
                .allMatch(peak -> peak >= 1 && peak <= 101);
        for (String part : List.of("producers", "drain", "sustained", "http")) {
            assertThat(objects(doc, part)).extracting(r -> (Object) r.get("verified")).containsOnly(true);
        }
        assertThat(objects(doc, "goals")).extracting(g -> (Object) g.get("goal")).containsExactly("1", "2", "3a", "3b", "4");
        assertThat(benchSchemas()).isEqualTo(schemasBefore);
        // producers: floor + 6; drain: floor + 7; sustained p50/p99 x 5 and 2 windows x 5; http 2 x 2
        assertThat(count(Files.readString(dir.resolve("outbox.svg"), StandardCharsets.UTF_8), "class=\"bar\""))
                .isEqualTo(7 + 8 + 10 + 10 + 4);
    }

    @Test
    void keyOrderCheckFindsARowDeliveredAfterALaterRowOfItsKey() {
        int a = 0;
        int b = 1;
        while (EventPayload.keyIndex(b) != EventPayload.keyIndex(a)) {
            b++;
        }
        DeliveryLog log = new DeliveryLog(b + 1);
        log.appended(a, 10);
        log.appended(b, 20);
        log.delivered(b, 1);
        log.delivered(a, 2);

        assertThat(log.keyOrderViolations()).isEqualTo(1);
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

    private static List<Map<?, ?>> objects(Map<?, ?> doc, String member) {
        List<Map<?, ?>> list = new ArrayList<>();
        for (Object o : (List<?>) doc.get(member)) {
            list.add((Map<?, ?>) o);
        }
        return list;
    }

    private static int count(String text, String needle) {
        int n = 0;
        for (int at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + 1)) {
            n++;
        }
        return n;
    }
}
