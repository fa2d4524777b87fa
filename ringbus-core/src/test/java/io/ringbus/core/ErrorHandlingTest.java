package io.ringbus.core;

import io.ringbus.testkit.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/** A handler's exception goes to the error handler and is counted; delivery carries on. */
@Timeout(30)
class ErrorHandlingTest {

    /** What the error handler was given. */
    record Reported(Throwable error, Message message, Subscription subscription, Thread thread) {
    }

    @ParameterizedTest
    @EnumSource(ExecutionMode.class)
    void handlerExceptionGoesToTheErrorHandlerAndDeliveryContinues(ExecutionMode mode) {
        List<Reported> reported = new CopyOnWriteArrayList<>();
        try (Broker broker = Broker.builder().name("errors").ringSize(64)
                .errorHandler((error, message, subscription) ->
                        reported.add(new Reported(error, message.copy(), subscription, Thread.currentThread())))
                .build()) {
            RuntimeException boom = new IllegalStateException("boom");
            RecordingHandler calls = new RecordingHandler();
            AtomicReference<Thread> throwingThread = new AtomicReference<>();
            Subscription failing = broker.subscribe("a.*", message -> {
                calls.onMessage(message);
                if (message.payload().equals(3)) {
                    throwingThread.set(Thread.currentThread());
                    throw boom;
                }
            }, SubscribeOptions.defaults().mode(mode));
            RecordingHandler other = new RecordingHandler();
            broker.subscribe("a.*", other, SubscribeOptions.defaults().mode(mode));
            for (int i = 0; i < 10; i++) {
                broker.publish("a." + i, i);
            }
            calls.awaitCount(10);
            other.awaitCount(10);
            assertThat(calls.payloads()).isEqualTo(ExecutionModeTest.range(10));
            assertThat(other.payloads()).isEqualTo(ExecutionModeTest.range(10));
            Await.until("the error was reported", () -> !reported.isEmpty());
            assertThat(reported).hasSize(1);
            Reported report = reported.get(0);
            assertThat(report.error()).isSameAs(boom);
            assertThat(report.message().subject()).isEqualTo("a.3");
            assertThat(report.message().payload()).isEqualTo(3);
            assertThat(report.subscription().id()).isEqualTo(failing.id());
            assertThat(report.thread()).as("called on the thread that ran the handler").isSameAs(throwingThread.get());
            assertThat(failing.isActive()).isTrue();
            assertThat(broker.stats().handlerErrors()).isEqualTo(1);
            Await.until("delivered counts every call", () -> failing.delivered() == 10, failing::delivered);
        }
    }

    @Test
    void throwingErrorHandlerDoesNotStopTheLoop() {
        AtomicInteger reports = new AtomicInteger();
        try (Broker broker = Broker.builder().name("errors").ringSize(64)
                .errorHandler((error, message, subscription) -> {
                    reports.incrementAndGet();
                    throw new IllegalStateException("error handler fails too");
                })
                .build()) {
            AtomicInteger calls = new AtomicInteger();
            broker.subscribe("a", message -> {
                calls.incrementAndGet();
                throw new IllegalArgumentException("always");
            });
            RecordingHandler other = new RecordingHandler();
            broker.subscribe("a", other);
            for (int i = 0; i < 100; i++) {
                broker.publish("a", i);
            }
            other.awaitCount(100);
            Await.until("every call was made", () -> calls.get() == 100, calls::get);
            Await.until("every error was reported", () -> reports.get() == 100, reports::get);
            assertThat(broker.stats().handlerErrors()).isEqualTo(100);
            assertThat(other.payloads()).isEqualTo(ExecutionModeTest.range(100));
        }
    }

    @ParameterizedTest
    @EnumSource(ExecutionMode.class)
    void defaultErrorHandlerLogsAndDeliveryContinues(ExecutionMode mode) {
        try (Broker broker = Broker.builder().name("errors").ringSize(64).build()) {
            RecordingHandler calls = new RecordingHandler();
            broker.subscribe("a", message -> {
                calls.onMessage(message);
                if (message.payload().equals(0)) {
                    throw new IllegalStateException("expected by the test: logged by the default error handler");
                }
            }, SubscribeOptions.defaults().mode(mode));
            broker.publish("a", 0);
            broker.publish("a", 1);
            calls.awaitCount(2);
            assertThat(calls.payloads()).containsExactly(0, 1);
            assertThat(broker.stats().handlerErrors()).isEqualTo(1);
        }
    }
}
