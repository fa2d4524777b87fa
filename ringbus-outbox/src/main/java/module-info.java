/**
 * ringbus-outbox: a transactional outbox on JDBC with relays that deliver at least once, in order
 * per key, to a ringbus broker, NATS JetStream or HTTP.
 *
 * <p>{@code io.ringbus.outbox} is the API; everything under {@code io.ringbus.outbox.internal} is
 * implementation and may change without notice. Another module that imports it does not compile.
 */
// jnats, HikariCP's automatic name, the PostgreSQL driver, micrometer and HdrHistogram have no
// module descriptors of their own. The API takes a jnats Connection and a MeterRegistry and
// hands out the picocli CommandLine, hence the transitive requirements.
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module io.ringbus.outbox {
    requires transitive io.ringbus.core;
    requires transitive java.sql;
    requires java.net.http;
    requires com.zaxxer.hikari;
    requires transitive io.nats.jnats;
    requires org.postgresql.jdbc;
    requires HdrHistogram;
    requires org.slf4j;
    requires transitive info.picocli;
    // Optional (Maven <optional>): needed only by a relay built with a meter registry.
    requires static transitive micrometer.core;

    exports io.ringbus.outbox;

    // picocli fills the commands' option fields by reflection
    opens io.ringbus.outbox to info.picocli;
    opens io.ringbus.outbox.internal.cli to info.picocli;
}
