package io.ringbus.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.ringbus.core.Broker;
import io.ringbus.core.ExecutionMode;
import io.ringbus.core.Headers;
import io.ringbus.core.Message;
import io.ringbus.testkit.Await;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import tools.jackson.databind.json.JsonMapper;

class RingbusListenerTest {

    /** A payload type the listeners take. */
    public record Order(String id, int quantity) {
    }

    /** What one listener call saw. */
    record Seen(String listener, Object payload, String thread, boolean virtual, String header) {
    }

    static class Listeners {
        final List<Seen> seen = new CopyOnWriteArrayList<>();

        @RingbusListener(subject = "orders.*.loop", mode = ExecutionMode.EVENT_LOOP)
        void onLoop(Order order, Message message) {
            seen.add(new Seen("loop", order, Thread.currentThread().getName(), Thread.currentThread().isVirtual(),
                    message.headers().first("trace")));
        }

        @RingbusListener(subject = "orders.*.worker", mode = ExecutionMode.WORKER)
        void onWorker(Headers headers, Order order) {
            seen.add(new Seen("worker", order, Thread.currentThread().getName(), Thread.currentThread().isVirtual(),
                    headers.first("trace")));
        }

        @RingbusListener(subject = "orders.*.virtual", mode = ExecutionMode.VIRTUAL)
        void onVirtual(Order order) {
            seen.add(new Seen("virtual", order, Thread.currentThread().getName(), Thread.currentThread().isVirtual(),
                    null));
        }

        @RingbusListener(subject = "text.${test.suffix:plain}")
        void onText(String text) {
            seen.add(new Seen("text", text, Thread.currentThread().getName(), false, null));
        }

        @RingbusListener(subject = "raw")
        void onRaw(byte[] raw) {
            seen.add(new Seen("raw", new String(raw, StandardCharsets.UTF_8), "", false, null));
        }

        @RingbusListener(subject = "orders.fail", mode = ExecutionMode.WORKER)
        void onFail(Order order) {
            throw new IllegalStateException("refused " + order.id());
        }

        @RingbusListener(subject = "price.get", mode = ExecutionMode.VIRTUAL)
        Order price(Order order) {
            return new Order(order.id(), order.quantity() * 10);
        }
    }

    /** Records what reaches the error handler. */
    static class RecordingErrorHandler implements RingbusListenerErrorHandler {
        final List<String> errors = new CopyOnWriteArrayList<>();

        @Override
        public void handleError(Throwable error, Message message, String pattern, Method listener) {
            errors.add(error.getClass().getSimpleName() + ":" + error.getMessage() + "@" + pattern + "/"
                    + listener.getName() + "/" + message.subject());
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class App {
        @Bean
        Listeners listeners() {
            return new Listeners();
        }

        @Bean
        JsonMapper jsonMapper() {
            return JsonMapper.builder().build();
        }
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RingbusAutoConfiguration.class))
            .withUserConfiguration(App.class);

    @Test
    void listenersRunInTheirModeAndGetInProcessObjectsAsIs() {
        runner.run(context -> {
            Listeners listeners = context.getBean(Listeners.class);
            RingbusTemplate template = context.getBean(RingbusTemplate.class);
            Order order = new Order("o-1", 3);
            Headers trace = Headers.of("trace", "t-1");
            template.publish("orders.eu.loop", trace, order);
            template.publish("orders.eu.worker", trace, order);
            template.publish("orders.eu.virtual", order);
            Await.until("three listeners called", () -> listeners.seen.size() == 3, () -> listeners.seen);
            for (Seen seen : listeners.seen) {
                assertThat(seen.payload()).as(seen.listener()).isSameAs(order);
                switch (seen.listener()) {
                    case "loop" -> assertThat(seen).extracting(Seen::thread, Seen::virtual, Seen::header)
                            .containsExactly("ringbus-loop-0", false, "t-1");
                    case "worker" -> assertThat(seen).satisfies(s -> {
                        assertThat(s.thread()).startsWith("ringbus-worker-");
                        assertThat(s.virtual()).isFalse();
                        assertThat(s.header()).isEqualTo("t-1");
                    });
                    default -> assertThat(seen.virtual()).isTrue();
                }
            }
        });
    }

    @Test
    void networkBytesAreReadAsJsonIntoTheParameterTypeOrPassedAsTextOrBytes() {
        runner.withPropertyValues("test.suffix=resolved").run(context -> {
            Listeners listeners = context.getBean(Listeners.class);
            Broker broker = context.getBean(Broker.class);
            byte[] json = "{\"id\":\"o-2\",\"quantity\":5}".getBytes(StandardCharsets.UTF_8);
            broker.publish("orders.us.worker", json);
            broker.publish("orders.us.loop", json);
            broker.publish("orders.us.virtual", "{\"id\":\"o-3\",\"quantity\":7}");
            broker.publish("text.resolved", "hello".getBytes(StandardCharsets.UTF_8));
            broker.publish("raw", "bytes");
            Await.until("five listeners called", () -> listeners.seen.size() == 5, () -> listeners.seen);
            assertThat(listeners.seen).extracting(Seen::listener, Seen::payload).containsExactlyInAnyOrder(
                    org.assertj.core.groups.Tuple.tuple("worker", new Order("o-2", 5)),
                    org.assertj.core.groups.Tuple.tuple("loop", new Order("o-2", 5)),
                    org.assertj.core.groups.Tuple.tuple("virtual", new Order("o-3", 7)),
                    org.assertj.core.groups.Tuple.tuple("text", "hello"),
                    org.assertj.core.groups.Tuple.tuple("raw", "bytes"));
        });
    }

    @Test
    void aThrowingListenerAndABadPayloadReachTheErrorHandlerAndTheListenerKeepsRunning() {
        runner.withBean(RecordingErrorHandler.class, RecordingErrorHandler::new).run(context -> {
            RecordingErrorHandler handler = context.getBean(RecordingErrorHandler.class);
            Broker broker = context.getBean(Broker.class);
            broker.publish("orders.fail", new Order("o-4", 1));
            broker.publish("orders.eu.worker", 42);
            broker.publish("orders.fail", new Order("o-5", 1));
            Await.until("three errors handled", () -> handler.errors.size() == 3, () -> handler.errors);
            assertThat(handler.errors).contains(
                    "IllegalStateException:refused o-4@orders.fail/onFail/orders.fail",
                    "IllegalStateException:refused o-5@orders.fail/onFail/orders.fail");
            assertThat(handler.errors).anyMatch(e -> e.startsWith("IllegalArgumentException:cannot convert")
                    && e.endsWith("@orders.*.worker/onWorker/orders.eu.worker"));
        });
    }

    @Test
    void theDefaultErrorHandlerCountsAMeter() {
        runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new).run(context -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            context.getBean(Broker.class).publish("orders.fail", new Order("o-6", 1));
            // The counter is registered, then incremented, on the handler's thread: wait for the count.
            Await.until("the error counted", () -> {
                io.micrometer.core.instrument.Counter errors = registry.find("ringbus.spring.listener.errors")
                        .tag("pattern", "orders.fail").counter();
                return errors != null && errors.count() >= 1.0;
            });
            assertThat(registry.get("ringbus.spring.listener.errors").counter().count()).isEqualTo(1.0);
        });
    }

    @Test
    void aReturnValueAnswersARequest() {
        runner.run(context -> {
            RingbusTemplate template = context.getBean(RingbusTemplate.class);
            Message reply = template.request("price.get", new Order("o-7", 2), Duration.ofSeconds(10)).get();
            assertThat(reply.payload()).isEqualTo(new Order("o-7", 20));
            // a network requester (byte[] payload) gets JSON bytes back
            Message bytes = template.request("price.get", "{\"id\":\"o-8\",\"quantity\":4}".getBytes(
                    StandardCharsets.UTF_8), Duration.ofSeconds(10)).get();
            assertThat(new String((byte[]) bytes.payload(), StandardCharsets.UTF_8))
                    .isEqualTo("{\"id\":\"o-8\",\"quantity\":40}");
        });
    }

    @Test
    void listenersUnsubscribeWhenTheContextCloses() {
        Broker[] broker = new Broker[1];
        runner.run(context -> {
            broker[0] = context.getBean(Broker.class);
            assertThat(broker[0].stats().subscriptions()).hasSize(7);
        });
        assertThat(broker[0].isClosed()).isTrue();
    }
}
