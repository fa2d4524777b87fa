package io.ringbus.outbox;

import java.sql.SQLException;

/** The inbox's contract on the machine's PostgreSQL, in a schema of its own per test. */
class PostgresInboxTest extends InboxContractTest {
    @Override
    String jdbcUrl() {
        return TestDatabases.PG_URL;
    }

    @Override
    void dropDatabase() throws SQLException {
        TestDatabases.dropPgSchema(schema);
    }
}
