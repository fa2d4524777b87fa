package io.ringbus.bench.seed;

import com.lmax.disruptor.EventTranslatorTwoArg;
import com.lmax.disruptor.RingBuffer;
import com.lmax.disruptor.dsl.Disruptor;
import com.lmax.disruptor.dsl.ProducerType;

import java.util.HashMap;
import java.util.Map;

/**
 * The practical limit: one multi-producer Disruptor of 16,384 slots and one consumer thread that
 * looks the subject up in a map and calls its subscribers inline. No scopes, no wildcards, no
 * per-subscriber isolation: a slow subscriber holds up every other.
 */
final class DisruptorInlineContender implements Contender {
    /** A ring slot, reused: written by a publisher, read by the consumer. */
    static final class Slot {
        String subject;
        SeedEvent event;
    }

    private static final EventTranslatorTwoArg<Slot, String, SeedEvent> WRITE = (slot, sequence, subject, event) -> {
        slot.subject = subject;
        slot.event = event;
    };

    private Disruptor<Slot> disruptor;
    private RingBuffer<Slot> ring;

    @Override
    public String name() {
        return ContenderKind.DISRUPTOR_INLINE.label();
    }

    @Override
    public boolean keepsProducerOrder() {
        return true;
    }

    @Override
    public void start(SeedTopology topology) {
        Map<String, SeedSubscriber[]> routes = new HashMap<>();
        for (int s = 0; s < topology.subjects().length; s++) {
            routes.put(topology.subjects()[s], topology.subscribers()[s]);
        }
        disruptor = new Disruptor<>(Slot::new, RingCapacity.SLOTS,
                Thread.ofPlatform().name("disruptor-inline-", 0).daemon(true).factory(),
                ProducerType.MULTI, DisruptorWaitStrategy.matching(topology.waitStrategy()));
        disruptor.handleEventsWith((slot, sequence, endOfBatch) -> {
            SeedSubscriber[] subscribers = routes.get(slot.subject);
            SeedEvent event = slot.event;
            for (SeedSubscriber subscriber : subscribers) {
                subscriber.onEvent(event);
            }
        });
        ring = disruptor.start();
    }

    @Override
    public void publish(String subject, SeedEvent event) {
        ring.publishEvent(WRITE, subject, event);
    }

    @Override
    public void close() {
        disruptor.shutdown();
    }
}
