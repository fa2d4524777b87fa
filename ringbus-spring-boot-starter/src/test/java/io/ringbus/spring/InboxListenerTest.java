package io.ringbus.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbus.core.Broker;
import io.ringbus.core.Headers;
import io.ringbus.core.Message;
import io.ringbus.outbox.OutboxEvent;
import io.ringbus.testkit.Await;
import java.lang.reflect.Method;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * {@code @RingbusListener(inbox = ...)} on H2: the method's JdbcTemplate writes commit once per
 * event id; a redelivery does not call it; its exception rolls back its writes and the id; a
 * message without an event id never calls it and is recorded with the reason.
 */
class InboxListenerTest {

    /** The listener: one invoice per order, failing while {@link #failing} is set. */
    static class Billing {
        final JdbcTemplate jdbc;
        final AtomicInteger calls = new AtomicInteger();
        volatile boolean failing;

        Billing(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        @RingbusListener(subject = "orders.>", inbox = "billing_inbox")
        void bill(String orderId) {
            calls.incrementAndGet();
            jdbc.update("INSERT INTO invoices VALUES (?)", orderId);
            if (failing) {
                throw new IllegalStateException("billing down after writing " + orderId);
            }
        }
    }

    /** Records the listener failures. */
    static class Errors implements RingbusListenerErrorHandler {
        final List<Throwable> seen = new CopyOnWriteArrayList<>();

        @Override
        public void handleError(Throwable error, Message message, String pattern, Method listener) {
            seen.add(error);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Database {
        @Bean
        DataSource dataSource() {
            return new DriverManagerDataSource("jdbc:h2:mem:i" + Long.toHexString(System.nanoTime())
                    + ThreadLocalRandom.current().nextInt(1000) + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000", "sa", "");
        }

        @Bean
        DataSourceTransactionManager transactionManager(DataSource dataSource) {
            return new DataSourceTransactionManager(dataSource);
        }

        @Bean
        JdbcTemplate jdbcTemplate(DataSource dataSource) {
            JdbcTemplate jdbc = new JdbcTemplate(dataSource);
            jdbc.execute("CREATE TABLE invoices (order_id VARCHAR(20) NOT NULL)");
            return jdbc;
        }

        @Bean
        Billing billing(JdbcTemplate jdbc) {
            return new Billing(jdbc);
        }

        @Bean
        Errors errors() {
            return new Errors();
        }
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RingbusAutoConfiguration.class))
            .withUserConfiguration(Database.class);

    private static void publish(Broker broker, String eventId, String orderId) {
        broker.publish("orders.created", null,
                eventId == null ? Headers.EMPTY : Headers.of(OutboxEvent.EVENT_ID_HEADER, eventId), orderId);
    }

    private static List<String> invoices(JdbcTemplate jdbc) {
        return jdbc.queryForList("SELECT order_id FROM invoices ORDER BY order_id", String.class);
    }

    private static List<String> ids(JdbcTemplate jdbc) {
        return jdbc.queryForList("SELECT event_id FROM billing_inbox ORDER BY event_id", String.class);
    }

    @Test
    void eachEventIsBilledOnceAndAFailureRollsBackTheInvoiceAndTheId() {
        runner.run(context -> {
            Broker broker = context.getBean(Broker.class);
            Billing billing = context.getBean(Billing.class);
            Errors errors = context.getBean(Errors.class);
            JdbcTemplate jdbc = billing.jdbc;

            publish(broker, "e-1", "o-1");
            publish(broker, "e-1", "o-1");          // a redelivery
            publish(broker, "e-2", "o-2");
            Await.until("o-2 billed", () -> invoices(jdbc).contains("o-2"));
            assertThat(invoices(jdbc)).containsExactly("o-1", "o-2");
            assertThat(billing.calls).as("the redelivery did not call the method").hasValue(2);

            billing.failing = true;
            publish(broker, "e-3", "o-3");
            Await.until("the failure reported", () -> !errors.seen.isEmpty());
            assertThat(errors.seen.getFirst()).isInstanceOf(IllegalStateException.class)
                    .hasMessage("billing down after writing o-3");
            assertThat(invoices(jdbc)).as("the invoice rolled back").doesNotContain("o-3");
            assertThat(ids(jdbc)).as("the id rolled back").containsExactly("e-1", "e-2");

            billing.failing = false;
            publish(broker, "e-3", "o-3");          // the redelivery applies it
            publish(broker, null, "o-4");           // no event id: refused
            publish(broker, "e-5", "o-5");
            Await.until("o-5 billed", () -> invoices(jdbc).contains("o-5"));
            assertThat(invoices(jdbc)).containsExactly("o-1", "o-2", "o-3", "o-5");
            assertThat(ids(jdbc)).containsExactly("e-1", "e-2", "e-3", "e-5");
            assertThat(jdbc.queryForList("SELECT reason FROM billing_inbox_dead", String.class))
                    .singleElement().asString().startsWith("no event id");
            assertThat(billing.calls).as("o-4 never reached the method").hasValue(5);
            assertThat(errors.seen).hasSize(1);
        });
    }

    @Test
    void idsAreKeptForTheConfiguredRetentionAndPurgedAtTheConfiguredPace() {
        runner.withPropertyValues("ringbus.inbox.retention=1s", "ringbus.inbox.purge-every=2").run(context -> {
            Broker broker = context.getBean(Broker.class);
            JdbcTemplate jdbc = context.getBean(Billing.class).jdbc;
            publish(broker, "e-1", "o-1");
            Await.until("o-1 billed", () -> invoices(jdbc).contains("o-1"));
            Thread.sleep(1_200);                   // e-1's id is now past the 1 s retention
            publish(broker, "e-2", "o-2");          // the 2nd message: a purge follows its commit
            Await.until("e-1's id purged", () -> ids(jdbc).equals(List.of("e-2")));
            publish(broker, "e-1", "o-1");          // a redelivery later than the retention...
            publish(broker, "e-2", "o-2");          // ...and one within it
            Await.until("o-1 billed again", () -> invoices(jdbc).size() == 3);
            assertThat(invoices(jdbc)).as("past the retention a redelivery applies again, within it never")
                    .containsExactly("o-1", "o-1", "o-2");
        });
    }

    @Test
    void aRetentionTooShortIsRefusedNamingTheProperty() {
        runner.withPropertyValues("ringbus.inbox.retention=10ms").run(context -> assertThat(context)
                .getFailure().rootCause().hasMessageContaining("retention must be at least 1 s: retention=PT0.01S"));
        runner.withPropertyValues("ringbus.inbox.retention=10ms").run(context -> assertThat(context)
                .getFailure().hasStackTraceContaining("ringbus.inbox.retention"));
    }
}
