package io.ringbus.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The inbox's contract on the machine's PostgreSQL, in a schema of its own, and what only a
 * server database shows: two consumers given the same event at the same instant.
 */
class PostgresInboxTest extends InboxContractTest {
    @Override
    String jdbcUrl() {
        return TestDatabases.PG_URL;
    }

    @Override
    void dropDatabase() throws SQLException {
        TestDatabases.dropPgSchema(schema);
    }

    @Test
    void concurrentDeliveriesOfOneEventApplyItExactlyOnce() throws Exception {
        int events = 200;
        CyclicBarrier together = new CyclicBarrier(2);
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            List<Future<List<InboxOutcome>>> consumers = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                consumers.add(threads.submit(() -> {
                    List<InboxOutcome> outcomes = new ArrayList<>();
                    try (Connection c = connect()) {
                        for (int i = 0; i < events; i++) {
                            String id = "e-" + i;
                            together.await(10, TimeUnit.SECONDS);
                            outcomes.add(inbox.process(c, InboxMessage.of(id, "k"), effect(id)).outcome());
                        }
                    }
                    return outcomes;
                }));
            }
            List<InboxOutcome> a = consumers.get(0).get(60, TimeUnit.SECONDS);
            List<InboxOutcome> b = consumers.get(1).get(60, TimeUnit.SECONDS);
            for (int i = 0; i < events; i++) {
                assertThat(List.of(a.get(i), b.get(i))).as("event e-%d", i)
                        .containsExactlyInAnyOrder(InboxOutcome.APPLIED, InboxOutcome.DUPLICATE);
            }
        } finally {
            threads.shutdownNow();
        }
        assertThat(effects()).hasSize(events).doesNotHaveDuplicates();
        assertThat(handlerCalls).hasValue(events);
    }

    @Test
    void aSecondDeliveryWaitsForTheFirstsTransactionAndAppliesWhenItRollsBack() throws Exception {
        CountDownLatch firstRecorded = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ExecutorService thread = Executors.newSingleThreadExecutor();
        try {
            Future<?> first = thread.submit(() -> {
                try (Connection c = connect()) {
                    return inbox.process(c, InboxMessage.of("e-1", null), conn -> {
                        firstRecorded.countDown();
                        try {
                            release.await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        throw new SQLException("first try fails after recording the id");
                    });
                }
            });
            assertThat(firstRecorded.await(10, TimeUnit.SECONDS)).isTrue();
            Thread.ofVirtual().start(() -> {
                sleep(200);
                release.countDown();
            });
            // Blocks on the first's uncommitted id until it rolls back, then records its own.
            InboxResult second = inbox.process(connection, InboxMessage.of("e-1", null), effect("e-1"));
            assertThat(second.outcome()).isEqualTo(InboxOutcome.APPLIED);
            assertThat(release.getCount()).as("the second waited for the first").isZero();
            assertThat(first).failsWithin(10, TimeUnit.SECONDS);
        } finally {
            thread.shutdownNow();
        }
        assertThat(effects()).containsExactly("e-1");
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
