package io.ringbus.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbus.outbox.Outbox;
import io.ringbus.outbox.OutboxCounts;
import io.ringbus.testkit.Await;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Guaranteed subjects on the machine's PostgreSQL (127.0.0.1:5432, database {@code test}, trust
 * auth; {@code RINGBUS_TEST_PG_URL} overrides, as ringbus-outbox's tests), in a schema of the
 * test's own: the business row and the outbox row commit or roll back together.
 */
class GuaranteedPublishPostgresTest {

    static final String PG_URL = System.getenv().getOrDefault("RINGBUS_TEST_PG_URL",
            "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");

    private final String schema = "t_" + Long.toHexString(System.nanoTime()) + "_"
            + ThreadLocalRandom.current().nextInt(1_000_000);

    @Configuration(proxyBeanMethods = false)
    static class Database {
        @Bean
        DataSource dataSource() {
            return new DriverManagerDataSource(PG_URL);
        }

        @Bean
        DataSourceTransactionManager transactionManager(DataSource dataSource) {
            return new DataSourceTransactionManager(dataSource);
        }

        @Bean
        TransactionTemplate transactionTemplate(DataSourceTransactionManager manager) {
            return new TransactionTemplate(manager);
        }

        @Bean
        JdbcTemplate jdbcTemplate(DataSource dataSource) {
            return new JdbcTemplate(dataSource);
        }
    }

    @AfterEach
    void dropSchema() throws SQLException {
        try (Connection c = DriverManager.getConnection(PG_URL); Statement s = c.createStatement()) {
            s.execute("SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = '"
                    + schema + "' AND NOT active");
            s.execute("DROP PUBLICATION IF EXISTS " + schema + "_ringbus_outbox_wal");
            s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
        }
    }

    /** The ringbus and outbox auto-configurations on this test's database. */
    private static ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(RingbusAutoConfiguration.class,
                        RingbusOutboxAutoConfiguration.class))
                .withUserConfiguration(Database.class);
    }

    @Test
    void walModeAndTheArchiveFromProperties() {
        GuaranteedPublishTest.Listeners listeners = new GuaranteedPublishTest.Listeners();
        runner()
                .withBean(GuaranteedPublishTest.Listeners.class, () -> listeners)
                .withPropertyValues("ringbus.outbox.schema=" + schema, "ringbus.outbox.guaranteed-subjects=orders.>",
                        "ringbus.outbox.relay.wal.slot=" + schema, "ringbus.outbox.relay.archive-delivered=true")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    RingbusTemplate template = context.getBean(RingbusTemplate.class);
                    JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
                    TransactionTemplate tx = context.getBean(TransactionTemplate.class);
                    Await.until("the relay's slot streams", () -> Boolean.TRUE.equals(jdbc.queryForObject(
                            "SELECT count(*) = 1 FROM pg_replication_slots WHERE slot_name = ? AND active",
                            Boolean.class, schema)));
                    for (int i = 1; i <= 3; i++) {
                        int n = i;
                        tx.executeWithoutResult(status -> template.publish("orders.created",
                                new GuaranteedPublishTest.Order("o-" + n, n)));
                    }
                    Await.until("three events", () -> listeners.seen.size() == 3);
                    assertThat(listeners.seen).extracting(GuaranteedPublishTest.Seen::order).containsExactly(
                            new GuaranteedPublishTest.Order("o-1", 1), new GuaranteedPublishTest.Order("o-2", 2),
                            new GuaranteedPublishTest.Order("o-3", 3));
                    Await.until("moved to the archive", () -> Integer.valueOf(3).equals(jdbc.queryForObject(
                            "SELECT count(*) FROM " + schema + ".ringbus_outbox_archive", Integer.class)));
                });
    }

    @Test
    void aBadSlotNameFailsTheContextNamingIt() {
        runner()
                .withPropertyValues("ringbus.outbox.schema=" + schema, "ringbus.outbox.relay.wal.slot=Bad-Slot")
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("slot=Bad-Slot"));
    }

    @Test
    void theEventCommitsAndRollsBackWithTheBusinessRow() {
        GuaranteedPublishTest.Listeners listeners = new GuaranteedPublishTest.Listeners();
        runner()
                .withBean(GuaranteedPublishTest.Listeners.class, () -> listeners)
                .withPropertyValues("ringbus.outbox.schema=" + schema, "ringbus.outbox.guaranteed-subjects=orders.>",
                        "ringbus.outbox.relay.poll-interval=20ms")
                .run(context -> {
                    RingbusTemplate template = context.getBean(RingbusTemplate.class);
                    JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
                    TransactionTemplate tx = context.getBean(TransactionTemplate.class);
                    Outbox outbox = context.getBean(Outbox.class);
                    jdbc.execute("CREATE TABLE " + schema + ".orders (id TEXT PRIMARY KEY)");

                    assertThatThrownBy(() -> tx.executeWithoutResult(status -> {
                        jdbc.update("INSERT INTO " + schema + ".orders VALUES ('o-1')");
                        template.publish("orders.created", new GuaranteedPublishTest.Order("o-1", 1));
                        throw new IllegalStateException("business rule");
                    })).hasMessage("business rule");
                    tx.executeWithoutResult(status -> {
                        jdbc.update("INSERT INTO " + schema + ".orders VALUES ('o-2')");
                        template.publish("orders.created", new GuaranteedPublishTest.Order("o-2", 2));
                    });

                    Await.until("the committed event", () -> listeners.seen.size() == 1);
                    Await.until("its row deleted",
                            () -> GuaranteedPublishTest.counts(outbox).equals(new OutboxCounts(0, 0, 0)));
                    Await.grace();
                    assertThat(listeners.seen).extracting(GuaranteedPublishTest.Seen::order)
                            .containsExactly(new GuaranteedPublishTest.Order("o-2", 2));
                    assertThat(jdbc.queryForList("SELECT id FROM " + schema + ".orders", String.class))
                            .containsExactly("o-2");
                });
    }
}
