package io.ringbus.bench.network;

import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.Nats;
import io.nats.client.Options;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeoutException;

/**
 * A jnats subscriber connection that counts and order-checks every delivery on its dispatcher
 * thread. By default its pending limits are off, so jnats never drops: if the subscriber falls
 * behind, the backlog waits in this JVM's heap and the run is slower, not shorter. The overload
 * run's slow subscriber instead keeps jnats' default limits and a {@link Pacer}.
 */
final class CountingSubscriber implements AutoCloseable {
    private final Connection connection;
    private final Dispatcher dispatcher;
    private final SequenceCheck check;

    private CountingSubscriber(Connection connection, Dispatcher dispatcher, SequenceCheck check) {
        this.connection = connection;
        this.dispatcher = dispatcher;
        this.check = check;
    }

    /**
     * Connects and subscribes; returns once the server has processed the SUB (a PING round trip).
     *
     * @param options      connection options
     * @param subject      the subject to count
     * @param perPublisher messages each publisher will send
     * @param done         counted down once, when every expected message has arrived
     * @return the subscriber
     * @throws IOException          when the connection fails
     * @throws InterruptedException when interrupted while connecting
     */
    static CountingSubscriber open(Options options, String subject, long[] perPublisher, CountDownLatch done)
            throws IOException, InterruptedException {
        return open(options, subject, perPublisher, done, null);
    }

    /**
     * Like {@link #open(Options, String, long[], CountDownLatch)}, but slow: each message waits
     * for its slot of {@code pacer}, and jnats' default pending limits stay, so jnats drops what
     * does not fit (a client-side slow consumer).
     *
     * @param pacer the handler's rate, or {@code null} for full speed and no pending limits
     */
    static CountingSubscriber open(Options options, String subject, long[] perPublisher, CountDownLatch done,
                                   Pacer pacer) throws IOException, InterruptedException {
        Connection connection = Nats.connect(options);
        SequenceCheck check = new SequenceCheck(perPublisher);
        Dispatcher dispatcher = connection.createDispatcher(message -> {
            if (check.accept(message.getData())) {
                done.countDown();
            }
            if (pacer != null) {
                pacer.pace();
            }
        });
        if (pacer == null) {
            // <= 0 turns both limits off (jnats NatsConsumer.setPendingLimits): no client-side drops.
            dispatcher.setPendingLimits(-1, -1);
        }
        dispatcher.subscribe(subject);
        try {
            connection.flush(Duration.ofSeconds(10));
        } catch (TimeoutException e) {
            connection.close();
            throw new IOException("the server did not answer PING after SUB " + subject + " within 10s", e);
        }
        return new CountingSubscriber(connection, dispatcher, check);
    }

    /** @return the delivery check */
    SequenceCheck check() {
        return check;
    }

    /** @return messages received by jnats and not yet handled */
    long clientPending() {
        return dispatcher.getPendingMessageCount();
    }

    /** @return messages jnats dropped for this subscriber (must stay 0) */
    long clientDropped() {
        return dispatcher.getDroppedCount();
    }

    /**
     * Makes a PING round trip, so that what the server sent before it has been read.
     *
     * @throws InterruptedException when interrupted
     */
    void sync() throws InterruptedException {
        try {
            connection.flush(Duration.ofSeconds(10));
        } catch (TimeoutException | IllegalStateException e) {
            // The verdict that follows names what is missing.
        }
    }

    @Override
    public void close() {
        try {
            connection.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
