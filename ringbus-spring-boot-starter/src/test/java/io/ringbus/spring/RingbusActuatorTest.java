package io.ringbus.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbus.core.Broker;
import io.ringbus.core.ExecutionMode;
import io.ringbus.core.SubscribeOptions;
import io.ringbus.server.RingbusServer;
import io.ringbus.testkit.Await;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.info.Info;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

class RingbusActuatorTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RingbusAutoConfiguration.class,
                    RingbusServerAutoConfiguration.class, RingbusActuatorAutoConfiguration.class));

    @Test
    void healthReportsTheRingAndWatchdogWarningsAndGoesDownWhenTheBrokerCloses() throws Exception {
        runner.withPropertyValues("ringbus.ring-size=64", "ringbus.max-worker-execute-time=50ms",
                "ringbus.watchdog-interval=20ms").run(context -> {
                    RingbusHealthIndicator indicator = context.getBean(RingbusHealthIndicator.class);
                    Health health = indicator.health();
                    assertThat(health.getStatus()).isEqualTo(Status.UP);
                    assertThat(health.getDetails()).containsEntry("ringSize", 64)
                            .containsEntry("ringRemainingCapacity", 64L).containsEntry("watchdogWarnings", 0L)
                            .doesNotContainKey("server.port");
                    Broker broker = context.getBean(Broker.class);
                    CountDownLatch release = new CountDownLatch(1);
                    broker.subscribe("slow", m -> Await.quietly(release),
                            SubscribeOptions.defaults().mode(ExecutionMode.WORKER));
                    broker.publish("slow", "x");
                    Await.until("a watchdog warning", () -> broker.stats().watchdogWarnings() > 0);
                    Map<String, Object> details = indicator.health().getDetails();
                    assertThat((Long) details.get("watchdogWarnings")).isPositive();
                    assertThat((Long) details.get("watchdogWarningsSinceLastCheck")).isPositive();
                    release.countDown();
                    broker.close();
                    assertThat(indicator.health().getStatus()).isEqualTo(Status.DOWN);
                });
    }

    @Test
    void healthShowsTheEmbeddedServerAndInfoTheSubscriptions() {
        runner.withPropertyValues("ringbus.server.enabled=true", "ringbus.server.port=0",
                "ringbus.server.host=127.0.0.1", "ringbus.subjects[orders.>]=PUBLIC").run(context -> {
                    int port = context.getBean(EmbeddedRingbusServer.class).port();
                    assertThat(port).isPositive();
                    Health health = context.getBean(RingbusHealthIndicator.class).health();
                    assertThat(health.getStatus()).isEqualTo(Status.UP);
                    assertThat(health.getDetails()).containsEntry("server.port", port)
                            .containsEntry("server.connections", 0L);
                    context.getBean(Broker.class).subscribe("orders.>", m -> { });
                    Info.Builder info = new Info.Builder();
                    context.getBean(RingbusInfoContributor.class).contribute(info);
                    @SuppressWarnings("unchecked")
                    Map<String, Object> ringbus = (Map<String, Object>) info.build().getDetails().get("ringbus");
                    assertThat(ringbus).containsEntry("serverPort", port)
                            .containsEntry("subscriptions", Map.of("orders.>", "EVENT_LOOP"));
                    context.getBean(EmbeddedRingbusServer.class).stop();
                    assertThat(context.getBean(RingbusHealthIndicator.class).health().getStatus())
                            .isEqualTo(Status.DOWN);
                });
    }

    @Test
    void theHealthIndicatorCanBeTurnedOff() {
        runner.withPropertyValues("management.health.ringbus.enabled=false").run(context ->
                assertThat(context).doesNotHaveBean(RingbusHealthIndicator.class)
                        .hasSingleBean(RingbusInfoContributor.class));
    }

    @Test
    void worksWithoutTheServerOnTheClasspath() {
        runner.withClassLoader(new FilteredClassLoader(RingbusServer.class)).run(context -> {
            assertThat(context).hasNotFailed().doesNotHaveBean(EmbeddedRingbusServer.class);
            assertThat(context.getBean(RingbusHealthIndicator.class).health().getStatus()).isEqualTo(Status.UP);
        });
    }
}
