package io.ringbus.server.internal;

import io.netty.channel.EventLoop;
import io.ringbus.core.Client;
import io.ringbus.core.PublishAck;
import io.ringbus.core.PublishRejectedException;
import io.ringbus.core.StorageException;
import io.ringbus.core.wire.PubAckJson;
import org.jctools.queues.MpscUnboundedArrayQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;

/**
 * One connection's publishes to durable subjects that the store has not acknowledged yet, and the
 * PINGs that wait for them: what makes a NATS client's {@code flush()} a durability barrier and
 * answers a PUB with a reply subject with JetStream's PubAck.
 *
 * <p><b>PING barrier.</b> Publishes are grouped in epochs: a PING that arrives while any publish
 * is outstanding closes the current epoch, and its PONG is sent once every publish of that epoch
 * and of the epochs before it is stored (or failed). Later publishes open a new epoch and do not
 * hold the PONG back, so a client that publishes without pause still gets its PONGs. PONGs leave
 * in the order the PINGs came.
 *
 * <p><b>PubAck.</b> Once a publish with a reply subject is stored, its PubAck ({@link PubAckJson})
 * is published to the reply subject (by the broker's shared client of the connection's scope, so
 * that a client with {@code echo: false} receives it too), or JetStream's error form when the
 * store failed: {@code {"error":{"code":503,"err_code":10077,"description":"..."}}}
 * ({@code JSStreamStoreFailedF}, which jnats and nats.go turn into an API exception), or, for a
 * message the store refused as JetStream would ({@link PublishRejectedException}: headers over
 * 64k), that refusal's code and err_code ({@code 400}, {@code 10097}), counted apart. A reply is
 * published before the PONGs it holds back.
 *
 * <p><b>Threading.</b> Acknowledgements complete on the store's thread; each is queued here and
 * handled on the connection's event loop (one task per batch, as {@link Outbound} drains), which
 * alone touches the epochs. Nothing waits: the event loop is never blocked by the store.
 *
 * <p>Bounded by the store: a stream refuses appends past its pending bytes
 * ({@link io.ringbus.core.Storage#maxPendingBytes()}), and the connection then stops reading.
 */
final class DurableAcks {
    private static final Logger LOG = LoggerFactory.getLogger(DurableAcks.class);
    /** JetStream's error code for a message the stream could not store (JSStreamStoreFailedF). */
    static final int STORE_FAILED_ERR_CODE = 10077;
    /** Wait before retrying a PubAck the broker had no room for. */
    private static final long REPLY_RETRY_MICROS = 200;
    private static final int QUEUE_CHUNK = 64;

    private final EventLoop loop;
    private final ServerCounters counters;
    private final Runnable sendPong;
    private final long connectionId;
    private final MpscUnboundedArrayQueue<Stored> completed = new MpscUnboundedArrayQueue<>(QUEUE_CHUNK);
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private final Runnable drain = this::drain;
    // Event loop only.
    private final ArrayDeque<Epoch> epochs = new ArrayDeque<>();
    private int outstanding;
    private boolean closed;
    private boolean failureLogged;

    /** Publishes not yet stored before a PING, and the PINGs that wait for them. */
    private static final class Epoch {
        int outstanding;
        int pongs;
    }

    /**
     * @param loop         the connection's event loop
     * @param counters     where store failures and outstanding acks are counted
     * @param sendPong     sends one PONG (event loop)
     * @param connectionId for the log
     */
    DurableAcks(EventLoop loop, ServerCounters counters, Runnable sendPong, long connectionId) {
        this.loop = loop;
        this.counters = counters;
        this.sendPong = sendPong;
        this.connectionId = connectionId;
    }

    /**
     * Event loop: a publish to a durable subject was accepted; {@code ack} completes once it is stored.
     *
     * @param ack     the store's acknowledgement
     * @param subject the subject, for the log
     * @param replyTo where to publish the PubAck, or {@code null}
     * @param replies the client that publishes the PubAck
     */
    void track(CompletableFuture<PublishAck> ack, String subject, String replyTo, Client replies) {
        Epoch open = epochs.peekLast();
        if (open == null || open.pongs > 0) {
            open = new Epoch();
            epochs.addLast(open);
        }
        open.outstanding++;
        outstanding++;
        counters.durableAcksPending.increment();
        ack.whenComplete(new Stored(this, open, subject, replyTo, replies));
    }

    /**
     * Event loop: a PING arrived.
     *
     * @return {@code true} when its PONG must wait for earlier publishes (it is sent later, in
     *         order); {@code false} when it may be answered now
     */
    boolean holdPong() {
        Epoch last = epochs.peekLast();
        if (last == null) {
            return false;
        }
        last.pongs++;
        return true;
    }

    /** @return publishes of this connection not yet acknowledged by the store (event loop) */
    int outstanding() {
        return outstanding;
    }

    /** Event loop: the connection closed; PONGs still waiting are dropped, PubAcks are still published. */
    void close() {
        closed = true;
    }

    /** Store's thread: queues the completion for the event loop. */
    private void completed(Stored stored) {
        completed.offer(stored);
        if (!scheduled.get() && scheduled.compareAndSet(false, true)) {
            loop.execute(drain);
        }
    }

    /** Event loop: handles the completions queued so far. */
    private void drain() {
        scheduled.set(false);
        Stored stored;
        while ((stored = completed.poll()) != null) {
            handle(stored);
        }
    }

    private void handle(Stored stored) {
        if (stored.replyTo != null && !reply(stored)) {
            // The broker had no room for the PubAck: try again soon; the PONGs behind it wait.
            loop.schedule(() -> handle(stored), REPLY_RETRY_MICROS, TimeUnit.MICROSECONDS);
            return;
        }
        if (rejection(stored.error) != null) {
            counters.durableRefused.increment();
        } else if (stored.error != null) {
            counters.durableFailures.increment();
            if (!failureLogged) {
                failureLogged = true; // once per connection: a full disk would otherwise flood the log
                LOG.warn("connection {}: storing a message to '{}' failed (further failures counted in /varz): {}",
                        connectionId, stored.subject, stored.error.getMessage());
            }
        }
        stored.epoch.outstanding--;
        outstanding--;
        counters.durableAcksPending.decrement();
        Epoch head;
        while ((head = epochs.peekFirst()) != null && head.outstanding == 0) {
            epochs.pollFirst();
            if (!closed) {
                for (int i = 0; i < head.pongs; i++) {
                    sendPong.run();
                }
            }
        }
    }

    /** @return {@code false} when the broker had no room for the reply now */
    private boolean reply(Stored stored) {
        String json = stored.error == null ? PubAckJson.ack(stored.ack) : errorJson(stored.error);
        try {
            return stored.replies.tryPublish(stored.replyTo, json.getBytes(StandardCharsets.UTF_8));
        } catch (RuntimeException unanswerable) {
            // The broker closed, or the reply subject was refused: nobody can receive the PubAck.
            LOG.debug("connection {}: PubAck to '{}' not published", connectionId, stored.replyTo, unanswerable);
            return true;
        }
    }

    /**
     * @return JetStream's error response for a publish the stream could not store, as nats-server
     *         writes it ({@code JSStreamStoreFailedF}: code 503, err_code 10077), or for one it refused
     *         ({@link PublishRejectedException}'s code and err_code)
     */
    static String errorJson(Throwable error) {
        PublishRejectedException rejected = rejection(error);
        Throwable described = rejected != null ? rejected : error;
        String description = described.getMessage() == null ? described.toString() : described.getMessage();
        return rejected == null ? PubAckJson.error(503, STORE_FAILED_ERR_CODE, description, null)
                : PubAckJson.error(rejected.status(), rejected.errorCode(), description, rejected.stream());
    }

    /** @return the store's refusal in {@code error}'s causes, or null when it is none (or no error) */
    static PublishRejectedException rejection(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof PublishRejectedException rejected) {
                return rejected;
            }
        }
        return null;
    }

    /** One publish waiting for the store: the ack's callback, then the event loop's work item. */
    private static final class Stored implements BiConsumer<PublishAck, Throwable> {
        private final DurableAcks owner;
        private final Epoch epoch;
        private final String subject;
        private final String replyTo;
        private final Client replies;
        // Written by the store's thread before the queue hands this to the event loop.
        private PublishAck ack;
        private Throwable error;

        Stored(DurableAcks owner, Epoch epoch, String subject, String replyTo, Client replies) {
            this.owner = owner;
            this.epoch = epoch;
            this.subject = subject;
            this.replyTo = replyTo;
            this.replies = replies;
        }

        @Override
        public void accept(PublishAck published, Throwable failure) {
            this.ack = published;
            Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                    ? failure.getCause() : failure;
            if (cause == null && published == null) {
                cause = new StorageException("the store acknowledged '" + subject + "' without a sequence");
            }
            this.error = cause;
            owner.completed(this);
        }
    }
}
