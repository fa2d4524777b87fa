package io.ringbus.core.examples;

import io.ringbus.core.Broker;
import io.ringbus.core.Client;
import io.ringbus.core.ExecutionMode;
import io.ringbus.core.Message;
import io.ringbus.core.OverflowPolicy;
import io.ringbus.core.Scope;
import io.ringbus.core.ScopeViolationException;
import io.ringbus.core.SubscribeOptions;
import io.ringbus.core.Subscription;
import io.ringbus.core.WaitStrategy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The README's usage example, compiled and checked: if it breaks, the README is wrong. */
@Timeout(30)
class UsageExampleTest {

    record Order(String id, String region) {
    }

    @Test
    void readmeExampleRoutesRepliesAndEnforcesScopes() throws Exception {
        List<String> billed = new CopyOnWriteArrayList<>();
        Subscription[] kept = new Subscription[1];
        // --8<-- [start:usage]
        try (Broker broker = Broker.builder()
                .ringSize(16_384)                       // power of two
                .waitStrategy(WaitStrategy.BLOCKING)    // BLOCKING | SLEEPING | YIELDING | BUSY_SPIN
                .eventLoops(2)                          // dispatch threads
                .workerPoolSize(16)                     // platform threads for WORKER handlers
                .defaultScope(Scope.PRIVATE)            // scope of subjects matching no registered pattern
                .build()) {
            broker.registerSubject("orders.>", Scope.PUBLIC);

            Subscription billing = broker.subscribe("orders.*.created",
                    msg -> billed.add(msg.payload(Order.class).id()),
                    SubscribeOptions.defaults()
                            .mode(ExecutionMode.WORKER)         // EVENT_LOOP | WORKER | VIRTUAL
                            .ordered(true)                      // false: up to maxConcurrency at once
                            .bufferSize(8_192)                  // per-subscriber buffer (WORKER / VIRTUAL)
                            .overflow(OverflowPolicy.BLOCK)     // BLOCK | DROP_OLDEST | DROP_NEWEST | DISCONNECT
                            .queueGroup("billing"));            // one member of the group gets each message

            broker.subscribe("pricing.quote", msg -> broker.publish(msg.replyTo(), 42));

            broker.publish("orders.eu.created", new Order("o-1", "eu"));          // waits while the ring is full
            boolean accepted = broker.tryPublish("orders.us.created", new Order("o-2", "us")); // false when full
            CompletableFuture<Message> reply = broker.request("pricing.quote", "o-1", Duration.ofSeconds(1));

            Client edge = broker.client(Scope.PUBLIC);   // a view limited to PUBLIC subjects
            edge.publish("orders.eu.created", new Order("o-3", "eu"));
            // edge.publish("payments.settled", ...) would throw ScopeViolationException: PRIVATE subject
            // --8<-- [end:usage]

            assertThat(accepted).isTrue();
            assertThat(reply.get().payload()).isEqualTo(42);
            assertThatThrownBy(() -> edge.publish("payments.settled", "x"))
                    .isInstanceOf(ScopeViolationException.class)
                    .hasMessageContaining("payments.settled");
            kept[0] = billing;
        }
        // close() drained the WORKER buffer before returning, then ended the subscription.
        assertThat(billed).containsExactly("o-1", "o-2", "o-3");
        assertThat(kept[0].isActive()).isFalse();
    }
}
