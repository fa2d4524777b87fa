package io.ringbus.bench.jetstream;

import io.ringbus.core.FsyncPolicy;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Medians, ratios and issue 26's goals, from samples made up here: no server runs. */
class JetStreamReportTest {
    private static final Contender NATS = Contender.nats();
    private static final Contender ALWAYS = Contender.ringbus(FsyncPolicy.ALWAYS);
    private static final Contender INTERVAL = Contender.ringbus(FsyncPolicy.INTERVAL);
    private static final Contender OS = Contender.ringbus(FsyncPolicy.OS);
    private static final List<Contender> ALL = List.of(NATS, ALWAYS, INTERVAL, OS);

    private static Sample sample(JsCase c, Contender who, int round, double perSecond, double cpuMicros) {
        return new Sample(c, who, round, perSecond, 1000, 1000, 10, cpuMicros, 0, null);
    }

    private static JetStreamResults.Row row(JetStreamReport report, JsCase c, Contender who) {
        return report.rows().stream().filter(r -> r.caseId().equals(c.id()) && r.server().equals(who.server())
                && r.policy().equals(who.policyName())).findFirst().orElseThrow();
    }

    @Test
    void takesTheMedianOfTheRoundsAndDividesByNatsServer() {
        List<Sample> samples = new ArrayList<>();
        samples.add(sample(JsCase.ASYNC_128, NATS, 1, 40_000, 10));
        samples.add(sample(JsCase.ASYNC_128, NATS, 2, 50_000, 12));
        samples.add(sample(JsCase.ASYNC_128, NATS, 3, 60_000, 14));
        samples.add(sample(JsCase.ASYNC_128, INTERVAL, 1, 100_000, 6));
        samples.add(sample(JsCase.ASYNC_128, INTERVAL, 2, 40_000, 30));
        samples.add(sample(JsCase.ASYNC_128, INTERVAL, 3, 55_000, 9));

        JetStreamReport report = new JetStreamReport(List.of(JsCase.ASYNC_128), ALL, samples, 5_000);

        JetStreamResults.Row nats = row(report, JsCase.ASYNC_128, NATS);
        JetStreamResults.Row interval = row(report, JsCase.ASYNC_128, INTERVAL);
        assertThat(nats.perSecond()).isEqualTo(50_000);
        assertThat(nats.met()).isNull();
        assertThat(interval.perSecond()).isEqualTo(55_000);
        assertThat(interval.runs()).containsExactly(100_000.0, 40_000.0, 55_000.0);
        assertThat(interval.ratioToNats()).isEqualTo(1.1);
        assertThat(interval.cpuMicrosPerMessage()).isEqualTo(9);
        assertThat(interval.cpuRatioToNats()).isEqualTo(0.75);
        assertThat(interval.goal()).isEqualTo(">= 1.0x nats");
        assertThat(interval.met()).isEqualTo("yes");
        assertThat(report.rows()).as("no row for a server that did not run").hasSize(2);
        assertThat(report.text()).contains("1.10x").contains("0.75x").contains("55,000");
    }

    @Test
    void judgesSyncPublishUnderAlwaysAgainstTheDisksFsyncRate() {
        List<Sample> samples = List.of(sample(JsCase.SYNC_128, NATS, 1, 10_000, 30),
                sample(JsCase.SYNC_128, ALWAYS, 1, 3_000, 40), sample(JsCase.SYNC_128, INTERVAL, 1, 9_000, 20),
                sample(JsCase.SYNC_128, OS, 1, 12_000, 20));

        JetStreamReport report = new JetStreamReport(List.of(JsCase.SYNC_128), ALL, samples, 4_000);

        JetStreamResults.Row always = row(report, JsCase.SYNC_128, ALWAYS);
        assertThat(always.goal()).isEqualTo(">= 0.8x disk fsync/s");
        assertThat(always.goalRatio()).isEqualTo(0.75);
        assertThat(always.ratioToNats()).isEqualTo(0.3);
        assertThat(always.met()).isEqualTo("no: rate, cpu");
        assertThat(row(report, JsCase.SYNC_128, INTERVAL).met()).isEqualTo("no: rate");
        JetStreamResults.Row os = row(report, JsCase.SYNC_128, OS);
        assertThat(os.goal()).as("publishing looser than nats-server's loss window: no rate goal").isNull();
        assertThat(os.met()).isEqualTo("yes");
        assertThat(report.text()).contains(">= 0.8x disk fsync/s (0.75x)").contains("cpu only");
    }

    @Test
    void reportsAFailedCaseAsAFailedRowAndKeepsTheOthers() {
        List<Sample> samples = List.of(sample(JsCase.KV_PUT, NATS, 1, 18_000, 30),
                Sample.failed(JsCase.KV_PUT, INTERVAL, 1, "create bucket BENCH: no"),
                sample(JsCase.KV_GET, NATS, 1, 10_000, 40), sample(JsCase.KV_GET, INTERVAL, 1, 20_000, 20),
                Sample.failed(JsCase.KV_GET, INTERVAL, 2, "kv get timed out"));

        JetStreamReport report = new JetStreamReport(List.of(JsCase.KV_PUT, JsCase.KV_GET), ALL, samples, 4_000);

        JetStreamResults.Row put = row(report, JsCase.KV_PUT, INTERVAL);
        assertThat(put.rounds()).isZero();
        assertThat(put.perSecond()).isNaN();
        assertThat(put.met()).isEqualTo("failed");
        assertThat(put.failure()).isEqualTo("round 1: create bucket BENCH: no");
        JetStreamResults.Row get = row(report, JsCase.KV_GET, INTERVAL);
        assertThat(get.perSecond()).as("the round that ran").isEqualTo(20_000);
        assertThat(get.failedRounds()).isEqualTo(1);
        assertThat(get.met()).isEqualTo("failed");
        assertThat(report.allMeasured()).isFalse();
        assertThat(report.text()).contains("FAILED KV put 128 B, ringbus-server interval (1 of 1 rounds): round 1:"
                + " create bucket BENCH: no").contains("(1 of 2 rounds): round 2: kv get timed out");
    }

    @Test
    void givesNoCpuRatioWhereNatsServersTimeWasUnderOneTick() {
        List<Sample> samples = List.of(sample(JsCase.PUSH_REPLAY, NATS, 1, 90_000, 0),
                sample(JsCase.PUSH_REPLAY, OS, 1, 200_000, 3));

        JetStreamResults.Row os = row(new JetStreamReport(List.of(JsCase.PUSH_REPLAY), ALL, samples, 4_000),
                JsCase.PUSH_REPLAY, OS);

        assertThat(os.cpuRatioToNats()).isNaN();
        assertThat(os.met()).as("rate met, cpu unknown").isEqualTo("?");
    }

    @Test
    void readsAreJudgedUnderEveryPolicyAtTwiceNatsServer() {
        for (FsyncPolicy p : FsyncPolicy.values()) {
            assertThat(Goal.of(JsCase.ORDERED_REPLAY, p)).isEqualTo(new Goal(2.0, Goal.Base.NATS));
            assertThat(Goal.of(JsCase.KV_GET, p)).isEqualTo(new Goal(1.0, Goal.Base.NATS));
        }
        assertThat(Goal.of(JsCase.ASYNC_1K, FsyncPolicy.ALWAYS)).isEqualTo(new Goal(1.0, Goal.Base.NATS));
        assertThat(Goal.of(JsCase.ASYNC_1K, FsyncPolicy.OS)).isNull();
        assertThat(Goal.of(JsCase.KV_PUT, FsyncPolicy.ALWAYS)).isNull();
        assertThat(Goal.verdict(new Goal(2.0, Goal.Base.NATS), 2.0, 1.0, false)).as("bounds inclusive").isEqualTo("yes");
        assertThat(Goal.verdict(new Goal(2.0, Goal.Base.NATS), 1.9, 1.2, false)).isEqualTo("no: rate, cpu");
        assertThat(Goal.verdict(null, Double.NaN, Double.NaN, false)).as("cpu unknown").isEqualTo("?");
    }

    @Test
    void namesCasesByIdOrConstant() {
        assertThat(JsCase.byName("kv-get")).isEqualTo(JsCase.KV_GET);
        assertThat(JsCase.byName("ASYNC_1K")).isEqualTo(JsCase.ASYNC_1K);
        assertThatThrownBy(() -> JsCase.byName("async-2k")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("case='async-2k'").hasMessageContaining("ordered-replay");
    }

    @Test
    void aFailedStepIsToldByTheLastLineOfItsStderr() {
        String exit = "jsbench exited with code 1: /tmp/jsbench -url nats://127.0.0.1:1 -mode kvbucket\n"
                + "jsbench: earlier\njsbench: create bucket BENCH: nats: key-value requires at least server version 2.6.2";
        String overran = "jsbench did not finish within 330s: /tmp/jsbench -mode pull\njsbench: stale line";

        assertThat(CaseRunner.brief(exit)).isEqualTo(
                "jsbench: create bucket BENCH: nats: key-value requires at least server version 2.6.2");
        assertThat(CaseRunner.brief(overran)).isEqualTo("jsbench did not finish within 330s");
    }
}
