package io.ringbus.bench.outbox;

import io.ringbus.bench.BenchMain;
import io.ringbus.bench.ResultsJson;
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
        String text = Files.readString(json, StandardCharsets.UTF_8);
        OutboxResults doc = ResultsJson.read(text, OutboxResults.class);
        assertThat(ResultsJson.tree(ResultsJson.write(doc))).as("round trip").isEqualTo(ResultsJson.tree(text));
        OutboxResults.Floor floor = doc.floor();
        assertThat(floor.commits()).isPositive();
        assertThat(floor.claimRows()).isEqualTo(3000L);
        List<OutboxResults.ProducerRow> producers = doc.producers();
        assertThat(producers).extracting(OutboxResults.ProducerRow::contender).containsExactly(
                ProducerScenario.APPENDS_ALONE, ProducerScenario.APPENDS_ALONE_INSERT_ONLY, RelayContender.RINGBUS_1.label(),
                RelayContender.RINGBUS_WAL.label(), RelayContender.RINGBUS_LOG.label(), RelayContender.POLLER.label(),
                RelayContender.GRUELBOX.label(), RelayContender.NAMASTACK.label());
        assertThat(producers).allSatisfy(r -> assertThat(r.commits()).isPositive());
        assertThat(producers.subList(2, 8)).allSatisfy(r -> assertThat(r.delivered()).isEqualTo(r.events()));
        List<OutboxResults.DrainRow> drain = doc.drain();
        assertThat(drain).extracting(OutboxResults.DrainRow::contender)
                .containsExactly(Arrays.stream(RelayContender.values()).map(RelayContender::label).toArray(String[]::new));
        assertThat(drain).extracting(OutboxResults.DrainRow::delivered).containsOnly(3000L);
        assertThat(drain).extracting(OutboxResults.DrainRow::pendingAfter).containsOnly(0L);
        List<OutboxResults.SustainedRow> sustained = doc.sustained();
        assertThat(sustained).extracting(OutboxResults.SustainedRow::measuredEvents).containsExactly(600, 600, 600, 600, 600, 600);
        assertThat(sustained).extracting(OutboxResults.SustainedRow::missing).containsOnly(0L);
        assertThat(sustained).allSatisfy(r -> assertThat(r.windows()).hasSize(2));
        // ringbus and namastack promise per-key order: a reordering would have failed their runs (verified false)
        List<Run> runs = new ArrayList<>();
        producers.forEach(r -> runs.add(new Run(r.contender(), r.relays(), r.keyOrderViolations(), r.verified())));
        drain.forEach(r -> runs.add(new Run(r.contender(), r.relays(), r.keyOrderViolations(), r.verified())));
        sustained.forEach(r -> runs.add(new Run(r.contender(), r.relays(), r.keyOrderViolations(), r.verified())));
        runs.stream().filter(r -> RelayContender.keepsKeyOrder(r.contender()) && r.relays() > 0)
                .forEach(r -> assertThat(r.keyOrderViolations()).as(r.contender()).isZero());
        assertThat(doc.http()).extracting(OutboxResults.HttpRow::peakInFlight).allMatch(peak -> peak >= 1 && peak <= 101);
        assertThat(runs).extracting(Run::verified).containsOnly(true);
        assertThat(doc.http()).extracting(OutboxResults.HttpRow::verified).containsOnly(true);
        assertThat(doc.goals()).extracting(OutboxResults.GoalRow::goal).containsExactly("1", "2", "3a", "3b", "4");
        assertThat(benchSchemas()).isEqualTo(schemasBefore);
        // producers: floor + 8; drain: floor + 8; sustained p50/p99 x 6 and 2 windows x 6; http 2 x 2
        assertThat(count(Files.readString(dir.resolve("outbox.svg"), StandardCharsets.UTF_8), "class=\"bar\""))
                .isEqualTo(9 + 9 + 12 + 12 + 4);
    }

    @Test
    void rateSearchBisectsBetweenZeroAndTheCommitFloor(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("search.json");
        int exit = BenchMain.run("outbox", "--pg-url", PG_URL, "--only", "SEARCH", "--contenders", "RINGBUS_1",
                "--producers", "2", "--producer-warmup", "0s", "--producer-duration", "1s", "--repeats", "1",
                "--search-steps", "2", "--search-duration", "1s", "--warmup", "0s", "--window", "1s",
                "--timeout", "30s", "--json", json.toString());

        assertThat(exit).isZero();
        OutboxResults doc = ResultsJson.read(Files.readString(json, StandardCharsets.UTF_8), OutboxResults.class);
        assertThat(doc.sustained()).as("SEARCH alone runs no sustained part").isEmpty();
        assertThat(doc.search()).singleElement().satisfies(search -> {
            assertThat(search.contender()).isEqualTo(RelayContender.RINGBUS_1.label());
            assertThat(search.floorPerSecond()).isEqualTo(doc.floor().commitsPerSecond());
            List<OutboxResults.SearchStep> steps = search.steps();
            assertThat(steps).hasSize(2);
            double floor = search.floorPerSecond();
            assertThat(steps.get(0).rate()).isEqualTo(Math.round(floor / 2));
            // the second step halves the interval the first one left
            double low = steps.get(0).held() ? steps.get(0).rate() : 0;
            double high = steps.get(0).held() ? floor : steps.get(0).rate();
            assertThat(steps.get(1).rate()).isEqualTo(Math.max(1, Math.round((low + high) / 2)));
            double held = steps.stream().filter(OutboxResults.SearchStep::held)
                    .mapToDouble(OutboxResults.SearchStep::rate).max().orElse(0);
            assertThat(search.heldRate()).isEqualTo(held);
            assertThat(steps).allSatisfy(step -> assertThat(step.achievedRate()).isPositive());
        });
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

    /** What every producer, drain and sustained row says about key order and verification. */
    private record Run(String contender, int relays, long keyOrderViolations, boolean verified) {
    }

    private static int count(String text, String needle) {
        int n = 0;
        for (int at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + 1)) {
            n++;
        }
        return n;
    }
}
