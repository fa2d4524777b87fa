package io.ringbus.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbus.core.Broker;
import io.ringbus.core.ExecutionMode;
import io.ringbus.core.SubscribeOptions;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.support.TransactionTemplate;

class RingbusTemplateTransactionTest {

    @Configuration(proxyBeanMethods = false)
    static class Database {
        @Bean
        DataSource dataSource() {
            return new DriverManagerDataSource("jdbc:h2:mem:tx;DB_CLOSE_DELAY=-1", "sa", "");
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
            JdbcTemplate jdbc = new JdbcTemplate(dataSource);
            jdbc.execute("CREATE TABLE IF NOT EXISTS orders (id VARCHAR(20) PRIMARY KEY)");
            return jdbc;
        }
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RingbusAutoConfiguration.class))
            .withUserConfiguration(Database.class);

    /** PUBLISHER mode: the handler runs inside publish, so "not yet delivered" is exact. */
    private static List<Object> record(Broker broker) {
        List<Object> seen = new CopyOnWriteArrayList<>();
        broker.subscribe("orders.>", m -> seen.add(m.payload()), SubscribeOptions.defaults()
                .mode(ExecutionMode.PUBLISHER));
        return seen;
    }

    @Test
    void publishInsideATransactionWaitsForTheCommitAndKeepsCallOrder() {
        runner.run(context -> {
            List<Object> seen = record(context.getBean(Broker.class));
            RingbusTemplate template = context.getBean(RingbusTemplate.class);
            JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
            context.getBean(TransactionTemplate.class).executeWithoutResult(status -> {
                jdbc.update("INSERT INTO orders VALUES ('o-1')");
                template.publish("orders.created", "o-1");
                template.publish("orders.audited", "o-1 audited");
                assertThat(seen).as("nothing published before commit").isEmpty();
            });
            assertThat(seen).containsExactly("o-1", "o-1 audited");
            assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM orders WHERE id = 'o-1'", Integer.class)).isEqualTo(1);
        });
    }

    @Test
    void aRollbackDropsWhatWasPublishedInTheTransaction() {
        runner.run(context -> {
            List<Object> seen = record(context.getBean(Broker.class));
            RingbusTemplate template = context.getBean(RingbusTemplate.class);
            JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
            TransactionTemplate tx = context.getBean(TransactionTemplate.class);
            tx.executeWithoutResult(status -> {
                jdbc.update("INSERT INTO orders VALUES ('o-2')");
                template.publish("orders.created", "o-2");
                status.setRollbackOnly();
            });
            assertThatThrownBy(() -> tx.executeWithoutResult(status -> {
                template.publish("orders.created", "o-3");
                throw new IllegalStateException("business rule");
            })).hasMessage("business rule");
            assertThat(seen).isEmpty();
            assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM orders WHERE id = 'o-2'", Integer.class)).isZero();
        });
    }

    @Test
    void outsideATransactionAndForTryPublishThePublishIsImmediate() {
        runner.run(context -> {
            List<Object> seen = record(context.getBean(Broker.class));
            RingbusTemplate template = context.getBean(RingbusTemplate.class);
            template.publish("orders.created", "now");
            assertThat(seen).containsExactly("now");
            context.getBean(TransactionTemplate.class).executeWithoutResult(status -> {
                assertThat(template.tryPublish("orders.created", "try")).isTrue();
                template.publishNow("orders.created", "forced");
                assertThat(seen).containsExactly("now", "try", "forced");
                status.setRollbackOnly();
            });
            assertThat(seen).containsExactly("now", "try", "forced");
        });
    }
}
