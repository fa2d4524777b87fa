package io.ringbus.bench.network;

import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.Options;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Runs one {@link NetworkCase} against any NATS server with jnats: fresh connections per run,
 * subscribers first, then publishers on their own threads publishing as fast as jnats lets them
 * ({@code publish(subject, bytes)}, then {@code flush}). The clock starts when the publishers are
 * released and stops when every subscriber has every message; deliveries are verified exactly
 * (count, once each, per-publisher order). Connecting and subscribing are outside the clock.
 *
 * <p>Fails with {@link NetworkVerificationException} on a timeout, a lost, duplicated or
 * reordered message, a jnats client-side drop, a server {@code -ERR} or a disconnect.
 */
public final class JnatsWorkload {
    /** jnats' outgoing queue per publisher; when full, {@code publish} waits for the writer thread. */
    static final int OUTGOING_QUEUE = 65_536;

    private final Duration timeout;

    /**
     * @param timeout how long one run may take before it fails
     * @throws IllegalArgumentException when the timeout is not positive
     */
    public JnatsWorkload(Duration timeout) {
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive: timeout=" + timeout);
        }
        this.timeout = timeout;
    }

    /**
     * jnats options used by every connection of the network scenarios.
     *
     * @param url   the server, e.g. {@code nats://127.0.0.1:4223}
     * @param name  the connection's name, for error messages
     * @param watch receives errors and connection events
     * @param block longest a {@code publish} may wait for room in the outgoing queue
     * @return the options
     */
    static Options options(String url, String name, ConnectionWatch watch, Duration block) {
        return Options.builder().server(url).connectionName(name).noReconnect()
                .errorListener(watch).connectionListener(watch)
                .connectionTimeout(Duration.ofSeconds(10))
                .maxMessagesInOutgoingQueue(OUTGOING_QUEUE)
                // jnats' publish waits up to 95% of this interval for room in the outgoing queue,
                // then throws "Output queue is full" (MessageQueue.push); backpressure must wait.
                .requestCleanupInterval(block)
                .build();
    }

    /**
     * Runs the case once.
     *
     * @param url     the server
     * @param c       the case
     * @param subject a subject no earlier run used
     * @return the verified outcome
     * @throws NetworkVerificationException when the run fails its checks
     * @throws IOException                  when a connection cannot be made
     * @throws InterruptedException         when interrupted
     */
    public RunOutcome run(String url, NetworkCase c, String subject) throws IOException, InterruptedException {
        ConnectionWatch watch = new ConnectionWatch();
        long[] perPublisher = c.messagesPerPublisher();
        CountDownLatch done = new CountDownLatch(c.subscribers());
        List<CountingSubscriber> subscribers = new ArrayList<>();
        List<Connection> publishers = new ArrayList<>();
        PublisherGroup group = null;
        try {
            for (int s = 0; s < c.subscribers(); s++) {
                subscribers.add(CountingSubscriber.open(options(url, "sub-" + s, watch, timeout), subject,
                        perPublisher, done));
            }
            for (int p = 0; p < c.publishers(); p++) {
                publishers.add(Nats.connect(options(url, "pub-" + p, watch, timeout)));
            }
            group = new PublisherGroup(publishers, subject, perPublisher, c.payloadBytes());
            long start = group.release();
            awaitDeliveries(c, subscribers, done, watch, group, start);
            long publishEnd;
            try {
                publishEnd = group.awaitFlushed(timeout);
            } catch (NetworkVerificationException e) {
                throw failure(c, e.getMessage(), subscribers, watch);
            }
            long deliverEnd = 0;
            for (CountingSubscriber s : subscribers) {
                deliverEnd = Math.max(deliverEnd, s.check().completedAtNanos());
            }
            verify(c, subscribers, watch);
            return new RunOutcome(publishEnd - start, deliverEnd - start, c.messages(), c.deliveries());
        } finally {
            watch.closing();
            if (group != null) {
                group.stop();
            }
            for (Connection p : publishers) {
                p.close();
            }
            for (CountingSubscriber s : subscribers) {
                s.close();
            }
        }
    }

    private void awaitDeliveries(NetworkCase c, List<CountingSubscriber> subscribers, CountDownLatch done,
                                 ConnectionWatch watch, PublisherGroup group, long start)
            throws InterruptedException {
        long deadline = start + timeout.toNanos();
        while (!done.await(5, TimeUnit.MILLISECONDS)) {
            if (!watch.clean()) {
                throw failure(c, watch.problems().getFirst(), subscribers, watch);
            }
            if (group.failure() != null) {
                throw failure(c, "a publisher failed: " + group.failure(), subscribers, watch);
            }
            if (System.nanoTime() - deadline > 0) {
                throw failure(c, "timed out after " + timeout.toSeconds() + "s", subscribers, watch);
            }
        }
    }

    private static void verify(NetworkCase c, List<CountingSubscriber> subscribers, ConnectionWatch watch)
            throws InterruptedException {
        for (CountingSubscriber s : subscribers) {
            // Anything the server sent after the last expected message (a duplicate) arrives first.
            s.sync();
        }
        for (int i = 0; i < subscribers.size(); i++) {
            CountingSubscriber s = subscribers.get(i);
            String verdict = s.check().verdict();
            if (verdict == null && s.clientDropped() != 0) {
                verdict = "jnats dropped " + s.clientDropped();
            }
            if (verdict != null) {
                throw failure(c, "subscriber " + i + ": " + verdict, subscribers, watch);
            }
        }
        if (!watch.clean()) {
            throw failure(c, watch.problems().getFirst(), subscribers, watch);
        }
    }

    private static NetworkVerificationException failure(NetworkCase c, String what, List<CountingSubscriber> subscribers,
                                                        ConnectionWatch watch) {
        StringBuilder counts = new StringBuilder();
        for (CountingSubscriber s : subscribers) {
            counts.append(counts.isEmpty() ? "" : ", ").append(s.check().received()).append('/').append(s.check().expected());
        }
        return new NetworkVerificationException(c.label() + ": " + what + "; received per subscriber [" + counts
                + "]" + (watch.problems().size() > 1 ? "; all problems: " + watch.problems() : ""));
    }
}
