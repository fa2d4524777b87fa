package io.ringbus.server;

import io.ringbus.core.FsyncPolicy;
import io.ringbus.testkit.PowerLossFileSystem;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Acknowledged means it survives the power cord (issue 30): a forked ringbus-server with
 * {@code --durable 'orders.>=max_bytes=64k'} (8 KiB segments, about 30 records each: they roll and
 * retention deletes them between cuts, even on a loaded machine's short lives) on a {@link PowerLossFileSystem}; two publishers of one real client over the
 * network, jnats or nats.go ({@link PowerCutClient}), with JetStream asynchronous publishing (150
 * PubAcks outstanding each, {@code Nats-Msg-Id}); twice in a row at a random instant (fixed seed,
 * logged) the server is killed with SIGKILL, the power cut (torn or not, drawn), the store read back
 * in process and checked, the server started on what survived.
 *
 * <p>Under {@code fsync=always}, in every names-durable mode the test runs and with each client:
 * the store opens and the server starts after every cut; every acknowledged id still within
 * retention is there; none stored twice (ids without an acknowledgement are sent again with their
 * {@code Nats-Msg-Id}: the duplicate window, rebuilt from the log, keeps them once); each
 * publisher's ids in order. Under {@code fsync=interval} it loses only what was acknowledged
 * within {@link RingbusCutTarget#INTERVAL_LOSS_BOUND} of a kill. The long run with more cuts,
 * policies and nats-server is {@code bin/soak power-loss} ({@link PowerCutSoak}).
 */
@Timeout(300)
class PowerCutPublishTest {
    private static final long SEED = 30_2026L;
    private static final int CUTS = 2;

    @TempDir
    Path work;

    static Stream<Arguments> modesAndClients() {
        return Stream.of(PowerLossFileSystem.Mode.POSIX, PowerLossFileSystem.Mode.FILE)
                .flatMap(mode -> Arrays.stream(PowerCutClient.values()).map(client -> Arguments.of(mode, client)));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("modesAndClients")
    void everyAcknowledgedPublishSurvivesEveryCut(PowerLossFileSystem.Mode mode, PowerCutClient client)
            throws Exception {
        PowerCutRun.Result result = run(FsyncPolicy.ALWAYS, mode, client,
                SEED + mode.ordinal() * 10L + client.ordinal());

        assertThat(result.lost()).as("acknowledged ids lost (fsync=always, %s, %s): %s", mode, client.label(),
                result).isZero();
        assertRecoveredCleanly(result);
    }

    /**
     * {@code fsync=interval} acknowledges before the force: a cut may lose what was acknowledged
     * within the window before the kill, never anything older (the {@code os} policy, or an
     * interval flusher that stopped, would lose everything since the server started: lives here are
     * at least 1.6 s, far beyond the bound).
     */
    @Test
    void intervalLosesOnlyTheLastWindow() throws Exception {
        PowerCutRun.Result result = run(FsyncPolicy.INTERVAL, PowerLossFileSystem.Mode.POSIX, PowerCutClient.JNATS,
                SEED + 100, Duration.ofMillis(1_600), Duration.ofMillis(2_000));
        System.out.printf("PowerCutPublishTest interval: lost %d of %d, oldest lost ack %.1f ms before its kill%n",
                result.lost(), result.acknowledged(), result.lost() == 0 ? 0 : result.oldestLostNanos() / 1e6);

        Duration bound = RingbusCutTarget.INTERVAL_LOSS_BOUND;
        assertThat(result.oldestLostNanos())
                .as("the oldest lost acknowledgement (fsync=interval %s): within %s of the kill; %s",
                        RingbusCutTarget.FSYNC_INTERVAL, bound, result)
                .isLessThan(bound.toNanos());
        assertRecoveredCleanly(result);
    }

    private PowerCutRun.Result run(FsyncPolicy policy, PowerLossFileSystem.Mode mode, PowerCutClient client,
                                   long seed) throws Exception {
        return run(policy, mode, client, seed, Duration.ofMillis(300), Duration.ofMillis(1_000));
    }

    private PowerCutRun.Result run(FsyncPolicy policy, PowerLossFileSystem.Mode mode, PowerCutClient client, long seed,
                                   Duration minLife, Duration maxLife) throws Exception {
        Assumptions.assumeTrue(PowerLossFileSystem.available(), PowerLossFileSystem::unavailableReason);
        Assumptions.assumeTrue(client.missing() == null, client::missing);
        PowerCutRun.Settings settings = new PowerCutRun.Settings(mode, client, CUTS, seed, 2, 150, 200, minLife,
                maxLife);
        PowerCutRun.Result result = PowerCutRun.run(new RingbusCutTarget(policy, 64 << 10), settings, work,
                line -> System.out.println("PowerCutPublishTest " + line));
        System.out.println("PowerCutPublishTest result (seed " + settings.seed() + "): " + result);
        return result;
    }

    /** Checked after the losses: a loss must show as such, not as a retention that never happened. */
    private static void assertRecoveredCleanly(PowerCutRun.Result result) {
        assertThat(result.failure()).as("the store opens and the server starts after every cut").isNull();
        assertThat(result.cleanRestarts()).isEqualTo(CUTS);
        assertThat(result.acknowledged()).as("publishers were acknowledged").isPositive();
        assertThat(result.duplicated()).as("ids stored twice").isZero();
        assertThat(result.orderViolations()).as("ids out of their publisher's order").isZero();
        assertThat(result.firstRetained()).as("segments rolled and retention deleted some").isGreaterThan(1);
    }
}
