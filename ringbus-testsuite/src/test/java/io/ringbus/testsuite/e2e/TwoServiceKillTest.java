package io.ringbus.testsuite.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.ringbus.testkit.ReferenceNatsServer;
import io.ringbus.testsuite.e2e.KillScenario.Victim;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each effect exactly once, end to end (issue 31): an order service (orders + outbox in its
 * PostgreSQL schema, a relay to JetStream), a billing service (inbox + billing table in its own
 * schema, a durable JetStream consumer acknowledged after commit) and the JetStream server between
 * them, each a process of its own, each killed with SIGKILL at random instants, repeatedly, under
 * load ({@link KillScenario}). After the drain: every committed order has exactly one billing row,
 * none is missing or doubled, none bills an order that never committed, and each customer's orders
 * were billed in commit order; every victim was killed, and redeliveries happened and were absorbed.
 *
 * <p>The short run (about 20 s of load per transport) is part of the build. {@code bin/soak-outbox}
 * runs the same code for {@code -Dringbus.soak.minutes} per transport and prints the figures
 * ({@code -Dringbus.soak.rate} orders/s, default 100; {@code -Dringbus.soak.kill-gap-seconds}, the mean
 * time between two kills, default 5).
 */
class TwoServiceKillTest {
    private static final long SEED = 31;
    private static final int KEYS = 30;
    /**
     * Billing consumers: each is strictly ordered ({@code max_ack_pending} 1), so its pace is one
     * acknowledgment's round trip (on ringbus-server an {@code ackSync} also waits for the consumer's
     * state to be fsynced); six share the load.
     */
    private static final int PARTITIONS = 6;

    @TempDir
    Path work;

    @Test
    void everyCommittedOrderBilledOnceInKeyOrderAcrossKill9OfBothServicesAndRingbusServer() throws Exception {
        check(run(TransportServer.Kind.RINGBUS));
    }

    @Test
    void everyCommittedOrderBilledOnceInKeyOrderAcrossKill9OfBothServicesAndNatsServer() throws Exception {
        assumeTrue(ReferenceNatsServer.installed(), ReferenceNatsServer.BINARY + " is not installed");
        check(run(TransportServer.Kind.NATS_SERVER));
    }

    private KillScenario.Result run(TransportServer.Kind transport) throws Exception {
        String minutes = System.getProperty("ringbus.soak.minutes");
        KillScenario.Settings settings;
        if (minutes == null) {
            settings = new KillScenario.Settings(transport, Duration.ofSeconds(20), KEYS, PARTITIONS, 3, 100,
                    Duration.ofSeconds(2), Duration.ofSeconds(120), SEED);
        } else {
            Duration load = Duration.ofSeconds(Math.round(Double.parseDouble(minutes) * 60));
            settings = new KillScenario.Settings(transport, load, KEYS, PARTITIONS, 4,
                    Double.parseDouble(System.getProperty("ringbus.soak.rate", "100")),
                    Duration.ofSeconds(Long.parseLong(System.getProperty("ringbus.soak.kill-gap-seconds", "5"))),
                    Duration.ofSeconds(Math.max(120, load.toSeconds() / 4)), SEED);
        }
        KillScenario.Result result = new KillScenario(settings, work).run();
        System.out.println("two-service kill -9 test, " + transport + ": " + result.figures());
        return result;
    }

    private static void check(KillScenario.Result result) {
        BillingAudit audit = result.audit();
        assertThat(audit.orders()).as("orders committed under load").isGreaterThan(100);
        assertThat(audit.missing()).as("committed orders without a billing row").isEmpty();
        assertThat(audit.duplicated()).as("orders billed more than once").isEmpty();
        assertThat(audit.phantom()).as("billing rows of orders that never committed").isEmpty();
        assertThat(audit.billingRows()).as("one billing row per committed order").isEqualTo(audit.orders());
        assertThat(audit.outOfOrder()).as("billing applies out of a customer's commit order").isEmpty();
        assertThat(audit.keys()).as("customers billed").isEqualTo(KEYS);
        assertThat(result.inboxIds()).as("event ids the inbox recorded").isEqualTo(audit.orders());
        assertThat(result.deadLetters()).as("outbox dead letters").isZero();
        assertThat(result.refused()).as("messages the inbox refused").isZero();
        for (Victim victim : Victim.values()) {
            assertThat(result.kills().getOrDefault(victim, 0)).as("SIGKILLs of " + victim).isPositive();
        }
        assertThat(result.inboxDuplicates() + result.pubAckDuplicates())
                .as("redeliveries absorbed (by the inbox or by JetStream's Nats-Msg-Id)").isPositive();
    }
}
