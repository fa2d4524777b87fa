package io.ringbus.outbox;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/** What a relay's builder refuses, and how its messages name the value without giving secrets away. */
class RelayBuilderChecksTest {

    @Test
    void aWalUrlThatIsNotPostgreSqlIsNamedWithItsPasswordHidden() throws SQLException {
        try (Outbox outbox = Outbox.builder().jdbcUrl(TestDatabases.h2Url()).open()) {
            // A common slip: jdbc:postgres: for jdbc:postgresql:, with the password in the URL.
            assertThatThrownBy(() -> outbox.relay().wal("s", "jdbc:postgres://db/app?user=u&password=hunter2&ssl=true",
                    null, null))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("jdbcUrl=jdbc:postgres://db/app?user=u&password=***&ssl=true")
                    .hasMessageNotContaining("hunter2");
            assertThatThrownBy(() -> outbox.relay().wal("s", "jdbc:h2:mem:x;PASSWORD=hunter2", null, null))
                    .hasMessageNotContaining("hunter2");
        }
    }

    /**
     * The archive on an insert-only table is refused naming the option, polling or not: a polling
     * relay that archives is not sent to WAL mode first, only to be refused there.
     */
    @Test
    void theArchiveOnAnInsertOnlyTableIsRefusedNamingTheOption() throws SQLException {
        String schema = TestDatabases.uniqueSchema();
        try (Outbox outbox = Outbox.builder().jdbcUrl(TestDatabases.PG_URL).schema(schema).insertOnly(1_000).open()) {
            assertThatThrownBy(() -> outbox.relay().name("audit").archiveDelivered(true).sink(new RecordingSink()).start())
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("insert-only").hasMessageContaining("archiveDelivered(true) (--archive)")
                    .hasMessageContaining("relay audit").hasMessageNotContaining("WAL mode");
            assertThatThrownBy(() -> outbox.relay().wal("never_created").archiveDelivered(true)
                    .sink(new RecordingSink()).start())
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("archiveDelivered(true) (--archive)");
            assertThatThrownBy(() -> outbox.relay().archiveDelivered(true).deleteDelivered(false)
                    .sink(new RecordingSink()).start())
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("--keep-delivered");
        } finally {
            TestDatabases.dropPgSchema(schema);
        }
    }
}
