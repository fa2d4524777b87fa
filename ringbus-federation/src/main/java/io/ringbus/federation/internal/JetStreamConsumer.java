package io.ringbus.federation.internal;

import io.nats.client.JetStream;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.JetStreamStatusException;
import io.nats.client.JetStreamSubscription;
import io.nats.client.Message;
import io.nats.client.PullRequestOptions;
import io.nats.client.PullSubscribeOptions;
import io.nats.client.api.ConsumerInfo;
import io.nats.client.impl.NatsJetStreamMetaData;
import io.ringbus.core.ConsumerConfig;
import io.ringbus.core.ConsumerStats;
import io.ringbus.core.StorageException;
import io.ringbus.core.StoredMessage;
import io.ringbus.core.StreamConsumer;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A handle on a durable JetStream pull consumer: one pull subscription bound to it. Handles of
 * the same name, in this process or others, share the consumer: JetStream gives each message to
 * one pull request.
 *
 * <p><b>Fetch.</b> One pull request for {@code max} messages with {@code no_wait} and
 * {@code expires = wait}: the server answers at once with what is ready, or waits up to
 * {@code wait} for the first message and then ends the request (a 404/408 status), so a fetch
 * returns as soon as something is there. A message that arrives after a fetch gave up waiting
 * stays in the subscription and is returned by the next fetch. jnats reports each request that
 * ended empty to the connection's {@code ErrorListener.pullStatusWarning}; the connections that
 * {@code JetStreamStorage} opens ignore those.
 *
 * <p><b>Threads.</b> Thread-safe; fetches on one handle take turns (a lock), ack / nak / term
 * never wait (each is one publish on the connection).
 */
public final class JetStreamConsumer implements StreamConsumer {
    /** How long past {@code wait} a fetch waits for the server to end its request. */
    private static final long GRACE_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final int MAX_BATCH = 4_096;

    private final JetStreamStream stream;
    private final String streamName;
    private final JetStreamManagement management;
    private final ConsumerConfig config;
    private final JetStreamStream.Counts counts;
    private final JetStreamSubscription subscription;
    private final ReentrantLock fetchLock = new ReentrantLock();
    private volatile boolean closed;

    JetStreamConsumer(JetStreamStream stream, JetStream jetStream, JetStreamManagement management,
                      ConsumerConfig config, JetStreamStream.Counts counts)
            throws IOException, JetStreamApiException {
        this.stream = stream;
        this.streamName = stream.config().name();
        this.management = management;
        this.config = config;
        this.counts = counts;
        // Declared just before: bind without looking it up again.
        this.subscription = jetStream.subscribe(null, PullSubscribeOptions.fastBind(streamName, config.durableName()));
    }

    @Override
    public ConsumerConfig config() {
        return config;
    }

    @Override
    public List<StoredMessage> fetch(int max, Duration wait) throws InterruptedException {
        if (max < 1) {
            throw new IllegalArgumentException("max must be >= 1: max=" + max);
        }
        long waitMillis = Math.max(0, wait.toMillis());
        int batch = Math.min(max, MAX_BATCH);
        checkOpen();
        fetchLock.lockInterruptibly();
        try {
            checkOpen();
            List<StoredMessage> out = new ArrayList<>(Math.min(batch, 64));
            drainBuffered(out, batch);
            if (!out.isEmpty()) {
                return out;
            }
            PullRequestOptions.Builder request = PullRequestOptions.builder(batch).noWait();
            if (waitMillis > 0) {
                request.expiresIn(waitMillis);
            }
            subscription.pull(request.build());
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMillis) + GRACE_NANOS;
            while (out.size() < batch) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    break;
                }
                Message message;
                try {
                    message = subscription.nextMessage(Duration.ofMillis(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left))));
                } catch (InterruptedException e) {
                    if (out.isEmpty()) {
                        throw e;
                    }
                    Thread.currentThread().interrupt(); // hand out what came; the caller sees the flag
                    break;
                }
                if (message == null) {
                    break; // the request ended (404 / 408), or the deadline passed
                }
                out.add(toStored(message));
            }
            return out;
        } catch (JetStreamStatusException e) {
            throw new StorageException("durable consumer '" + config.durableName() + "' of stream '" + streamName
                    + "': " + e.getMessage(), e);
        } catch (IllegalStateException e) {
            checkOpen();
            throw new StorageException("durable consumer '" + config.durableName() + "' of stream '" + streamName
                    + "' cannot fetch: " + e.getMessage(), e);
        } finally {
            fetchLock.unlock();
        }
    }

    /** Takes what earlier requests delivered after their fetch stopped waiting, and stale end statuses. */
    private void drainBuffered(List<StoredMessage> out, int batch) throws InterruptedException {
        while (out.size() < batch && subscription.getPendingMessageCount() > 0) {
            Message message = subscription.nextMessage((Duration) null);
            if (message != null) {
                out.add(toStored(message));
            }
        }
    }

    private StoredMessage toStored(Message message) {
        NatsJetStreamMetaData meta = message.metaData();
        int deliveries = (int) Math.min(Integer.MAX_VALUE, meta.deliveredCount());
        counts.delivered.increment();
        if (deliveries > 1) {
            counts.redelivered.increment();
        }
        return new StoredMessage(streamName, meta.streamSequence(), meta.timestamp().toInstant().toEpochMilli(),
                deliveries, message.getSubject(), JnatsHeaders.fromNats(message.getHeaders()), message.getData(),
                message);
    }

    private Message receipt(StoredMessage message) {
        if (message.receipt() instanceof Message nats && message.stream().equals(streamName)) {
            return nats;
        }
        throw new IllegalArgumentException("not a message of stream '" + streamName + "' from JetStream: " + message);
    }

    @Override
    public void ack(StoredMessage message) {
        Message nats = receipt(message);
        try {
            nats.ack();
        } catch (IllegalStateException e) {
            throw notSent("ack", message, e);
        }
    }

    @Override
    public void nak(StoredMessage message, Duration delay) {
        Message nats = receipt(message);
        try {
            if (delay == null || delay.isZero() || delay.isNegative()) {
                nats.nak();
            } else {
                nats.nakWithDelay(delay);
            }
        } catch (IllegalStateException e) {
            throw notSent("nak", message, e);
        }
    }

    @Override
    public void term(StoredMessage message) {
        Message nats = receipt(message);
        try {
            nats.term();
        } catch (IllegalStateException e) {
            throw notSent("term", message, e);
        }
    }

    private StorageException notSent(String what, StoredMessage message, IllegalStateException e) {
        return new StorageException("durable consumer '" + config.durableName() + "' of stream '" + streamName
                + "': " + what + " of sequence " + message.sequence() + " not sent: " + e.getMessage(), e);
    }

    @Override
    public ConsumerStats stats() {
        try {
            ConsumerInfo info = management.getConsumerInfo(streamName, config.durableName());
            return new ConsumerStats(streamName, config.durableName(), info.getAckFloor().getStreamSequence(),
                    info.getNumPending(), info.getNumAckPending(), counts.redelivered.sum(), counts.delivered.sum());
        } catch (IOException | JetStreamApiException e) {
            throw new StorageException("cannot read durable consumer '" + config.durableName() + "' of stream '"
                    + streamName + "': " + e.getMessage(), e);
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("consumer closed: " + config.durableName() + " of stream " + streamName);
        }
    }

    /**
     * Unsubscribes this handle; the consumer stays on the server. Messages delivered to it and not
     * yet fetched are nak'ed (delivered again at once); those fetched and not acknowledged are
     * delivered again after their ack wait. Idempotent.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        stream.closed(this);
        // A fetch in progress on another thread ends with IllegalStateException once unsubscribed;
        // without it, what the subscription holds is given back first.
        boolean idle = fetchLock.tryLock();
        try {
            if (idle) {
                giveBackBuffered();
            }
            subscription.unsubscribe();
        } catch (RuntimeException e) {
            // A closed connection: the server forgets the subscription; nothing more to give back.
        } finally {
            if (idle) {
                fetchLock.unlock();
            }
        }
    }

    private void giveBackBuffered() {
        try {
            while (subscription.getPendingMessageCount() > 0) {
                Message late = subscription.nextMessage((Duration) null);
                if (late != null) {
                    late.nak();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return "JetStreamConsumer[" + streamName + "/" + config.durableName() + "]";
    }
}
