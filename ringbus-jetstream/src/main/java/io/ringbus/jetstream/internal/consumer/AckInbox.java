package io.ringbus.jetstream.internal.consumer;

import com.fasterxml.jackson.databind.JsonNode;
import io.ringbus.core.StoredStream;
import io.ringbus.server.spi.ApiRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code $JS.ACK.} and {@code $JS.FC.}: acks and flow-control answers, checked on the event loop that
 * read them, queued (at most {@link #MAX_QUEUED}; past it an ack is dropped and counted, so the
 * message is delivered again after its ack wait), and applied in order on the consumers' thread in
 * batches: one drain queued at a time takes what is there, then delivers once to each consumer it
 * acknowledged (an ack frees room under max_ack_pending), rather than one task and one delivery round
 * per ack.
 */
final class AckInbox {
    /** Acks and flow-control answers queued at most. */
    static final int MAX_QUEUED = 65_536;
    /** Acks applied at most by one drain, before the other work waiting for the consumers' thread. */
    static final int PER_DRAIN = 1_024;
    private static final Logger LOG = LoggerFactory.getLogger(AckInbox.class);

    private final Consumers consumers;
    private final Queue<QueuedAck> queue = new ConcurrentLinkedQueue<>();
    private final AtomicInteger queued = new AtomicInteger();
    private final AtomicLong dropped = new AtomicLong();
    /** Whether a drain is queued on the consumers' thread. */
    private final AtomicBoolean drainQueued = new AtomicBoolean();

    /** An ack or flow-control answer waiting for the consumers' thread, its subject read. */
    private record QueuedAck(ApiRequest request, AckSubject subject) {
    }

    AckInbox(Consumers consumers) {
        this.consumers = consumers;
    }

    /** @return acks dropped because the queue was full */
    long dropped() {
        return dropped.get();
    }

    /** An event loop: a message to {@code $JS.ACK.>} or {@code $JS.FC.>}. */
    void handle(ApiRequest request) {
        AckSubject parsed = AckSubject.parse(request.subject());
        if (parsed == null) {
            return;
        }
        String stream = parsed.stream();
        boolean visible = consumers.broker.streamScope(stream).map(request.requester().scope()::includes)
                .orElse(false);
        if (!visible) {
            if (consumers.broker.streamScope(stream).isPresent()) {
                request.requester().refuse(request.subject());
            }
            return;
        }
        if (queued.incrementAndGet() > MAX_QUEUED) {
            queued.decrementAndGet();
            dropped.incrementAndGet();
            return;
        }
        queue.add(new QueuedAck(request, parsed));
        drainLater();
    }

    /** Queues a drain on the consumers' thread unless one is queued. */
    private void drainLater() {
        if (drainQueued.compareAndSet(false, true)) {
            try {
                consumers.later(this::drain);
            } catch (RejectedExecutionException closed) {
                drainQueued.set(false);
            }
        }
    }

    /** The consumers' thread: applies what is queued, then delivers to the consumers acknowledged. */
    private void drain() {
        drainQueued.set(false); // before polling: what is queued from now on queues another drain
        Set<JsConsumer> acked = Collections.newSetFromMap(new IdentityHashMap<>());
        QueuedAck next;
        int applied = 0;
        while (applied++ < PER_DRAIN && (next = queue.poll()) != null) {
            queued.decrementAndGet();
            try {
                JsConsumer consumer = apply(next.request(), next.subject());
                if (consumer != null) {
                    acked.add(consumer);
                }
            } catch (RuntimeException e) {
                LOG.debug("ack {} failed: {}", next.request().subject(), e.toString());
            }
        }
        if (!queue.isEmpty()) {
            drainLater();
        }
        long now = System.nanoTime();
        Map<String, Optional<StoredStream>> streams = new HashMap<>();
        for (JsConsumer consumer : acked) {
            if (consumers.find(consumer.stream, consumer.name()) == consumer) { // not deleted meanwhile
                streams.computeIfAbsent(consumer.stream, consumers::stream)
                        .ifPresent(stored -> consumer.pump(stored, now));
            }
        }
    }

    /** @return the consumer an ack or flow-control answer was for, or null */
    private JsConsumer apply(ApiRequest request, AckSubject subject) {
        if (subject.flowControl()) {
            JsConsumer consumer = consumers.find(subject.stream(), subject.consumer());
            if (consumer != null) {
                consumer.flowControlAnswered(request.subject());
            }
            return consumer;
        }
        return ack(request, subject);
    }

    /** {@code $JS.ACK.<stream>.<consumer>.<delivered>.<sseq>.<cseq>.<ts>.<pending>}, nats-server's processAck. */
    private JsConsumer ack(ApiRequest request, AckSubject subject) {
        if (subject.tokens() != 9) {
            return null;
        }
        JsConsumer consumer = consumers.find(subject.stream(), subject.consumer());
        if (consumer == null) {
            return null;
        }
        if (!subject.numbered()) {
            return null;
        }
        long seq = subject.sequence();
        long now = System.nanoTime();
        consumer.touch(now);
        String body = new String(request.payload(), StandardCharsets.UTF_8);
        boolean answer = true;
        if (body.isEmpty() || body.equals("+ACK") || body.equals("+OK")) {
            consumer.ack(seq);
        } else if (body.startsWith("+NXT")) {
            consumer.ack(seq);
            answer = false;
            Optional<StoredStream> stored = consumers.stream(subject.stream());
            if (stored.isPresent() && request.replyTo() != null) {
                PullRequests.next(consumers, consumer, stored.get(), request.replyTo(), body.substring(4).trim()
                        .getBytes(StandardCharsets.UTF_8));
            }
        } else if (body.startsWith("-NAK")) {
            consumer.nak(seq, nakDelay(body.substring(4).trim()), now);
        } else if (body.equals("+WPI")) {
            consumer.progress(seq, now);
        } else if (body.equals("+TERM") || body.startsWith("+TERM ")) {
            consumer.term(seq);
        }
        if (answer && request.replyTo() != null) {
            consumers.save(consumer); // AckSync: durable before it is answered
            request.reply(null, new byte[0]);
        }
        return consumer;
    }

    /** {@code -NAK {"delay": nanos}}; anything else is no delay. */
    private static long nakDelay(String options) {
        if (options.isEmpty()) {
            return 0;
        }
        try {
            JsonNode json = JsConsumerConfig.MAPPER.readTree(options);
            JsonNode delay = json == null ? null : json.get("delay");
            return delay != null && delay.isIntegralNumber() ? delay.asLong() : 0;
        } catch (java.io.IOException e) {
            return 0;
        }
    }
}
