package io.ringbus.outbox;

import java.sql.SQLException;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * An {@link Outbox} on the machine's PostgreSQL ({@link TestDatabases#PG_URL}) in a schema of its
 * own, for one test: opened before the test's {@code @BeforeEach} methods, closed and the schema
 * dropped after its {@code @AfterEach} methods. Registered per test instance:
 * {@code @RegisterExtension final OutboxOnPostgres db = new OutboxOnPostgres();}.
 */
final class OutboxOnPostgres implements BeforeEachCallback, AfterEachCallback {
    private final String schema = TestDatabases.uniqueSchema();
    private Outbox outbox;

    @Override
    public void beforeEach(ExtensionContext context) throws SQLException {
        outbox = Outbox.builder().jdbcUrl(TestDatabases.PG_URL).schema(schema).open();
    }

    @Override
    public void afterEach(ExtensionContext context) throws SQLException {
        outbox.close();
        TestDatabases.dropPgSchema(schema);
    }

    /** @return the open outbox */
    Outbox outbox() {
        return outbox;
    }

    /** @return the schema the outbox's tables are in */
    String schema() {
        return schema;
    }
}
