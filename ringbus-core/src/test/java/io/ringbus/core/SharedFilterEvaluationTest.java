package io.ringbus.core;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A filter's cost is paid once per message, not once per subscription (issue 25): PUBLISHER
 * subscriptions (every network subscription) with alike filters share one test per message, and
 * every body policy of a subject shares one reading of the JSON body.
 */
@Timeout(60)
class SharedFilterEvaluationTest {
    private static final int SUBSCRIPTIONS = 2_000;
    private static final SubscribeOptions PUBLISHER = SubscribeOptions.defaults().mode(ExecutionMode.PUBLISHER);

    @Test
    void twoThousandSubscriptionsWithOneFilterTestItOncePerMessage() {
        try (Broker broker = Broker.builder().name("shared").ringSize(256).build()) {
            AtomicInteger tests = new AtomicInteger();
            MessageFilter none = MessageFilter.of(m -> {
                tests.incrementAndGet();
                return false;
            });
            List<Subscription> subscriptions = new ArrayList<>();
            LongAdder delivered = new LongAdder();
            for (int i = 0; i < SUBSCRIPTIONS; i++) {
                subscriptions.add(broker.subscribe("orders.big", m -> delivered.increment(), PUBLISHER.filter(none)));
            }
            for (int i = 0; i < 20; i++) {
                broker.publish("orders.big", "{}");
            }
            assertThat(tests.get()).isEqualTo(20);
            assertThat(broker.stats().filterEvaluations()).isEqualTo(20);
            assertThat(delivered.sum()).isZero();
            // Each subscription still counts what it did not get.
            assertThat(subscriptions).allSatisfy(s -> assertThat(s.filtered()).isEqualTo(20));
        }
    }

    @Test
    void equalPoliciesCompiledApartShareOneTestAndAMatchReachesEveryOne() {
        try (Broker broker = Broker.builder().name("shared").ringSize(256).build()) {
            LongAdder delivered = new LongAdder();
            for (int i = 0; i < 100; i++) {
                // A policy compiled per subscription (as a network client attaching one per sid).
                MessageFilter gold = MessageFilter.body("{\"tier\": [\"gold\"]}");
                broker.subscribe("orders.big", m -> delivered.increment(), PUBLISHER.filter(gold));
            }
            broker.subscribe("orders.big", m -> delivered.increment(), PUBLISHER);
            broker.publish("orders.big", "{\"tier\": \"gold\"}".getBytes(java.nio.charset.StandardCharsets.UTF_8));
            broker.publish("orders.big", "{\"tier\": \"silver\"}".getBytes(java.nio.charset.StandardCharsets.UTF_8));
            assertThat(delivered.sum()).isEqualTo(100 + 2);
            assertThat(broker.stats().filterEvaluations()).isEqualTo(2);
        }
    }

    @Test
    void differentBodyPoliciesOnOneSubjectReadTheBodyOncePerMessage() {
        try (Broker broker = Broker.builder().name("shared").ringSize(256).build()) {
            LongAdder gold = new LongAdder();
            LongAdder big = new LongAdder();
            LongAdder eu = new LongAdder();
            broker.subscribe("orders.big", m -> gold.increment(),
                    PUBLISHER.filter(MessageFilter.body("{\"customer\": {\"tier\": [\"gold\"]}}")));
            broker.subscribe("orders.big", m -> big.increment(),
                    PUBLISHER.filter(MessageFilter.body("{\"total\": [{\"numeric\": [\">\", 100]}]}")));
            broker.subscribe("orders.big", m -> eu.increment(),
                    PUBLISHER.filter(MessageFilter.body("{\"customer\": [{\"exists\": true}], \"region\": [\"eu\"]}")));
            CountingText order = new CountingText("{\"customer\": {\"tier\": \"gold\"}, \"total\": 250, \"region\": \"us\"}");
            for (int i = 0; i < 10; i++) {
                broker.publish("orders.big", order);
            }
            // A body read calls toString() on a CharSequence payload: once per message, for three policies.
            assertThat(order.reads.get()).isEqualTo(10);
            assertThat(gold.sum()).isEqualTo(10);
            assertThat(big.sum()).isEqualTo(10);
            assertThat(eu.sum()).isZero();
        }
    }

    /** A JSON text payload that counts how often it is read. */
    private static final class CountingText implements CharSequence {
        private final String text;
        private final AtomicInteger reads = new AtomicInteger();

        CountingText(String text) {
            this.text = text;
        }

        @Override
        public int length() {
            return text.length();
        }

        @Override
        public char charAt(int index) {
            return text.charAt(index);
        }

        @Override
        public CharSequence subSequence(int start, int end) {
            return text.subSequence(start, end);
        }

        @Override
        public String toString() {
            reads.incrementAndGet();
            return text;
        }
    }
}
