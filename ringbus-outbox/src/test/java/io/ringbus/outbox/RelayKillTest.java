package io.ringbus.outbox;

import io.ringbus.testkit.Await;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.Timeout;

/**
 * {@code kill -9} of a relay process in the middle of a batch, on PostgreSQL: the next relay
 * process delivers everything, and the only rows delivered twice are the killed relay's
 * uncommitted batch.
 */
@Timeout(120)
class RelayKillTest {
    private static final int ROWS = 5_000;
    private static final int BATCH = 100;

    @RegisterExtension
    final OutboxOnPostgres db = new OutboxOnPostgres();

    @Test
    void aKilledRelayLosesNothingAndOnlyItsInFlightBatchIsDeliveredTwice() throws Exception {
        List<Long> all = new ArrayList<>(ROWS);
        try (Connection c = db.outbox().dataSource().getConnection()) {
            c.setAutoCommit(false);
            for (int i = 0; i < ROWS; i++) {
                all.add(db.outbox().append(c, "orders.created", null, ("row " + i).getBytes(StandardCharsets.UTF_8)));
            }
            c.commit();
        }
        String pg = TestDatabases.PG_URL;
        Set<Long> printedFirst;
        Set<Long> committedFirst;
        try (RelayProcess doomed = RelayProcess.start("doomed", "--keep-delivered", "--jdbc-url", pg, "--schema", db.schema(),
                "--batch-size", String.valueOf(BATCH), "--sink-delay-ms", "2")) {
            // 2 ms a row, so a batch takes 200 ms: at row 750 the relay is inside its 8th batch.
            doomed.awaitDelivered(7 * BATCH + BATCH / 2);
            long pid = doomed.pid();
            int exit = doomed.kill();
            assertThat(doomed.isAlive()).isFalse();
            assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive)).as("pid " + pid + " is gone").isEmpty();
            assertThat(exit).as("killed by SIGKILL").isEqualTo(128 + 9);
            printedFirst = new HashSet<>(doomed.deliveredIds());
            assertThat(doomed.lines()).noneMatch(l -> l.contains("stopped"));
        }
        committedFirst = deliveredInDatabase();
        assertThat(printedFirst).containsAll(committedFirst);
        Set<Long> inFlight = new HashSet<>(printedFirst);
        inFlight.removeAll(committedFirst);
        assertThat(inFlight).as("printed but not committed: the batch in flight at the kill").isNotEmpty()
                .hasSizeLessThanOrEqualTo(BATCH);
        // On PostgreSQL the killed relay's buckets stay leased to it until the lease expires (3 s):
        // the survivor takes them over then, and delivers everything that was not committed.

        Set<Long> printedSecond;
        try (RelayProcess survivor = RelayProcess.start("survivor", "--keep-delivered", "--jdbc-url", pg, "--schema", db.schema(),
                "--batch-size", String.valueOf(BATCH))) {
            Await.until("every row delivered", Duration.ofSeconds(60), () -> counts().delivered() == ROWS);
            assertThat(counts()).isEqualTo(new OutboxCounts(0, ROWS, 0));
            assertThat(survivor.stop()).as("exit code after SIGTERM").isEqualTo(128 + 15);
            assertThat(survivor.lines()).anyMatch(l -> l.startsWith("relay survivor stopped: " + (ROWS - committedFirst.size())
                    + " delivered"));
            printedSecond = new HashSet<>(survivor.deliveredIds());
            assertThat(survivor.deliveredIds()).as("the survivor alone delivers each row once").doesNotHaveDuplicates();
        }

        Set<Long> union = new HashSet<>(printedFirst);
        union.addAll(printedSecond);
        assertThat(union).as("nothing lost").containsExactlyInAnyOrderElementsOf(all);
        Set<Long> twice = new HashSet<>(printedFirst);
        twice.retainAll(printedSecond);
        assertThat(twice).as("delivered twice: exactly the killed relay's uncommitted batch").isEqualTo(inFlight);
    }

    private OutboxCounts counts() {
        try {
            return db.outbox().counts();
        } catch (SQLException e) {
            throw new AssertionError(e);
        }
    }

    private Set<Long> deliveredInDatabase() throws SQLException {
        Set<Long> ids = new HashSet<>();
        try (Connection c = db.outbox().dataSource().getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT id FROM " + db.schema() + ".ringbus_outbox WHERE status = 1")) {
            while (rs.next()) {
                ids.add(rs.getLong(1));
            }
        }
        return ids;
    }
}
