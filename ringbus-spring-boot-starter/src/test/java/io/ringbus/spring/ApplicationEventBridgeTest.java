package io.ringbus.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbus.core.ExecutionMode;
import io.ringbus.core.Message;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.support.TransactionTemplate;

class ApplicationEventBridgeTest {

    // docs/spring.md "Spring application events" mirrors these two types
    /** A plain object published as an application event, bridged to orders.created. */
    @RingbusSubject("orders.created")
    public record OrderCreated(String orderId) {
    }

    /** An ApplicationEvent subclass, bridged to a subject with a placeholder. */
    @RingbusSubject("orders.${test.region:eu}.cancelled")
    public static class OrderCancelled extends ApplicationEvent {
        private static final long serialVersionUID = 1L;

        OrderCancelled(String orderId) {
            super(orderId);
        }
    }

    /** Not annotated: stays a Spring event. */
    public record OrderViewed(String orderId) {
    }

    /** Sees every subject; PUBLISHER mode runs inside publish, so "not delivered" is exact. */
    static class Everything {
        final List<Message> seen = new CopyOnWriteArrayList<>();

        @RingbusListener(subject = ">", mode = ExecutionMode.PUBLISHER)
        void on(Message message) {
            seen.add(message.copy());
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Listening {
        @Bean
        Everything everything() {
            return new Everything();
        }

        @Bean
        TransactionTemplate transactionTemplate() {
            return new TransactionTemplate(new DataSourceTransactionManager(
                    new DriverManagerDataSource("jdbc:h2:mem:bridge;DB_CLOSE_DELAY=-1", "sa", "")));
        }
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RingbusAutoConfiguration.class,
                    RingbusEventBridgeAutoConfiguration.class))
            .withUserConfiguration(Listening.class);

    @Test
    void anAnnotatedEventReachesTheListenerOfItsSubjectAndAnUnannotatedOneDoesNot() {
        runner.run(context -> {
            List<Message> seen = context.getBean(Everything.class).seen;
            ApplicationEventPublisher events = context;
            events.publishEvent(new OrderViewed("o-0"));
            events.publishEvent(new OrderCreated("o-1"));
            events.publishEvent(new OrderCancelled("o-2"));
            assertThat(seen).extracting(Message::subject).containsExactly("orders.created", "orders.eu.cancelled");
            assertThat(seen.get(0).payload()).isEqualTo(new OrderCreated("o-1"));
            assertThat(seen.get(1).payload()).isInstanceOf(OrderCancelled.class)
                    .extracting(e -> ((OrderCancelled) e).getSource()).isEqualTo("o-2");
        });
    }

    @Test
    void insideATransactionTheEventIsPublishedAfterCommitAndNeverOnRollback() {
        runner.run(context -> {
            List<Message> seen = context.getBean(Everything.class).seen;
            TransactionTemplate tx = context.getBean(TransactionTemplate.class);
            tx.executeWithoutResult(status -> {
                context.publishEvent(new OrderCreated("rolled-back"));
                status.setRollbackOnly();
            });
            assertThatThrownBy(() -> tx.executeWithoutResult(status -> {
                context.publishEvent(new OrderCreated("failed"));
                throw new IllegalStateException("business rule");
            })).hasMessage("business rule");
            assertThat(seen).isEmpty();
            tx.executeWithoutResult(status -> {
                context.publishEvent(new OrderCreated("committed"));
                assertThat(seen).as("nothing before commit").isEmpty();
            });
            assertThat(seen).extracting(Message::payload).containsExactly(new OrderCreated("committed"));
        });
    }

    @Test
    void theBridgeIsOffWithTheProperty() {
        runner.withPropertyValues("ringbus.events.enabled=false").run(context -> {
            assertThat(context).doesNotHaveBean(RingbusEventBridgeAutoConfiguration.class);
            context.publishEvent(new OrderCreated("o-1"));
            assertThat(context.getBean(Everything.class).seen).isEmpty();
        });
    }
}
