package io.ringbus.core.internal;

/**
 * A dispatch thread of one broker. Publishing from it must never wait for ring capacity: the
 * loop would wait for itself.
 */
final class EventLoopThread extends Thread {
    final RingBroker broker;

    EventLoopThread(RingBroker broker, Runnable task, String name) {
        super(task, name);
        this.broker = broker;
        setDaemon(true);
    }
}
