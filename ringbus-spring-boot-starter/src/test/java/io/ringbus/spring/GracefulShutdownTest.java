package io.ringbus.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.ringbus.core.Broker;
import io.ringbus.core.ExecutionMode;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

class GracefulShutdownTest {

    /** A slow listener: most messages are still buffered when the context starts closing. */
    static class SlowListener {
        final AtomicInteger seen = new AtomicInteger();
        final List<String> events = new CopyOnWriteArrayList<>();

        @RingbusListener(subject = "work.>", mode = ExecutionMode.WORKER, bufferSize = 8192)
        void onWork(byte[] payload) {
            LockSupport.parkNanos(50_000);
            seen.incrementAndGet();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class App {
        @Bean
        SlowListener slowListener() {
            return new SlowListener();
        }
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RingbusAutoConfiguration.class, RingbusServerAutoConfiguration.class))
            .withUserConfiguration(App.class)
            .withPropertyValues("ringbus.shutdown-timeout=30s");

    @Test
    void closingTheContextDeliversEverythingAcceptedInProcess() {
        int n = 5_000;
        SlowListener[] listener = new SlowListener[1];
        Broker[] broker = new Broker[1];
        runner.run(context -> {
            listener[0] = context.getBean(SlowListener.class);
            broker[0] = context.getBean(Broker.class);
            RingbusTemplate template = context.getBean(RingbusTemplate.class);
            byte[] payload = "x".getBytes(StandardCharsets.UTF_8);
            for (int i = 0; i < n; i++) {
                template.publish("work.local", payload);
            }
            assertThat(listener[0].seen.get()).as("still buffered when the context closes").isLessThan(n);
        });
        assertThat(broker[0].isClosed()).isTrue();
        assertThat(listener[0].seen.get()).isEqualTo(n);
    }

    @Test
    void closingTheContextDeliversEverythingTheServerAcceptedFromTheNetwork() throws Exception {
        int n = 5_000;
        SlowListener[] listener = new SlowListener[1];
        Connection[] nats = new Connection[1];
        runner.withPropertyValues("ringbus.server.enabled=true", "ringbus.server.port=0",
                "ringbus.server.host=127.0.0.1", "ringbus.server.no-auth-scope=PRIVATE").run(context -> {
                    listener[0] = context.getBean(SlowListener.class);
                    int port = context.getBean(EmbeddedRingbusServer.class).port();
                    nats[0] = Nats.connect(new Options.Builder().server("nats://127.0.0.1:" + port)
                            .noReconnect().build());
                    for (int i = 0; i < n; i++) {
                        nats[0].publish("work.net", "y".getBytes(StandardCharsets.UTF_8));
                    }
                    nats[0].flush(Duration.ofSeconds(20));
                    assertThat(listener[0].seen.get()).as("still buffered when the context closes").isLessThan(n);
                });
        nats[0].close();
        assertThat(listener[0].seen.get()).isEqualTo(n);
    }
}
