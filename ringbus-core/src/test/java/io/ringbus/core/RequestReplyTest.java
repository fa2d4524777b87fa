package io.ringbus.core;

import io.ringbus.testkit.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Request/reply over reply subjects. */
@Timeout(60)
class RequestReplyTest {
    private static final Duration LONG = Duration.ofSeconds(30);

    private static Broker newBroker() {
        return Broker.builder().name("request").ringSize(1024).build();
    }

    private static Message get(CompletableFuture<Message> future) throws Exception {
        return future.get(Await.TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** The cause the future failed with, waiting at most {@code bound}. */
    private static Throwable failure(CompletableFuture<Message> future, Duration bound) throws Exception {
        try {
            Message reply = future.get(bound.toMillis(), TimeUnit.MILLISECONDS);
            throw new AssertionError("expected a failure, got a reply: " + reply);
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (TimeoutException e) {
            throw new AssertionError("the future did not complete within " + bound, e);
        }
    }

    @ParameterizedTest
    @EnumSource(ExecutionMode.class)
    void responderRepliesOnTheReplySubject(ExecutionMode mode) throws Exception {
        try (Broker broker = newBroker()) {
            broker.subscribe("svc.double", message ->
                            broker.publish(message.replyTo(), null, Headers.of("from", "svc"),
                                    2 * (Integer) message.payload()),
                    SubscribeOptions.defaults().mode(mode));
            Message reply = get(broker.request("svc.double", 21, LONG));
            assertThat(reply.payload()).isEqualTo(42);
            assertThat(reply.headers().first("from")).isEqualTo("svc");
            assertThat(reply.copy().payload()).isEqualTo(42);
            Message again = get(broker.request("svc.double", 5, LONG));
            assertThat(again.payload()).isEqualTo(10);
            assertThat(reply.payload()).as("a reply stays intact after later traffic").isEqualTo(42);
        }
    }

    @Test
    void requestCarriesHeadersAndAReplySubject() throws Exception {
        try (Broker broker = newBroker()) {
            RecordingHandler seen = new RecordingHandler();
            broker.subscribe("svc.echo", message -> {
                seen.onMessage(message);
                broker.publish(message.replyTo(), message.headers().first("trace"));
            });
            Message reply = get(broker.request("svc.echo", Headers.of("trace", "t-1"), "body", LONG));
            assertThat(reply.payload()).isEqualTo("t-1");
            Message request = seen.messages().get(0);
            assertThat(request.replyTo()).isNotNull().isNotEqualTo("svc.echo");
            assertThat(request.payload()).isEqualTo("body");
            assertThat(reply.subject()).isEqualTo(request.replyTo());
        }
    }

    @Test
    void requestWithoutRespondersFailsFast() throws Exception {
        try (Broker broker = newBroker()) {
            broker.subscribe("other.subject", message -> { });
            CompletableFuture<Message> future = broker.request("nobody.home", "x", LONG);
            // 30 s timeout; completing within 10 s shows it did not wait for it.
            Throwable cause = failure(future, Duration.ofSeconds(10));
            assertThat(cause).isInstanceOf(NoRespondersException.class).hasMessageContaining("nobody.home");
            assertThat(((NoRespondersException) cause).subject()).isEqualTo("nobody.home");
        }
    }

    @Test
    void requestFailsFastOnceTheOnlyResponderUnsubscribed() throws Exception {
        try (Broker broker = newBroker()) {
            Subscription responder = broker.subscribe("svc.gone", message -> broker.publish(message.replyTo(), "ok"));
            assertThat(get(broker.request("svc.gone", "x", LONG)).payload()).isEqualTo("ok");
            responder.unsubscribe();
            Throwable cause = failure(broker.request("svc.gone", "x", LONG), Duration.ofSeconds(10));
            assertThat(cause).isInstanceOf(NoRespondersException.class);
        }
    }

    @Test
    void requestFailsFastWhenNoSubscriberMaySeeTheSubject() throws Exception {
        try (Broker broker = newBroker()) {
            broker.client(Scope.PUBLIC).subscribe(">", message -> { });
            Throwable cause = failure(broker.request("private.svc", "x", LONG), Duration.ofSeconds(10));
            assertThat(cause).isInstanceOf(NoRespondersException.class);
        }
    }

    @Test
    void requestTimesOutWhenNobodyReplies() throws Exception {
        try (Broker broker = newBroker()) {
            RecordingHandler silent = new RecordingHandler();
            broker.subscribe("svc.silent", silent);
            long start = System.nanoTime();
            CompletableFuture<Message> future = broker.request("svc.silent", "x", Duration.ofMillis(200));
            Throwable cause = failure(future, Await.TIMEOUT);
            assertThat(cause).isInstanceOf(TimeoutException.class);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("not before the timeout")
                    .isGreaterThanOrEqualTo(Duration.ofMillis(200));
            assertThat(silent.count()).isEqualTo(1);
        }
    }

    @Test
    void lateReplyAfterTimeoutIsHarmless() throws Exception {
        try (Broker broker = newBroker()) {
            List<String> inboxes = new CopyOnWriteArrayList<>();
            broker.subscribe("svc.late", message -> inboxes.add(message.replyTo()));
            CompletableFuture<Message> future = broker.request("svc.late", "x", Duration.ofMillis(50));
            assertThat(failure(future, Await.TIMEOUT)).isInstanceOf(TimeoutException.class);
            Await.until("the responder saw the request", () -> !inboxes.isEmpty());
            broker.publish(inboxes.get(0), "too late");
            broker.subscribe("svc.ok", message -> broker.publish(message.replyTo(), "ok"));
            assertThat(get(broker.request("svc.ok", "x", LONG)).payload()).isEqualTo("ok");
            assertThat(broker.stats().handlerErrors()).isZero();
        }
    }

    @ParameterizedTest
    @EnumSource(ExecutionMode.class)
    void concurrentRequestsEachGetTheirOwnReply(ExecutionMode mode) throws Exception {
        int threads = 4;
        int perThread = 250;
        // Every request may be outstanding at once, each with its reply: the ring holds them all,
        // so that the event-loop responder never meets a full ring (it would throw, as documented).
        try (Broker broker = Broker.builder().name("request").ringSize(4096).build()) {
            broker.subscribe("svc.inc", message -> broker.publish(message.replyTo(), (Integer) message.payload() + 1),
                    SubscribeOptions.defaults().mode(mode));
            List<CompletableFuture<List<Object>>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int base = t * perThread;
                CompletableFuture<List<Object>> result = new CompletableFuture<>();
                results.add(result);
                Thread.ofPlatform().name("requester-" + t).start(() -> {
                    try {
                        List<CompletableFuture<Message>> futures = new ArrayList<>();
                        for (int i = 0; i < perThread; i++) {
                            futures.add(broker.request("svc.inc", base + i, LONG));
                        }
                        List<Object> replies = new ArrayList<>();
                        for (CompletableFuture<Message> future : futures) {
                            replies.add(get(future).payload());
                        }
                        result.complete(replies);
                    } catch (Throwable e) {
                        result.completeExceptionally(e);
                    }
                });
            }
            for (int t = 0; t < threads; t++) {
                List<Object> expected = new ArrayList<>();
                for (int i = 0; i < perThread; i++) {
                    expected.add(t * perThread + i + 1);
                }
                assertThat(results.get(t).get(Await.TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo(expected);
            }
        }
    }

    @Test
    void queueGroupOfRespondersAnswersEachRequestOnce() throws Exception {
        try (Broker broker = newBroker()) {
            AtomicInteger handled = new AtomicInteger();
            for (int i = 0; i < 3; i++) {
                int responder = i;
                broker.subscribe("svc.pool", message -> {
                    handled.incrementAndGet();
                    broker.publish(message.replyTo(), responder);
                }, SubscribeOptions.defaults().mode(ExecutionMode.WORKER).queueGroup("pool"));
            }
            for (int i = 0; i < 30; i++) {
                assertThat(get(broker.request("svc.pool", i, LONG)).payload()).isIn(0, 1, 2);
            }
            Await.grace();
            assertThat(handled.get()).isEqualTo(30);
        }
    }

    @Test
    void firstReplyCompletesTheRequest() throws Exception {
        try (Broker broker = newBroker()) {
            broker.subscribe("svc.two", message -> broker.publish(message.replyTo(), "first"));
            broker.subscribe("svc.two", message -> broker.publish(message.replyTo(), "second"));
            Message reply = get(broker.request("svc.two", "x", LONG));
            assertThat(reply.payload()).isIn("first", "second");
            Await.grace();
            assertThat(broker.stats().handlerErrors()).isZero();
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {0, -1})
    void requestRejectsANonPositiveTimeout(long millis) {
        try (Broker broker = newBroker()) {
            broker.subscribe("svc", message -> { });
            assertThatThrownBy(() -> broker.request("svc", "x", Duration.ofMillis(millis)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("timeout");
        }
    }
}
