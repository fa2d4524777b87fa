package io.ringbus.outbox;

/** The inbox's contract on an in-memory H2 database of its own. */
class H2InboxTest extends InboxContractTest {
    private final String url = TestDatabases.h2Url();

    @Override
    String jdbcUrl() {
        return url;
    }
}
