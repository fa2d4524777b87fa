package io.ringbus.server;

import io.ringbus.core.FsyncPolicy;
import io.ringbus.testkit.PowerLossFileSystem;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Acknowledged means it survives the power cord (issue 30): a forked ringbus-server with
 * {@code --durable 'orders.>=max_bytes=256k'} ({@code fsync=always}, 32 KiB segments: they roll
 * and retention deletes them between cuts) on a {@link PowerLossFileSystem}; two jnats publishers
 * with JetStream {@code publishAsync} (150 PubAcks outstanding each, {@code Nats-Msg-Id}); three
 * times in a row at a random instant (fixed seed, logged) the server is killed with SIGKILL, the
 * power cut (torn or not, drawn), the store read back in process and checked, the server started
 * on what survived. Every cut: the store opens and the server starts; every acknowledged id still
 * within retention is there; none stored twice (ids without an acknowledgement are sent again with
 * their {@code Nats-Msg-Id}: the duplicate window, rebuilt from the log, keeps them once); each
 * publisher's ids in order. The long run with more cuts, policies and nats-server is
 * {@code bin/soak power-loss} ({@link PowerCutSoak}).
 */
@Timeout(300)
class PowerCutPublishTest {
    private static final long SEED = 30_2026L;

    @TempDir
    Path work;

    @ParameterizedTest
    @EnumSource(value = PowerLossFileSystem.Mode.class, names = {"POSIX", "FILE"})
    void everyAcknowledgedPublishSurvivesEveryCut(PowerLossFileSystem.Mode mode) throws Exception {
        Assumptions.assumeTrue(PowerLossFileSystem.available(), PowerLossFileSystem::unavailableReason);
        PowerCutRun.Settings settings = new PowerCutRun.Settings(mode, 3, SEED + mode.ordinal(), 2, 150, 200,
                Duration.ofMillis(300), Duration.ofMillis(1_500));
        PowerCutRun.Result result = PowerCutRun.run(new RingbusCutTarget(FsyncPolicy.ALWAYS, 256 << 10), settings,
                work, line -> System.out.println("PowerCutPublishTest " + line));
        System.out.println("PowerCutPublishTest result (seed " + settings.seed() + "): " + result);

        assertThat(result.failure()).as("the store opens and the server starts after every cut").isNull();
        assertThat(result.cleanRestarts()).isEqualTo(3);
        assertThat(result.acknowledged()).as("publishers were acknowledged").isPositive();
        assertThat(result.lost()).as("acknowledged ids lost (fsync=always, %s): %s", mode, result).isZero();
        assertThat(result.duplicated()).as("ids stored twice").isZero();
        assertThat(result.orderViolations()).as("ids out of their publisher's order").isZero();
        assertThat(result.firstRetained()).as("segments rolled and retention deleted some").isGreaterThan(1);
    }
}
