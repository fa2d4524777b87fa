package io.ringbus.outbox;

/** The outbox contract on an embedded H2 database. */
class H2OutboxTest extends OutboxContractTest {
    private final String url = TestDatabases.h2Url();

    @Override
    OutboxBuilder configure(OutboxBuilder builder) {
        return builder.jdbcUrl(url);
    }
}
