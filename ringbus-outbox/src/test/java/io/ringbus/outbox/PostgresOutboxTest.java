package io.ringbus.outbox;

import io.ringbus.testkit.Await;
import static org.assertj.core.api.Assertions.assertThat;

import io.ringbus.core.Headers;
import java.sql.SQLException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The outbox contract on the machine's PostgreSQL, in a schema of its own, plus NOTIFY. */
class PostgresOutboxTest extends OutboxContractTest {
    private final String schema = TestDatabases.uniqueSchema();

    @Override
    OutboxBuilder configure(OutboxBuilder builder) {
        return builder.jdbcUrl(TestDatabases.PG_URL).schema(schema);
    }

    @Override
    void dropDatabase() throws SQLException {
        TestDatabases.dropPgSchema(schema);
    }

    @Test
    void notifyWakesAnIdleRelayLongBeforeItsPollInterval() throws Exception {
        RecordingSink sink = new RecordingSink();
        Relay relay = outbox.relay().sink(sink).pollInterval(Duration.ofHours(1)).start();
        relays.add(relay);
        Thread.sleep(500); // the relay has polled once and now waits for NOTIFY
        for (int i = 0; i < 3; i++) {
            // Past the relay's busy polling (50 ms after it last found rows), when only NOTIFY
            // wakes it; meanwhile its LISTEN connection has listened again.
            Thread.sleep(300);
            outbox.publish("wake.up", null, bytes("n" + i), Headers.EMPTY);
            int expected = i + 1;
            Await.until("NOTIFY wakes the relay", Duration.ofSeconds(20), () -> sink.received.size() == expected);
        }
        assertThat(sink.received).hasSize(3);
    }
}
