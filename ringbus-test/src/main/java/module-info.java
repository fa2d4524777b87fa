/**
 * ringbus-test: a JUnit 5 extension that runs a ringbus-server, a NATS server, inside the test JVM.
 *
 * <p>{@code io.ringbus.test} is the API: {@link io.ringbus.test.RingbusServerTest},
 * {@link io.ringbus.test.RingbusServerExtension}, {@link io.ringbus.test.RingbusServerHandle} and
 * {@link io.ringbus.test.RingbusUrl}. See docs/testing.md.
 */
module io.ringbus.test {
    requires transitive io.ringbus.server;
    requires transitive org.junit.jupiter.api;

    exports io.ringbus.test;
}
