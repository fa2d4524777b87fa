package io.ringbus.core;

import io.ringbus.testkit.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicIntegerArray;

import static org.assertj.core.api.Assertions.assertThat;

/** Queue groups: each message to exactly one member of each group. */
@Timeout(60)
class QueueGroupTest {

    @ParameterizedTest
    @EnumSource(ExecutionMode.class)
    void eachMessageGoesToExactlyOneMemberOfEachGroup(ExecutionMode mode) {
        int messages = 3_000;
        try (Broker broker = Broker.builder().name("queue").ringSize(256).eventLoops(2).build()) {
            SubscribeOptions g = SubscribeOptions.defaults().mode(mode).queueGroup("g");
            SubscribeOptions h = SubscribeOptions.defaults().mode(mode).queueGroup("h");
            List<RecordingHandler> groupG = members(broker, "work", g, 3);
            List<RecordingHandler> groupH = members(broker, "work", h, 2);
            RecordingHandler plain = new RecordingHandler();
            broker.subscribe("work", plain, SubscribeOptions.defaults().mode(mode));
            for (int i = 0; i < messages; i++) {
                broker.publish("work", i);
            }
            plain.awaitCount(messages);
            assertThat(plain.payloads()).isEqualTo(ExecutionModeTest.range(messages));
            Await.until("group g got everything", () -> total(groupG) >= messages, () -> total(groupG));
            Await.until("group h got everything", () -> total(groupH) >= messages, () -> total(groupH));
            Await.grace();
            assertExactlyOnce(groupG, messages);
            assertExactlyOnce(groupH, messages);
            assertThat(broker.stats().delivered()).isEqualTo(3L * messages);
        }
    }

    @Test
    void membersOfDifferentModesShareOneGroup() {
        int messages = 2_000;
        try (Broker broker = Broker.builder().name("queue").ringSize(256).eventLoops(2).build()) {
            List<RecordingHandler> group = new ArrayList<>();
            for (ExecutionMode mode : ExecutionMode.values()) {
                RecordingHandler member = new RecordingHandler();
                group.add(member);
                broker.subscribe("work", member, SubscribeOptions.defaults().mode(mode).queueGroup("g"));
            }
            for (int i = 0; i < messages; i++) {
                broker.publish("work", i);
            }
            Await.until("the group got everything", () -> total(group) >= messages, () -> total(group));
            Await.grace();
            assertExactlyOnce(group, messages);
        }
    }

    @Test
    void wildcardMembersOfAGroupReceiveEachMessageOnce() {
        int messages = 1_000;
        try (Broker broker = Broker.builder().name("queue").ringSize(256).build()) {
            List<RecordingHandler> group = new ArrayList<>();
            for (String pattern : List.of("orders.*", "orders.*", "orders.new")) {
                RecordingHandler member = new RecordingHandler();
                group.add(member);
                broker.subscribe(pattern, member, SubscribeOptions.defaults().queueGroup("g"));
            }
            for (int i = 0; i < messages; i++) {
                broker.publish("orders.new", i);
            }
            Await.until("the group got everything", () -> total(group) >= messages, () -> total(group));
            Await.grace();
            assertExactlyOnce(group, messages);
        }
    }

    @ParameterizedTest
    @EnumSource(ExecutionMode.class)
    void remainingMembersTakeOverWhenOneUnsubscribes(ExecutionMode mode) {
        try (Broker broker = Broker.builder().name("queue").ringSize(256).eventLoops(2).build()) {
            SubscribeOptions g = SubscribeOptions.defaults().mode(mode).queueGroup("g");
            RecordingHandler leaving = new RecordingHandler();
            Subscription leavingSubscription = broker.subscribe("work", leaving, g);
            List<RecordingHandler> staying = members(broker, "work", g, 2);
            for (int i = 0; i < 100; i++) {
                broker.publish("work", i);
            }
            List<RecordingHandler> all = new ArrayList<>(staying);
            all.add(leaving);
            Await.until("the group got the first 100", () -> total(all) >= 100, () -> total(all));
            leavingSubscription.unsubscribe();
            int before = leaving.count();
            for (int i = 100; i < 300; i++) {
                broker.publish("work", i);
            }
            Await.until("the remaining members got the next 200", () -> total(all) >= 300, () -> total(all));
            Await.grace();
            assertThat(leaving.count()).isEqualTo(before);
            assertExactlyOnce(all, 300);
        }
    }

    @Test
    void groupIsReportedInStats() {
        try (Broker broker = Broker.builder().name("queue").ringSize(64).build()) {
            Subscription member = broker.subscribe("work", message -> { }, SubscribeOptions.defaults().queueGroup("g"));
            Subscription plain = broker.subscribe("work", message -> { });
            assertThat(broker.stats().subscriptions())
                    .anySatisfy(s -> {
                        assertThat(s.id()).isEqualTo(member.id());
                        assertThat(s.queueGroup()).isEqualTo("g");
                        assertThat(s.pattern()).isEqualTo("work");
                    })
                    .anySatisfy(s -> {
                        assertThat(s.id()).isEqualTo(plain.id());
                        assertThat(s.queueGroup()).isNull();
                    });
        }
    }

    private static List<RecordingHandler> members(Broker broker, String pattern, SubscribeOptions options, int count) {
        List<RecordingHandler> members = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            RecordingHandler member = new RecordingHandler();
            members.add(member);
            broker.subscribe(pattern, member, options);
        }
        return members;
    }

    private static int total(List<RecordingHandler> members) {
        int total = 0;
        for (RecordingHandler member : members) {
            total += member.count();
        }
        return total;
    }

    private static void assertExactlyOnce(List<RecordingHandler> group, int messages) {
        AtomicIntegerArray seen = new AtomicIntegerArray(messages);
        for (RecordingHandler member : group) {
            for (Object payload : member.payloads()) {
                seen.incrementAndGet((Integer) payload);
            }
        }
        List<Integer> wrong = new ArrayList<>();
        for (int i = 0; i < messages; i++) {
            if (seen.get(i) != 1 && wrong.size() < 20) {
                wrong.add(i);
            }
        }
        assertThat(wrong).as("messages not delivered exactly once to the group").isEmpty();
        assertThat(total(group)).isEqualTo(messages);
    }
}
