package io.ringbus.core;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.List;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.assertThatNoException;

/** The builder validates every setting at once, naming the bad value. */
@Timeout(30)
class BrokerBuilderTest {

    @Test
    void ringSizeThatIsNotAPowerOfTwoIsRejectedNamingIt() {
        assertThatThrownBy(() -> Broker.builder().ringSize(1000))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ringSize").hasMessageContaining("1000");
    }

    @ParameterizedTest
    @ValueSource(ints = {0, -1, 1, 3, 6, 1000, Integer.MIN_VALUE, Integer.MAX_VALUE, (1 << 30) + 1})
    void badRingSizesAreRejected(int ringSize) {
        assertThatThrownBy(() -> Broker.builder().ringSize(ringSize))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ringSize").hasMessageContaining(String.valueOf(ringSize));
    }

    @Test
    void ringSizeBoundsAreAccepted() {
        assertThatNoException().isThrownBy(() -> Broker.builder().ringSize(2).ringSize(BrokerBuilder.MAX_RING_SIZE));
    }

    @ParameterizedTest
    @ValueSource(ints = {0, -1, BrokerBuilder.MAX_EVENT_LOOPS + 1})
    void badEventLoopCountsAreRejected(int eventLoops) {
        assertThatThrownBy(() -> Broker.builder().eventLoops(eventLoops))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("eventLoops").hasMessageContaining(String.valueOf(eventLoops));
    }

    @ParameterizedTest
    @ValueSource(ints = {0, -5, BrokerBuilder.MAX_WORKER_POOL_SIZE + 1})
    void badWorkerPoolSizesAreRejected(int size) {
        assertThatThrownBy(() -> Broker.builder().workerPoolSize(size))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("workerPoolSize").hasMessageContaining(String.valueOf(size));
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 15, -1, (1 << 24) + 1})
    void badRouteCacheSizesAreRejected(int size) {
        assertThatThrownBy(() -> Broker.builder().routeCacheSize(size))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("routeCacheSize").hasMessageContaining(String.valueOf(size));
    }

    @Test
    void blankNamesAreRejected() {
        for (String name : new String[] {null, "", "   "}) {
            assertThatThrownBy(() -> Broker.builder().name(name)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("name");
        }
    }

    @Test
    void nonPositiveDurationsAreRejectedNamingTheSetting() {
        List<String> settings = List.of("maxEventLoopExecuteTime", "maxWorkerExecuteTime", "maxVirtualExecuteTime",
                "watchdogInterval", "shutdownTimeout");
        List<Function<Duration, BrokerBuilder>> setters = List.of(
                d -> Broker.builder().maxEventLoopExecuteTime(d),
                d -> Broker.builder().maxWorkerExecuteTime(d),
                d -> Broker.builder().maxVirtualExecuteTime(d),
                d -> Broker.builder().watchdogInterval(d),
                d -> Broker.builder().shutdownTimeout(d));
        for (int i = 0; i < settings.size(); i++) {
            Function<Duration, BrokerBuilder> setter = setters.get(i);
            for (Duration bad : new Duration[] {Duration.ZERO, Duration.ofMillis(-1), null}) {
                assertThatThrownBy(() -> setter.apply(bad)).isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining(settings.get(i)).hasMessageContaining(String.valueOf(bad));
            }
        }
    }

    @Test
    void nullReferencesAreRejected() {
        assertThatThrownBy(() -> Broker.builder().waitStrategy(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> Broker.builder().defaultScope(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> Broker.builder().errorHandler(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> Broker.builder().blockedHandlerListener(null))
                .isInstanceOf(NullPointerException.class);
    }

    @Test
    void subscribeOptionsRejectBadSizesNamingThem() {
        assertThatThrownBy(() -> SubscribeOptions.defaults().bufferSize(1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bufferSize=1");
        assertThatThrownBy(() -> SubscribeOptions.defaults().maxConcurrency(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxConcurrency=0");
    }

    @Test
    void defaultsAreAsDocumented() {
        try (Broker broker = Broker.builder().build()) {
            assertThat(broker.stats().ringSize()).isEqualTo(16_384);
            assertThat(broker.scopeOf("unregistered")).isEqualTo(Scope.PRIVATE);
            RecordingHandler handler = new RecordingHandler();
            broker.subscribe("a", handler);
            broker.publish("a", 1);
            handler.awaitCount(1);
            assertThat(handler.threads().get(0).getName()).startsWith("ringbus");
        }
    }

    @Test
    void eachBuildMakesAnIndependentBroker() {
        BrokerBuilder builder = Broker.builder().name("builder").ringSize(64);
        Broker first = builder.build();
        try (Broker second = builder.build()) {
            RecordingHandler inFirst = new RecordingHandler();
            RecordingHandler inSecond = new RecordingHandler();
            first.subscribe("a", inFirst);
            second.subscribe("a", inSecond);
            first.registerSubject("a", Scope.PUBLIC);
            assertThat(second.scopeOf("a")).isEqualTo(Scope.PRIVATE);
            first.publish("a", "first");
            inFirst.awaitCount(1);
            first.close();
            second.publish("a", "second");
            inSecond.awaitCount(1);
            assertThat(inFirst.payloads()).containsExactly("first");
            assertThat(inSecond.payloads()).containsExactly("second");
            assertThat(second.isClosed()).isFalse();
        } finally {
            first.close();
        }
    }
}
