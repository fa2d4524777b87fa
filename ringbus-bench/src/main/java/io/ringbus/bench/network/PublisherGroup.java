package io.ringbus.bench.network;

import io.nats.client.Connection;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * jnats publisher connections, one platform thread each, that publish their share of a case as
 * fast as jnats lets them once {@link #release()}d, then {@code flush} (a PING round trip, so the
 * server has read everything). Publisher {@code p} sends {@link SequencedPayload}s 0, 1, 2, ...
 * stamped with {@code p}.
 */
final class PublisherGroup {
    private final List<Thread> threads = new ArrayList<>();
    private final long[] flushedAt;
    private final CountDownLatch go = new CountDownLatch(1);
    private final AtomicReference<Throwable> failure = new AtomicReference<>();

    /**
     * Starts the threads; they wait for {@link #release()}.
     *
     * @param connections  one connection per publisher
     * @param subject      the subject
     * @param perPublisher messages per publisher
     * @param payloadBytes payload size
     */
    PublisherGroup(List<Connection> connections, String subject, long[] perPublisher, int payloadBytes) {
        this.flushedAt = new long[connections.size()];
        for (int p = 0; p < connections.size(); p++) {
            int index = p;
            Connection connection = connections.get(p);
            threads.add(Thread.ofPlatform().name("bench-pub-" + p).start(() -> {
                try {
                    go.await();
                    for (long sequence = 0; sequence < perPublisher[index]; sequence++) {
                        connection.publish(subject, SequencedPayload.create(payloadBytes, index, sequence));
                    }
                    connection.flush(Duration.ofSeconds(60));
                    flushedAt[index] = System.nanoTime();
                } catch (InterruptedException | TimeoutException | RuntimeException e) {
                    failure.compareAndSet(null, e);
                }
            }));
        }
    }

    /** @return {@link System#nanoTime()} just before the publishers were let go */
    long release() {
        long start = System.nanoTime();
        go.countDown();
        return start;
    }

    /** @return the first publisher failure, or {@code null} */
    Throwable failure() {
        return failure.get();
    }

    /**
     * Waits for every publisher to finish.
     *
     * @param timeout longest wait
     * @return {@link System#nanoTime()} when the last publisher's flush returned
     * @throws NetworkVerificationException when a publisher failed or did not finish in time
     */
    long awaitFlushed(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        long last = 0;
        for (int p = 0; p < threads.size(); p++) {
            threads.get(p).join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
            if (failure.get() != null) {
                throw new NetworkVerificationException("publisher failed: " + failure.get());
            }
            if (threads.get(p).isAlive()) {
                throw new NetworkVerificationException("publisher " + p + " did not finish within " + timeout.toSeconds() + "s");
            }
            last = Math.max(last, flushedAt[p]);
        }
        return last;
    }

    /** Interrupts publishers that are still running (after a failure). */
    void stop() {
        for (Thread t : threads) {
            t.interrupt();
        }
    }
}
