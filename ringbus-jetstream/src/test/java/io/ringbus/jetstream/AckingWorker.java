package io.ringbus.jetstream;

import io.nats.client.JetStreamSubscription;
import io.nats.client.Message;
import io.nats.client.PullSubscribeOptions;
import io.nats.client.impl.NatsJetStreamMetaData;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * Works through a durable pull consumer with explicit acks: fetches, and acknowledges each message
 * with {@code ackSync} (the server answers once the ack is durable), except that while a kill may
 * come it holds every message whose stream sequence is a multiple of {@code hold} (delivered, never
 * acknowledged: the server must deliver it again after the kill). Once an {@code ackSync} fails
 * (the server died) it sends no more acks on that connection. In the last life it acknowledges
 * everything. Every delivery is recorded with the life it came from and what became of it.
 *
 * <p>Threading: {@link #run} on one thread; {@link #acknowledged()}, {@link #deliveries()} and
 * {@link #errors()} are safe from any thread, {@link #deliveredAfterAck()} is read once it ended.
 */
final class AckingWorker implements Runnable {
    private static final int BATCH = 64;
    private static final Duration FETCH_WAIT = Duration.ofMillis(250);
    private static final Duration ACK_WAIT = Duration.ofSeconds(3);
    private static final int LAST_LIFE_TRIES = 3;

    /** What became of a delivery. */
    enum Outcome {
        /** {@code ackSync} was answered: the server holds the ack. */
        ACKED,
        /** {@code ackSync} failed: the ack may or may not have reached the server. */
        ACK_UNKNOWN,
        /** no ack was sent: the server cannot hold one from this delivery. */
        NOT_ACKED
    }

    /** One message as it came, with the life whose server sent it. */
    record Delivery(long sequence, int life, String msgId, long deliveredCount, Outcome outcome) {
    }

    private final AtomicReference<ServerLife> lives;
    private final String stream;
    private final String durable;
    private final long hold;
    private final List<Delivery> deliveries = Collections.synchronizedList(new ArrayList<>());
    /** Each acknowledged stream sequence and the life whose server answered its ackSync. */
    private final Map<Long, Integer> acknowledged = new ConcurrentHashMap<>();
    private final List<String> deliveredAfterAck = new ArrayList<>();
    /** Why it stopped working in a life (the connection closed with its server), for failure messages. */
    private final List<String> errors = new CopyOnWriteArrayList<>();
    private volatile boolean stopped;

    AckingWorker(AtomicReference<ServerLife> lives, String stream, String durable, long hold) {
        this.lives = lives;
        this.stream = stream;
        this.durable = durable;
        this.hold = hold;
    }

    @Override
    public void run() {
        ServerLife seen = null;
        while (!stopped) {
            ServerLife life = lives.get();
            if (life == seen) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
                continue;
            }
            seen = life;
            workIn(life);
        }
    }

    private void workIn(ServerLife life) {
        JetStreamSubscription sub;
        try {
            sub = life.worker().jetStream().subscribe(null, PullSubscribeOptions.bind(stream, durable));
        } catch (Exception closed) {
            errors.add("life " + life.number() + ": subscribe: " + closed);
            return;
        }
        boolean acking = true;
        while (!stopped && lives.get() == life) {
            List<Message> batch;
            try {
                batch = sub.fetch(BATCH, FETCH_WAIT);
            } catch (RuntimeException closed) {
                errors.add("life " + life.number() + ": fetch: " + closed);
                return;
            }
            for (Message message : batch) {
                acking = take(life, message, acking);
            }
        }
    }

    /** Records one delivery and acknowledges it unless held; returns whether to go on acking. */
    private boolean take(ServerLife life, Message message, boolean acking) {
        NatsJetStreamMetaData meta = message.metaData();
        long seq = meta.streamSequence();
        Integer ackedIn = acknowledged.get(seq);
        if (ackedIn != null) {
            deliveredAfterAck.add("stream sequence " + seq + " delivered in life " + life.number()
                    + " (delivery " + meta.deliveredCount() + ") after its ackSync was answered in life " + ackedIn);
        }
        Outcome outcome = Outcome.NOT_ACKED;
        if (acking && (life.last() || seq % hold != 0)) {
            // in the last life the server lives on: an ack that timed out is sent again (acks are idempotent)
            for (int tries = life.last() ? LAST_LIFE_TRIES : 1; tries > 0 && outcome != Outcome.ACKED; tries--) {
                try {
                    message.ackSync(ACK_WAIT);
                    outcome = Outcome.ACKED;
                    acknowledged.putIfAbsent(seq, life.number());
                } catch (Exception dead) { // timeout, closed connection: the server's answer is unknown
                    outcome = Outcome.ACK_UNKNOWN;
                }
            }
        }
        String msgId = message.getHeaders() == null ? null : message.getHeaders().getFirst("Nats-Msg-Id");
        deliveries.add(new Delivery(seq, life.number(), msgId, meta.deliveredCount(), outcome));
        return acking && outcome != Outcome.ACK_UNKNOWN;
    }

    void stop() {
        stopped = true;
    }

    /** @return each acknowledged stream sequence, with the life that answered its ackSync */
    Map<Long, Integer> acknowledged() {
        return acknowledged;
    }

    /** @return every delivery so far, in the order they came */
    List<Delivery> deliveries() {
        synchronized (deliveries) {
            return List.copyOf(deliveries);
        }
    }

    /** @return why it stopped working in each life */
    List<String> errors() {
        return errors;
    }

    /** @return deliveries that came after the message's ackSync was answered */
    List<String> deliveredAfterAck() {
        return deliveredAfterAck;
    }
}
