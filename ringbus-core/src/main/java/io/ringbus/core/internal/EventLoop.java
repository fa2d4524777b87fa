package io.ringbus.core.internal;

import com.lmax.disruptor.EventHandler;
import com.lmax.disruptor.Sequence;
import io.ringbus.core.ExecutionMode;

/**
 * One dispatch thread's handler: for each published slot, in ring order, it hands the message to
 * the subscribers and queue groups this loop serves, then releases the slot (the last loop
 * clears it). It allocates nothing: the route's arrays were built when the route was cached.
 */
final class EventLoop implements EventHandler<MessageSlot> {
    private final RingBroker broker;
    private final int index;
    private final int loopCount;
    private final HandlerProbe probe = new HandlerProbe(ExecutionMode.EVENT_LOOP, null);
    private Sequence progress = new Sequence();

    EventLoop(RingBroker broker, int index, int loopCount) {
        this.broker = broker;
        this.index = index;
        this.loopCount = loopCount;
    }

    HandlerProbe probe() {
        return probe;
    }

    /** Any thread: the sequence of the last slot this loop finished dispatching (volatile read). */
    long dispatched() {
        return progress.get();
    }

    @Override
    public void onStart() {
        probe.thread = Thread.currentThread();
    }

    @Override
    public void onEvent(MessageSlot slot, long sequence, boolean endOfBatch) {
        Route route = slot.route;
        if (route == null || route == Route.FENCE) {
            if (route == Route.FENCE) {
                ((Fence) slot.payload).pass(broker);
            }
            release(slot);
            progress.set(sequence);
            return;
        }
        HandlerProbe probe = this.probe;
        Subscriber[] subscribers = route.subscribers[index];
        for (int i = 0; i < subscribers.length; i++) {
            Subscriber subscriber = subscribers[i];
            // Filtered before delivery: a rejected message never takes a place in its buffer.
            if (subscriber.filter == null || subscriber.accepts(slot)) {
                subscriber.deliver(slot, probe);
            }
        }
        IndexedSubscribers[] indexed = route.indexed[index];
        for (int i = 0; i < indexed.length; i++) {
            indexed[i].deliver(slot, probe);
        }
        QueueGroupRoute[] groups = route.groups;
        for (int i = 0; i < groups.length; i++) {
            groups[i].deliver(slot, sequence, index, probe);
        }
        release(slot);
        // Free the slot now rather than at the end of the batch: with a slow handler, a batch can
        // hold the whole ring while most of it has been handled already.
        progress.set(sequence);
        if (broker.isHalted()) {
            // close() may have interrupted a blocked handler; a pending interrupt would make the
            // wait strategy throw and the processor skip a slot.
            Thread.interrupted();
        }
    }

    /** Clears the slot once every loop is done with it, and gives its bytes back to the budget. */
    private void release(MessageSlot slot) {
        int bytes = slot.release(loopCount);
        if (bytes > 0) {
            broker.releaseInFlight(bytes);
        }
    }

    @Override
    public void setSequenceCallback(Sequence sequenceCallback) {
        this.progress = sequenceCallback;
    }
}
