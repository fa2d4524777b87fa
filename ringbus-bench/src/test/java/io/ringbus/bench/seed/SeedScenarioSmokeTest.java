package io.ringbus.bench.seed;

import io.ringbus.bench.BenchMain;
import io.ringbus.bench.ResultsJson;
import io.ringbus.core.WaitStrategy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Runs the seed scenario at toy size, so a broken runner or contender fails the build. */
class SeedScenarioSmokeTest {
    private static final SeedWorkload TINY = new SeedWorkload(2, 2_000, 5, 4);

    @Test
    void everyContenderVerifiesAndAppearsInTheJsonAndTheChart(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("seed.json");

        int exit = BenchMain.run("seed", "--producers", "2", "--events", "2000", "--warmup", "1", "--rounds", "1",
                "--wait-strategy", "BLOCKING", "--timeout", "30s", "--json", json.toString());

        assertThat(exit).isZero();
        String text = Files.readString(json, StandardCharsets.UTF_8);
        for (String name : ContenderKind.labels()) {
            assertThat(text).contains("\"name\": \"" + name + "\"");
        }
        assertThat(count(text, "\"verified\": true")).isEqualTo(ContenderKind.values().length);
        assertThat(text).contains("\"dispatchesPerRound\": 16000");
        String svg = Files.readString(dir.resolve("seed.svg"), StandardCharsets.UTF_8);
        assertThat(count(svg, "class=\"bar\"")).isEqualTo(ContenderKind.values().length);
        for (String name : ContenderKind.labels()) {
            assertThat(svg).contains(">" + name + "</text>");
        }
    }

    @Test
    void roundThatLosesAnEventFails() {
        SeedRound round = new SeedRound(new SeedPayloads(TINY), WaitStrategy.BLOCKING, Duration.ofSeconds(2));

        assertThatThrownBy(() -> round.run(new DroppingContender(ContenderKind.LOCK_QUEUE.create(), 1_234)))
                .isInstanceOf(SeedVerificationException.class)
                .hasMessageContaining("timed out");
    }

    @Test
    void roundThatDeliversTwiceFails() {
        SeedRound round = new SeedRound(new SeedPayloads(TINY), WaitStrategy.BLOCKING, Duration.ofSeconds(10));

        assertThatThrownBy(() -> round.run(new DuplicatingContender(ContenderKind.LOCK_QUEUE.create(), 777)))
                .isInstanceOf(SeedVerificationException.class)
                .hasMessageContaining("duplicates=1");
    }

    @Test
    void reportComparesWithTheBaseline() throws Exception {
        PrintStream quiet = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        SeedRunner runner = new SeedRunner(TINY, WaitStrategy.BLOCKING, 0, 2, Duration.ofSeconds(30), quiet);

        List<ContenderResult> results = runner.run(List.of(ContenderKind.DISRUPTOR_INLINE, ContenderKind.LOCK_QUEUE));

        SeedReport report = new SeedReport(io.ringbus.bench.JvmDescription.current(), TINY, WaitStrategy.BLOCKING,
                0, 2, results);
        assertThat(report.table()).contains("disruptor-inline").contains("1.00").contains("lock-queue");
        assertThat(ResultsJson.write(report.document())).contains("\"ratioToBaseline\": 1.0");
    }

    private static int count(String text, String needle) {
        int n = 0;
        for (int at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + 1)) {
            n++;
        }
        return n;
    }

    /** Forwards everything except one event, which it swallows. */
    private record DroppingContender(Contender inner, int droppedSequence) implements Contender {
        @Override
        public String name() {
            return "dropping";
        }

        @Override
        public boolean keepsProducerOrder() {
            return true;
        }

        @Override
        public void start(SeedTopology topology) throws Exception {
            inner.start(topology);
        }

        @Override
        public void publish(String subject, SeedEvent event) {
            if (event.producer() != 0 || event.sequence() != droppedSequence) {
                inner.publish(subject, event);
            }
        }

        @Override
        public void close() throws Exception {
            inner.close();
        }
    }

    /** Forwards everything, and one event twice. */
    private record DuplicatingContender(Contender inner, int repeatedSequence) implements Contender {
        @Override
        public String name() {
            return "duplicating";
        }

        @Override
        public boolean keepsProducerOrder() {
            return false;
        }

        @Override
        public void start(SeedTopology topology) throws Exception {
            inner.start(topology);
        }

        @Override
        public void publish(String subject, SeedEvent event) {
            inner.publish(subject, event);
            if (event.producer() == 1 && event.sequence() == repeatedSequence) {
                inner.publish(subject, event);
            }
        }

        @Override
        public void close() throws Exception {
            inner.close();
        }
    }
}
