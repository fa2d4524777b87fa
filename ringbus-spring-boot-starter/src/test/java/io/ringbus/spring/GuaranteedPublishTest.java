package io.ringbus.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbus.core.Broker;
import io.ringbus.core.ExecutionMode;
import io.ringbus.core.Headers;
import io.ringbus.core.SubscribeOptions;
import io.ringbus.outbox.Outbox;
import io.ringbus.outbox.OutboxCounts;
import io.ringbus.outbox.OutboxEvent;
import io.ringbus.outbox.Relay;
import io.ringbus.spring.internal.BrokerLifecycle;
import io.ringbus.spring.internal.OutboxRelayLifecycle;
import io.ringbus.testkit.Await;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.endpoint.InvocationContext;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.invoke.convert.ConversionServiceParameterValueMapper;
import org.springframework.boot.actuate.endpoint.web.EndpointMediaTypes;
import org.springframework.boot.actuate.endpoint.web.ExposableWebEndpoint;
import org.springframework.boot.actuate.endpoint.web.WebOperation;
import org.springframework.boot.actuate.endpoint.web.WebOperationRequestPredicate;
import org.springframework.boot.actuate.endpoint.web.annotation.WebEndpointDiscoverer;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Guaranteed subjects on H2: {@link RingbusTemplate#publish} appends to the outbox in the Spring
 * transaction, the relay delivers to {@link RingbusListener}s after commit, and the dead-letter
 * endpoint lists, retries and deletes what the relay gave up on.
 */
class GuaranteedPublishTest {

    /** A payload type the listener takes (JSON in the outbox). */
    public record Order(String id, int quantity) {
    }

    /** What one listener call saw. */
    record Seen(Order order, String eventId, List<String> keys) {
    }

    static class Listeners {
        final List<Seen> seen = new CopyOnWriteArrayList<>();

        @RingbusListener(subject = "orders.>", mode = ExecutionMode.WORKER)
        void onOrder(Order order, Headers headers) {
            seen.add(new Seen(order, headers.first(OutboxEvent.EVENT_ID_HEADER), headers.all(OutboxEvent.KEY_HEADER)));
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Database {
        @Bean
        DataSource dataSource(org.springframework.core.env.Environment env) {
            return new DriverManagerDataSource(env.getProperty("test.url"), "sa", "");
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

    private static String h2Url() {
        return "jdbc:h2:mem:g" + Long.toHexString(System.nanoTime()) + ThreadLocalRandom.current().nextInt(1000)
                + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000";
    }

    private static ApplicationContextRunner runner(String url, Listeners listeners) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(RingbusAutoConfiguration.class,
                        RingbusOutboxAutoConfiguration.class))
                .withUserConfiguration(Database.class)
                .withBean(Listeners.class, () -> listeners)
                .withPropertyValues("test.url=" + url, "ringbus.outbox.guaranteed-subjects=orders.>,secret.>",
                        "ringbus.outbox.relay.poll-interval=20ms");
    }

    static OutboxCounts counts(Outbox outbox) {
        try {
            return outbox.counts();
        } catch (SQLException e) {
            throw new AssertionError(e);
        }
    }

    private static int orders(JdbcTemplate jdbc) {
        return jdbc.queryForObject("SELECT COUNT(*) FROM orders", Integer.class);
    }

    @Test
    void aCommittedGuaranteedPublishIsDeliveredOnceByTheRelayAndItsRowDeleted() {
        Listeners listeners = new Listeners();
        runner(h2Url(), listeners).run(context -> {
            RingbusTemplate template = context.getBean(RingbusTemplate.class);
            JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
            Outbox outbox = context.getBean(Outbox.class);
            context.getBean(TransactionTemplate.class).executeWithoutResult(status -> {
                jdbc.update("INSERT INTO orders VALUES ('o-1')");
                template.publish("orders.created", Headers.of(OutboxEvent.KEY_HEADER, "o-1"), new Order("o-1", 2));
                Await.grace();
                assertThat(listeners.seen).as("nothing delivered before commit").isEmpty();
            });

            Await.until("the committed event", () -> listeners.seen.size() == 1);
            Await.until("its row deleted", () -> counts(outbox).equals(new OutboxCounts(0, 0, 0)));
            Await.grace();
            Seen seen = listeners.seen.getFirst();
            assertThat(listeners.seen).hasSize(1);
            assertThat(seen.order()).isEqualTo(new Order("o-1", 2));
            assertThat(seen.eventId()).isNotBlank();
            assertThat(seen.keys()).as("the key header once, not stored and added again").containsExactly("o-1");
            assertThat(orders(jdbc)).isEqualTo(1);
        });
    }

    @Test
    void aRolledBackTransactionLeavesNoBusinessRowNoOutboxRowAndDeliversNothing() {
        Listeners listeners = new Listeners();
        runner(h2Url(), listeners).run(context -> {
            RingbusTemplate template = context.getBean(RingbusTemplate.class);
            JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
            TransactionTemplate tx = context.getBean(TransactionTemplate.class);
            tx.executeWithoutResult(status -> {
                jdbc.update("INSERT INTO orders VALUES ('o-2')");
                template.publish("orders.created", new Order("o-2", 1));
                status.setRollbackOnly();
            });
            assertThatThrownBy(() -> tx.executeWithoutResult(status -> {
                jdbc.update("INSERT INTO orders VALUES ('o-3')");
                template.publish("orders.created", new Order("o-3", 1));
                throw new IllegalStateException("business rule");
            })).hasMessage("business rule");
            assertThat(counts(context.getBean(Outbox.class))).isEqualTo(new OutboxCounts(0, 0, 0));
            assertThat(orders(jdbc)).isZero();

            // a later commit is delivered, and is the only delivery: the relay was running all along
            tx.executeWithoutResult(status -> template.publish("orders.created", new Order("o-4", 1)));
            Await.until("the committed event", () -> listeners.seen.size() == 1);
            Await.grace();
            assertThat(listeners.seen).extracting(Seen::order).containsExactly(new Order("o-4", 1));
        });
    }

    @Test
    void aSubjectNotGuaranteedIsPublishedAfterCommitWithoutTheOutbox() {
        runner(h2Url(), new Listeners()).withPropertyValues("ringbus.outbox.relay.enabled=false").run(context -> {
            assertThat(context).doesNotHaveBean(OutboxRelayLifecycle.class);
            List<Object> seen = new CopyOnWriteArrayList<>();
            context.getBean(Broker.class).subscribe("audit.>", m -> seen.add(m.payload()),
                    SubscribeOptions.defaults().mode(ExecutionMode.PUBLISHER));
            RingbusTemplate template = context.getBean(RingbusTemplate.class);
            context.getBean(TransactionTemplate.class).executeWithoutResult(status -> {
                template.publish("audit.created", "a-1");
                assertThat(seen).as("deferred to after commit").isEmpty();
            });
            assertThat(seen).containsExactly("a-1");
            assertThat(counts(context.getBean(Outbox.class))).as("nothing appended").isEqualTo(new OutboxCounts(0, 0, 0));
        });
    }

    @Test
    void aGuaranteedPublishOutsideATransactionIsRefusedNamingTheSubject() {
        runner(h2Url(), new Listeners()).run(context -> {
            RingbusTemplate template = context.getBean(RingbusTemplate.class);
            assertThatThrownBy(() -> template.publish("orders.created", new Order("o-5", 1)))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("needs a transaction")
                    .hasMessageContaining("subject=orders.created");
            assertThat(counts(context.getBean(Outbox.class))).isEqualTo(new OutboxCounts(0, 0, 0));
        });
    }

    @Test
    void theRelayStopsBeforeTheBrokerAndWhatIsLeftIsDeliveredAtTheNextStart() {
        String url = h2Url();
        Listeners listeners = new Listeners();
        int events = 300;
        List<Relay> firstRelay = new ArrayList<>();
        runner(url, listeners).withPropertyValues("ringbus.outbox.relay.batch-size=5").run(context -> {
            OutboxRelayLifecycle relay = context.getBean(OutboxRelayLifecycle.class);
            assertThat(relay.getPhase()).as("stops before the broker, starts after it")
                    .isGreaterThan(context.getBean(BrokerLifecycle.class).getPhase());
            firstRelay.add(relay.relay());
            RingbusTemplate template = context.getBean(RingbusTemplate.class);
            TransactionTemplate tx = context.getBean(TransactionTemplate.class);
            for (int i = 0; i < events; i += 50) {
                int first = i;
                tx.executeWithoutResult(status -> {
                    for (int j = first; j < first + 50; j++) {
                        template.publish("orders.created", new Order("o-" + j, j));
                    }
                });
            }
        });   // closed at once, the relay most likely mid-backlog
        assertThat(firstRelay.getFirst().stats().retried() + firstRelay.getFirst().stats().deadLettered())
                .as("no delivery failed: the broker was open for every one").isZero();

        runner(url, listeners).run(context -> {
            Await.until("every committed event", () -> distinctOrders(listeners) == events,
                    () -> distinctOrders(listeners));
            Await.until("the outbox empty", () -> counts(context.getBean(Outbox.class)).pending() == 0);
            assertThat(counts(context.getBean(Outbox.class)).dead()).isZero();
        });
    }

    @Test
    void theOutboxNeedsADataSourceItsClassesAndNotBeingDisabled() {
        runner(h2Url(), new Listeners()).run(context -> assertThat(context).hasSingleBean(Outbox.class)
                .hasSingleBean(OutboxPublisher.class).hasSingleBean(RingbusOutboxEndpoint.class));
        runner(h2Url(), new Listeners()).withPropertyValues("ringbus.outbox.enabled=false").run(context -> {
            assertThat(context).doesNotHaveBean(Outbox.class).doesNotHaveBean(OutboxPublisher.class);
            assertThat(context).hasSingleBean(RingbusTemplate.class);
        });
        runner(h2Url(), new Listeners()).withClassLoader(new FilteredClassLoader(Outbox.class)).run(context ->
                assertThat(context).hasNotFailed().doesNotHaveBean(OutboxPublisher.class));
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(RingbusAutoConfiguration.class,
                        RingbusOutboxAutoConfiguration.class))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(Outbox.class)
                        .hasSingleBean(RingbusTemplate.class));
    }

    @Test
    void aBadOutboxPropertyFailsTheContextNamingTheValue() {
        runner(h2Url(), new Listeners()).withPropertyValues("ringbus.outbox.guaranteed-subjects=orders..x")
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("orders..x"));
        runner(h2Url(), new Listeners()).withPropertyValues("ringbus.outbox.relay.batch-size=0")
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("batchSize=0"));
    }

    private static int distinctOrders(Listeners listeners) {
        return new HashSet<>(listeners.seen.stream().map(Seen::order).toList()).size();
    }

    // The operations as actuator's web layer maps them, invoked in-process; over real HTTP in
    // examples/order-service: OrderServiceTest#aDeadLetterIsListedRetriedAndDeletedThroughTheActuatorEndpointOverHttp
    @Test
    void aDeadLetterShowsInTheActuatorEndpointAndCanBeRetriedAndDeleted() {
        runner(h2Url(), new Listeners())
                .withPropertyValues("ringbus.outbox.relay.scope=PUBLIC", "ringbus.subjects[secret.>]=PRIVATE")
                .run(context -> {
                    Map<String, WebOperation> web = webOperations(context.getSourceApplicationContext());
                    assertThat(web).containsOnlyKeys("GET ringbusoutbox", "GET ringbusoutbox/{afterId}",
                            "POST ringbusoutbox/{id}", "DELETE ringbusoutbox/{id}");
                    context.getBean(TransactionTemplate.class).executeWithoutResult(status ->
                            context.getBean(RingbusTemplate.class).publish("secret.plans", "poison"));

                    Await.until("a dead letter", () -> ((Number) invoke(web, "GET ringbusoutbox", Map.of())
                            .get("dead")).longValue() == 1, () -> invoke(web, "GET ringbusoutbox", Map.of()));
                    Map<String, Object> row = deadLetters(invoke(web, "GET ringbusoutbox", Map.of())).getFirst();
                    assertThat(row).containsEntry("subject", "secret.plans").containsEntry("payloadBytes", 6);
                    assertThat((String) row.get("lastError")).isNotBlank();
                    long id = ((Number) row.get("id")).longValue();
                    assertThat(deadLetters(invoke(web, "GET ringbusoutbox/{afterId}", Map.of("afterId", id))))
                            .as("the page after the last one").isEmpty();

                    Map<String, Object> byId = Map.of("id", id);
                    assertThat(invoke(web, "POST ringbusoutbox/{id}", byId)).containsEntry("retried", true);
                    Outbox outbox = context.getBean(Outbox.class);
                    // pending again, then refused again by the broker's scope: dead once more
                    Await.until("tried again", () -> firstRelayDeadLettered(context) == 2);
                    Await.until("dead again", () -> counts(outbox).dead() == 1);

                    assertThat(invoke(web, "DELETE ringbusoutbox/{id}", byId)).containsEntry("deleted", true);
                    assertThat(invoke(web, "DELETE ringbusoutbox/{id}", byId)).containsEntry("deleted", false);
                    assertThat(invoke(web, "POST ringbusoutbox/{id}", byId)).containsEntry("retried", false);
                    Map<String, Object> after = invoke(web, "GET ringbusoutbox", Map.of());
                    assertThat(after).containsEntry("dead", 0L).containsEntry("pending", 0L);
                    assertThat(deadLetters(after)).isEmpty();
                });
    }

    // Delivered rows are deleted, so the table's "delivered" was always 0 (issue 28): the endpoint
    // reports the relay's own count, and names the table's count for what it is.
    @Test
    void theActuatorEndpointCountsWhatThisApplicationsRelayDeliveredThoughTheRowsAreDeleted() {
        Listeners listeners = new Listeners();
        runner(h2Url(), listeners).run(context -> {
            Map<String, WebOperation> web = webOperations(context.getSourceApplicationContext());
            TransactionTemplate transactions = context.getBean(TransactionTemplate.class);
            for (int i = 1; i <= 3; i++) {
                Order order = new Order("o-" + i, i);
                transactions.executeWithoutResult(status ->
                        context.getBean(RingbusTemplate.class).publish("orders.created", order));
            }
            Await.until("3 delivered", () -> listeners.seen.size() == 3);
            Await.until("the relay counted them", () -> relayFigures(invoke(web, "GET ringbusoutbox", Map.of()))
                    .get("deliveredSinceStart").equals(3L), () -> invoke(web, "GET ringbusoutbox", Map.of()));

            Map<String, Object> body = invoke(web, "GET ringbusoutbox", Map.of());
            assertThat(body).containsEntry("pending", 0L).containsEntry("dead", 0L)
                    .containsEntry("deliveredInTable", 0L).doesNotContainKey("delivered");
            assertThat(relayFigures(body)).containsEntry("running", true).containsEntry("name", "ringbus-outbox")
                    .containsEntry("retriedSinceStart", 0L).containsEntry("deadLetteredSinceStart", 0L);
        });
        runner(h2Url(), new Listeners()).withPropertyValues("ringbus.outbox.relay.enabled=false").run(context ->
                assertThat(relayFigures(invoke(webOperations(context.getSourceApplicationContext()),
                        "GET ringbusoutbox", Map.of()))).containsExactly(Map.entry("running", false)));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> relayFigures(Map<String, Object> body) {
        return (Map<String, Object>) body.get("relay");
    }

    /** The endpoint's operations as actuator's web layer maps them ("GET ringbusoutbox/{id}"). */
    private static Map<String, WebOperation> webOperations(ApplicationContext context) {
        WebEndpointDiscoverer discoverer = new WebEndpointDiscoverer(context,
                new ConversionServiceParameterValueMapper(), new EndpointMediaTypes("application/json"),
                List.of(), List.of(), List.of(), List.of(), List.of());
        ExposableWebEndpoint endpoint = discoverer.getEndpoints().stream()
                .filter(e -> e.getEndpointId().toString().equals("ringbusoutbox")).findFirst().orElseThrow();
        Map<String, WebOperation> operations = new TreeMap<>();
        for (WebOperation operation : endpoint.getOperations()) {
            WebOperationRequestPredicate predicate = operation.getRequestPredicate();
            operations.put(predicate.getHttpMethod() + " " + predicate.getPath(), operation);
        }
        return operations;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> invoke(Map<String, WebOperation> web, String operation,
                                              Map<String, Object> arguments) {
        return (Map<String, Object>) web.get(operation).invoke(new InvocationContext(SecurityContext.NONE, arguments));
    }

    private static long firstRelayDeadLettered(ApplicationContext context) {
        return context.getBean(OutboxRelayLifecycle.class).relay().stats().deadLettered();
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> deadLetters(Map<String, Object> body) {
        return (List<Map<String, Object>>) body.get("deadLetters");
    }
}
