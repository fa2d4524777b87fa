package io.ringbus.core;

import io.ringbus.testkit.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** Memory is bounded by bytes and released when done: the ring keeps nothing after dispatch. */
@Timeout(60)
class MemoryBoundsTest {
    @Test
    void aDispatchedSlotNoLongerHoldsItsPayloadHeadersOrReplySubject() throws Exception {
        for (int eventLoops : new int[] {1, 3}) {
            try (Broker broker = Broker.builder().name("released").ringSize(1024).eventLoops(eventLoops).build()) {
                // ROOT reply subjects: no scope to remember for the replies (see the reply scope test).
                broker.registerSubject("reply.>", Scope.ROOT);
                AtomicInteger handled = new AtomicInteger();
                for (int i = 0; i < eventLoops; i++) {
                    broker.subscribe("big", m -> handled.incrementAndGet());
                }
                List<WeakReference<Object>> published = new ArrayList<>();
                for (int i = 0; i < 10; i++) {
                    byte[] payload = new byte[1 << 20];
                    String reply = new String("reply." + i);
                    Headers headers = Headers.of("k", "v" + i);
                    published.add(new WeakReference<>(payload));
                    published.add(new WeakReference<>(reply));
                    published.add(new WeakReference<>(headers));
                    broker.publish("big", reply, headers, payload);
                }
                Await.until("every message handled", () -> handled.get() == 10 * eventLoops, handled::get);
                // Only 10 of 1,024 slots were used: before the fix, they kept all of it alive.
                for (int attempt = 0; attempt < 50 && published.stream().anyMatch(r -> r.get() != null); attempt++) {
                    System.gc();
                    Thread.sleep(20);
                }
                List<Object> alive = published.stream().map(WeakReference::get).filter(o -> o != null)
                        .map(o -> o.getClass().getSimpleName()).map(Object.class::cast).toList();
                assertThat(alive).as("eventLoops=" + eventLoops + ": still reachable").isEmpty();
            }
        }
    }

    @Test
    void theInFlightByteBudgetRefusesPublishesUntilSlotsAreDispatched() throws Exception {
        try (Broker broker = Broker.builder().name("budget").ringSize(1024).maxInFlightBytes(1 << 20).build()) {
            CountDownLatch release = new CountDownLatch(1);
            AtomicInteger handled = new AtomicInteger();
            broker.subscribe("budget", m -> {
                try {
                    release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                handled.incrementAndGet();
            });
            int accepted = 0;
            while (broker.tryPublish("budget", new byte[64 << 10])) {
                accepted++;
                assertThat(accepted).as("bounded by bytes long before the 1,024 slots").isLessThan(100);
            }
            // 1 MiB of 64 KiB payloads (one may be in the blocked handler, one over by the check-then-add)
            assertThat(accepted).isBetween(16, 18);
            assertThat(broker.stats().rejected()).isEqualTo(1);
            release.countDown();
            int total = accepted;
            Await.until("the backlog drains", () -> handled.get() == total, handled::get);
            assertThat(broker.tryPublish("budget", new byte[64 << 10])).as("budget given back").isTrue();
        }
    }

    @Test
    void aReplyToAHigherScopedRequesterReachesOnlySubscribersOfThatScope() throws Exception {
        try (Broker broker = Broker.builder().name("reply-scope").defaultScope(Scope.PUBLIC).build()) {
            Client spy = broker.newClient(Scope.PUBLIC);
            Client requester = broker.newClient(Scope.PRIVATE);
            Client responder = broker.newClient(Scope.PUBLIC);
            AtomicInteger stolen = new AtomicInteger();
            AtomicInteger answered = new AtomicInteger();
            spy.subscribe(">", m -> {
                if (m.subject().startsWith("inbox.")) {
                    stolen.incrementAndGet();
                }
            });
            requester.subscribe("inbox.*", m -> answered.incrementAndGet());
            responder.subscribe("ask", m -> responder.publish(m.replyTo(), "answer"));
            requester.publish("ask", "inbox.1", null, "q");
            // A PUBLIC client's own request: its reply stays PUBLIC.
            spy.publish("ask", "inbox.2", null, "q");
            Await.until("both answered", () -> answered.get() == 2, answered::get);
            Await.grace();
            assertThat(stolen.get()).as("the spy sees the PUBLIC requester's reply only").isEqualTo(1);
        }
    }
}
