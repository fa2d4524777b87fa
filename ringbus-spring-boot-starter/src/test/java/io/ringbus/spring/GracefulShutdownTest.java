package io.ringbus.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.ringbus.core.Broker;
import io.ringbus.core.ExecutionMode;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

class GracefulShutdownTest {

    /**
     * A listener held at its first message until the context starts closing: when shutdown begins,
     * every message but none handled is still in its buffer.
     */
    static class HeldListener {
        final AtomicInteger seen = new AtomicInteger();
        final CountDownLatch gate = new CountDownLatch(1);

        @RingbusListener(subject = "work.>", mode = ExecutionMode.WORKER, bufferSize = 8192)
        void onWork(byte[] payload) throws InterruptedException {
            gate.await();
            seen.incrementAndGet();
        }
    }

    /** Opens the listener's gate when shutdown begins, before the server and the broker stop. */
    static class GateOpener implements SmartLifecycle {
        private final HeldListener listener;
        private volatile boolean running;

        GateOpener(HeldListener listener) {
            this.listener = listener;
        }

        @Override
        public void start() {
            running = true;
        }

        @Override
        public void stop() {
            running = false;
            listener.gate.countDown();
        }

        @Override
        public boolean isRunning() {
            return running;
        }

        @Override
        public int getPhase() {
            return RingbusAutoConfiguration.SERVER_PHASE + 1;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class App {
        @Bean
        HeldListener heldListener() {
            return new HeldListener();
        }

        @Bean
        GateOpener gateOpener(HeldListener listener) {
            return new GateOpener(listener);
        }
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RingbusAutoConfiguration.class, RingbusServerAutoConfiguration.class))
            .withUserConfiguration(App.class)
            .withPropertyValues("ringbus.shutdown-timeout=30s");

    @Test
    void closingTheContextDeliversEverythingAcceptedInProcess() {
        int n = 5_000;
        HeldListener[] listener = new HeldListener[1];
        Broker[] broker = new Broker[1];
        runner.run(context -> {
            listener[0] = context.getBean(HeldListener.class);
            broker[0] = context.getBean(Broker.class);
            RingbusTemplate template = context.getBean(RingbusTemplate.class);
            byte[] payload = "x".getBytes(StandardCharsets.UTF_8);
            for (int i = 0; i < n; i++) {
                template.publish("work.local", payload);
            }
            assertThat(listener[0].seen.get()).as("all buffered when the context closes").isZero();
        });
        assertThat(broker[0].isClosed()).isTrue();
        assertThat(listener[0].seen.get()).isEqualTo(n);
    }

    @Test
    void closingTheContextDeliversEverythingTheServerAcceptedFromTheNetwork() throws Exception {
        int n = 5_000;
        HeldListener[] listener = new HeldListener[1];
        Connection[] nats = new Connection[1];
        runner.withPropertyValues("ringbus.server.enabled=true", "ringbus.server.port=0",
                "ringbus.server.host=127.0.0.1", "ringbus.server.no-auth-scope=PRIVATE").run(context -> {
                    listener[0] = context.getBean(HeldListener.class);
                    int port = context.getBean(EmbeddedRingbusServer.class).port();
                    nats[0] = Nats.connect(new Options.Builder().server("nats://127.0.0.1:" + port)
                            .noReconnect().build());
                    for (int i = 0; i < n; i++) {
                        nats[0].publish("work.net", "y".getBytes(StandardCharsets.UTF_8));
                    }
                    nats[0].flush(Duration.ofSeconds(20));
                    assertThat(listener[0].seen.get()).as("all buffered when the context closes").isZero();
                });
        nats[0].close();
        assertThat(listener[0].seen.get()).isEqualTo(n);
    }
}
