package io.ringbus.jetstream.internal.consumer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ringbus.core.Broker;
import io.ringbus.core.Client;
import io.ringbus.core.Scope;
import io.ringbus.core.Headers;
import io.ringbus.core.StoredMessage;
import io.ringbus.core.StoredStream;
import io.ringbus.core.StreamInfo;
import io.ringbus.core.StreamReader;
import io.ringbus.core.wire.NatsHeaderBlock;
import io.ringbus.server.spi.DeliveredAs;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * One JetStream consumer: its position in the stream, the messages delivered and not acknowledged,
 * the pull requests waiting, and its deliveries (nats-server 2.9.10's {@code consumer.go} semantics).
 *
 * <p>Threading: every method runs on the {@link Consumers}' one thread; nothing here locks.
 */
final class JsConsumer {
    /** nats-server's flow-control window (JsFlowControlMaxPending); a request goes out at half of it. */
    static final long FLOW_CONTROL_BYTES = 32L << 20;
    /** nats-server's JsDeleteWaitTimeDefault: an ephemeral without interest this long is deleted. */
    static final long EPHEMERAL_INACTIVE_NANOS = 5_000_000_000L;

    /** The most subjects a last_per_subject consumer starts with (each kept until delivered). */
    static final int MAX_LAST_PER_SUBJECT = 65_536;

    final String stream;
    /** Changed only by {@link #update}, on the consumers' thread. */
    JsConsumerConfig config;
    final Instant created;
    /** {@link #created} as JSON writes it (Instant.toString formats each time; the state is saved often). */
    final String createdText;
    /**
     * Where its deliveries go, at the stream's scope (they reach only subscribers of that scope or
     * higher); held while its create response is not published, so that the response comes first.
     */
    final ConsumerOutput output;
    /** At the stream's scope, for interest checks. */
    private final Client client;
    private final String ackPrefix;
    private final String name;
    /** Next stream sequence to look at (nats-server's sseq). */
    long sseq;
    /** Next consumer sequence (nats-server's dseq). */
    long dseq = 1;
    long ackFloorStream;
    long ackFloorConsumer;
    /** Out and not acknowledged: stream sequence to [consumer sequence, delivered at (epoch ms), due (nanoTime)]. */
    final TreeMap<Long, long[]> pending = new TreeMap<>();
    /** Delivery counts above one, by stream sequence. */
    final Map<Long, Integer> redelivered = new HashMap<>();
    /** Due for redelivery now, in stream order. */
    private final TreeSet<Long> due = new TreeSet<>();
    /** Sequences to deliver before {@link #sseq} (last_per_subject). */
    final TreeSet<Long> start = new TreeSet<>();
    final ArrayDeque<PullRequest> waiting = new ArrayDeque<>();
    private long lastActiveNanos = System.nanoTime();
    private long lastSentNanos = System.nanoTime();
    private long bytesSinceFlowControl;
    private String flowControlReply;
    private long flowControlId;
    long lastDeliveredMillis;
    boolean dirty;
    private static final int REDELIVERY = 0;
    private static final int START = 1;
    private static final int SCAN = 2;
    /** Where {@link #next} took its last message from (to put it back). */
    private int lastSource;
    /** Reads the stream forward, and counts what the filter takes (num_pending). */
    private final FilteredReader reads;
    /** The earliest ack deadline of a pending message (nanoTime); MAX_VALUE when none. */
    private long nextDueNanos = Long.MAX_VALUE;

    /** A pull request waiting for messages. */
    static final class PullRequest {
        final String reply;
        int batch;
        long maxBytes;
        final boolean noWait;
        final long expiresNanos;
        final long heartbeatNanos;
        long lastSentNanos;
        int delivered;

        PullRequest(String reply, int batch, long maxBytes, boolean noWait, long expiresNanos, long heartbeatNanos) {
            this.reply = reply;
            this.batch = batch;
            this.maxBytes = maxBytes;
            this.noWait = noWait;
            this.expiresNanos = expiresNanos;
            this.heartbeatNanos = heartbeatNanos;
            this.lastSentNanos = System.nanoTime();
        }
    }

    JsConsumer(String stream, JsConsumerConfig config, Instant created, Broker broker) {
        this.stream = stream;
        Scope scope = broker.streamScope(stream).orElse(Scope.ROOT);
        this.output = new ConsumerOutput(broker, scope);
        this.client = broker.client(scope).verbatim();
        this.config = config;
        this.created = created;
        this.createdText = created.toString();
        this.name = config.durable() != null ? config.durable() : config.name();
        this.ackPrefix = "$JS.ACK." + stream + "." + name + ".";
        this.reads = new FilteredReader(config.filterSubject());
    }

    String name() {
        return name;
    }

    boolean acks() {
        return !config.ackPolicy().equals("none");
    }

    /** Sets the starting position of a new consumer (nats-server's selectStartingSeqNo). */
    void position(StoredStream stored) {
        var info = stored.info();
        long first = info.messages() == 0 ? info.lastSequence() + 1 : info.firstSequence();
        long last = info.lastSequence();
        switch (config.deliverPolicy()) {
            case "new" -> sseq = last + 1;
            case "last" -> {
                StoredMessage message = config.filterSubject() == null ? stored.read(last)
                        : stored.lastBySubject(config.filterSubject());
                sseq = message == null ? last + 1 : message.sequence();
            }
            case "by_start_sequence" -> sseq = Math.max(config.optStartSeq(), first);
            case "by_start_time" -> {
                sseq = last + 1;
                long wanted = config.optStartTime().toEpochMilli();
                StreamReader reader = stored.newReader();
                for (long seq = first; seq <= last; seq++) {
                    StoredMessage message = reader.read(seq);
                    if (message != null && message.timestampMillis() >= wanted) {
                        sseq = seq;
                        break;
                    }
                }
            }
            case "last_per_subject" -> {
                Map<String, Long> lastOf = new HashMap<>();
                StreamReader reader = stored.newReader();
                for (long seq = first; seq <= last; seq++) {
                    String subject = reader.subject(seq);
                    if (subject != null && matches(subject)) {
                        lastOf.put(subject, seq);
                        if (lastOf.size() > MAX_LAST_PER_SUBJECT) {
                            throw ConsumerError.create("deliver_policy last_per_subject over more than "
                                    + MAX_LAST_PER_SUBJECT + " subjects is not supported by ringbus: filter_subject="
                                    + config.filterSubject());
                        }
                    }
                }
                start.addAll(lastOf.values());
                sseq = last + 1;
            }
            default -> sseq = first;
        }
        dirty = true; // the ack floor starts at 0 whatever the start, as nats-server's
    }

    boolean matches(String subject) {
        return reads.matches(subject);
    }

    /**
     * @return messages of the stream not yet delivered that the filter matches: arithmetic when
     *         unfiltered; when filtered, counted once by a read of the stream in order and then kept
     *         up to date (new messages counted as they come, deliveries subtracted)
     */
    long numPending(StoredStream stored) {
        return numPending(stored, stored.info());
    }

    /** As {@link #numPending(StoredStream)} with the stream's info known. */
    private long numPending(StoredStream stored, StreamInfo info) {
        long firstSeq = info.firstSequence();
        long last = info.lastSequence();
        if (!reads.filtered()) {
            return start.size() + Math.max(0, last - Math.max(sseq, firstSeq) + 1);
        }
        return start.size() + reads.matching(stored, sseq, info);
    }

    /** Marks the consumer used now (a pull request, interest, an ack). */
    void touch(long now) {
        lastActiveNanos = now;
    }

    /** @return whether an ephemeral (or a consumer with inactive_threshold) has been idle past its threshold */
    boolean inactive(long now) {
        if (config.isDurable() && config.inactiveNanos() == 0) {
            return false;
        }
        if (!waiting.isEmpty() || config.push() && client.hasSubscribers(config.deliverSubject())) {
            lastActiveNanos = now;
            return false;
        }
        long threshold = config.inactiveNanos() > 0 ? config.inactiveNanos() : EPHEMERAL_INACTIVE_NANOS;
        return now - lastActiveNanos > threshold;
    }

    /**
     * Delivers what it can: redeliveries first, then new messages; expires and heartbeats requests.
     * Held ({@link #output}), it delivers into the output until that is full.
     */
    void pump(StoredStream stored, long now) {
        expireWaiting(now);
        if (now - nextDueNanos >= 0) {
            // Only when a deadline passed: a scan of what is out, bounded by max_ack_pending.
            long next = Long.MAX_VALUE;
            for (Map.Entry<Long, long[]> entry : pending.entrySet()) {
                long dueAt = entry.getValue()[2];
                if (now - dueAt >= 0) {
                    due.add(entry.getKey());
                } else if (!due.contains(entry.getKey())) {
                    next = Math.min(next, dueAt);
                }
            }
            nextDueNanos = next;
        }
        long first = 0;
        long last = -1;
        StreamInfo info = null;
        while (!output.full()) {
            String target = target(now);
            if (target == null) {
                break;
            }
            if (info == null) {
                // Once per pump, and only for a consumer someone reads: it takes the stream's locks.
                info = stored.info();
                first = info.firstSequence();
                last = info.lastSequence();
            }
            if (acks() && pending.size() - due.size() >= config.maxAckPending()) {
                break;
            }
            if (config.push() && config.flowControl() && flowControlReply != null
                    && bytesSinceFlowControl >= FLOW_CONTROL_BYTES) {
                break;
            }
            StoredMessage message = next(stored, first, last);
            if (message == null) {
                endOfStream();
                break;
            }
            String reply = ackReply(message, stored, info);
            if (!config.push() && tooLarge(message, reply)) {
                continue;
            }
            deliver(message, target, reply, now);
        }
        heartbeats(now);
    }

    /** @return where the next message goes, or null when nobody wants one */
    private String target(long now) {
        if (config.push()) {
            return client.hasSubscribers(config.deliverSubject()) ? config.deliverSubject() : null;
        }
        while (!waiting.isEmpty()) {
            PullRequest request = waiting.peekFirst();
            if (client.hasSubscribers(request.reply)) {
                return request.reply;
            }
            waiting.pollFirst(); // nobody listens any more: dropped, as nats-server drops it
        }
        return null;
    }

    private StoredMessage next(StoredStream stored, long first, long last) {
        while (!due.isEmpty()) {
            long seq = due.pollFirst();
            long[] out = pending.get(seq);
            if (out == null) {
                continue;
            }
            int count = deliveries(seq);
            if (config.maxDeliver() > 0 && count >= config.maxDeliver()) {
                dropPending(seq); // delivered max_deliver times: never again
                continue;
            }
            StoredMessage message = stored.read(seq);
            if (message == null) {
                dropPending(seq);
                continue;
            }
            redelivered.put(seq, count + 1);
            lastSource = REDELIVERY;
            return message;
        }
        while (!start.isEmpty()) {
            StoredMessage message = reads.read(stored, start.pollFirst());
            if (message != null) {
                lastSource = START;
                return message;
            }
        }
        if (sseq < first) {
            sseq = first;
            reads.recount();
        }
        while (sseq <= last) {
            long seq = sseq++;
            StoredMessage message = reads.readMatching(stored, seq);
            dirty = true;
            if (message != null) {
                reads.delivered(seq);
                lastSource = SCAN;
                return message;
            }
        }
        return null;
    }

    /**
     * nats-server's max_bytes: a message larger than what the first pull request has left ends that
     * request with {@code 409 Message Size Exceeds MaxBytes}, and the message stays for the next one.
     */
    private boolean tooLarge(StoredMessage message, String reply) {
        PullRequest request = waiting.peekFirst();
        if (request == null || request.maxBytes <= 0 || size(message, reply) <= request.maxBytes) {
            return false;
        }
        status(request.reply, null, ConsumerStatus.pending("409 Message Size Exceeds MaxBytes", request));
        waiting.pollFirst();
        long seq = message.sequence();
        switch (lastSource) {
            case REDELIVERY -> {
                int count = redelivered.getOrDefault(seq, 2) - 1;
                if (count <= 1) {
                    redelivered.remove(seq);
                } else {
                    redelivered.put(seq, count);
                }
                due.add(seq);
            }
            case START -> start.add(seq);
            default -> {
                sseq = seq;
                reads.putBack(seq);
            }
        }
        return true;
    }

    /** nats-server's size of a delivery: subject, ack subject, headers and payload. */
    private static long size(StoredMessage message, String reply) {
        return size(message, reply, message.headers().isEmpty() ? null : message.headers());
    }

    private static long size(StoredMessage message, String reply, Headers headers) {
        return message.payload().length + message.subject().length() + reply.length()
                + (headers == null ? 0 : headers.toNatsBlock().length);
    }

    /** @return the ack subject of the next delivery of {@code message} */
    private String ackReply(StoredMessage message, StoredStream stored, StreamInfo info) {
        return ackPrefix + deliveries(message.sequence()) + "." + message.sequence() + "." + dseq
                + "." + message.timestampMillis() * 1_000_000L + "." + numPending(stored, info);
    }

    /** @return how many times {@code seq} has been delivered, counting the delivery being made (1 the first time) */
    private int deliveries(long seq) {
        return redelivered.isEmpty() ? 1 : redelivered.getOrDefault(seq, 1);
    }

    private void deliver(StoredMessage message, String target, String reply, long now) {
        long seq = message.sequence();
        int count = deliveries(seq);
        long cseq = dseq++;
        if (acks()) {
            long deadline = now + ackWait(count);
            pending.put(seq, new long[] {cseq, System.currentTimeMillis(), deadline});
            nextDueNanos = Math.min(nextDueNanos, deadline);
        } else {
            ackFloorStream = seq;
            ackFloorConsumer = cseq;
        }
        lastDeliveredMillis = System.currentTimeMillis();
        dirty = true;
        // The stored block as it is (a store's headers are a NATS block: nothing parsed, nothing encoded).
        Headers headers = message.headers().isEmpty() ? null : message.headers();
        long size = size(message, reply, headers);
        byte[] payload = message.payload();
        if (config.headersOnly()) {
            headers = ConsumerStatus.headersOnly(headers, payload.length);
            payload = new byte[0];
        }
        // Shown under the stored subject, as nats-server delivers (KV watchers read the key from it).
        output.send(target, reply, headers, new DeliveredAs(message.subject(), payload), size);
        lastSentNanos = now;
        if (!config.push()) {
            PullRequest request = waiting.peekFirst();
            request.delivered++;
            request.lastSentNanos = now;
            if (--request.batch <= 0 || request.maxBytes > 0 && (request.maxBytes -= size) <= 0) {
                waiting.pollFirst();
            }
        } else if (config.flowControl()) {
            bytesSinceFlowControl += size;
            if (flowControlReply == null && bytesSinceFlowControl >= FLOW_CONTROL_BYTES / 2) {
                flowControlReply = "$JS.FC." + stream + "." + name() + "." + (++flowControlId);
                status(config.deliverSubject(), flowControlReply, NatsHeaderBlock.statusBlock("100 FlowControl Request"));
            }
        }
    }

    private long ackWait(int deliveryCount) {
        var backoff = config.backoffNanos();
        if (!backoff.isEmpty()) {
            return backoff.get(Math.min(deliveryCount - 1, backoff.size() - 1));
        }
        return config.ackWaitNanos() > 0 ? config.ackWaitNanos() : JsConsumerConfig.DEFAULT_ACK_WAIT_NANOS;
    }

    /** nats-server's end of stream: a no_wait request that got messages ends with 408, one that got none with 404. */
    private void endOfStream() {
        for (Iterator<PullRequest> it = waiting.iterator(); it.hasNext(); ) {
            PullRequest request = it.next();
            if (request.noWait) {
                if (request.delivered > 0) {
                    status(request.reply, null, ConsumerStatus.pending("408 Request Timeout", request));
                } else {
                    status(request.reply, null, NatsHeaderBlock.statusBlock("404 No Messages"));
                }
                it.remove();
            }
        }
    }

    private void expireWaiting(long now) {
        for (Iterator<PullRequest> it = waiting.iterator(); it.hasNext(); ) {
            PullRequest request = it.next();
            if (request.expiresNanos != 0 && now - request.expiresNanos >= 0) {
                status(request.reply, null, ConsumerStatus.pending("408 Request Timeout", request));
                it.remove();
            }
        }
    }

    private void heartbeats(long now) {
        for (PullRequest request : waiting) {
            if (request.heartbeatNanos > 0 && now - request.lastSentNanos >= request.heartbeatNanos) {
                status(request.reply, null, heartbeat(null));
                request.lastSentNanos = now;
            }
        }
        if (config.push() && config.heartbeatNanos() > 0 && now - lastSentNanos >= config.heartbeatNanos()
                && client.hasSubscribers(config.deliverSubject())) {
            status(config.deliverSubject(), null, heartbeat(flowControlReply));
            lastSentNanos = now;
        }
    }

    /** nats-server's sendIdleHeartbeat: the last delivered sequences, and the flow-control reply it waits for. */
    private byte[] heartbeat(String stalledOn) {
        return ConsumerStatus.heartbeat(dseq - 1, Math.max(0, sseq - 1), stalledOn);
    }

    /** Sends a status message (no payload). */
    void status(String subject, String reply, byte[] block) {
        output.send(subject, reply, NatsHeaderBlock.wrap(block), new byte[0], block.length);
    }

    /** A flow-control response arrived. */
    void flowControlAnswered(String subject) {
        if (subject.equals(flowControlReply)) {
            flowControlReply = null;
            bytesSinceFlowControl = 0;
        }
    }

    /** Acknowledges {@code seq} (and, for ack all, everything before it). */
    void ack(long seq) {
        if (config.ackPolicy().equals("all")) {
            while (!pending.isEmpty() && pending.firstKey() <= seq) {
                dropPending(pending.firstKey());
            }
        } else if (pending.containsKey(seq)) {
            dropPending(seq);
        }
    }

    /** Asks for {@code seq} again after {@code delayNanos}. */
    void nak(long seq, long delayNanos, long now) {
        long[] out = pending.get(seq);
        if (out != null) {
            if (delayNanos <= 0) {
                due.add(seq);
            } else {
                out[2] = now + delayNanos;
                due.remove(seq);
                nextDueNanos = Math.min(nextDueNanos, out[2]);
            }
        }
    }

    /** +WPI: the ack wait of {@code seq} starts again. */
    void progress(long seq, long now) {
        long[] out = pending.get(seq);
        if (out != null) {
            out[2] = now + ackWait(deliveries(seq));
            due.remove(seq);
            nextDueNanos = Math.min(nextDueNanos, out[2]);
        }
    }

    /** +TERM: never delivered again. */
    void term(long seq) {
        dropPending(seq);
    }

    private void dropPending(long seq) {
        long[] out = pending.remove(seq);
        redelivered.remove(seq);
        due.remove(seq);
        dirty = true;
        if (pending.isEmpty()) {
            ackFloorStream = Math.max(ackFloorStream, start.isEmpty() ? sseq - 1 : start.first() - 1);
            // (a consumer that started past the stream's beginning jumps to its position on its first ack)
            ackFloorConsumer = dseq - 1;
        } else {
            Map.Entry<Long, long[]> lowest = pending.firstEntry();
            ackFloorStream = Math.max(ackFloorStream, lowest.getKey() - 1);
            ackFloorConsumer = Math.max(ackFloorConsumer, lowest.getValue()[0] - 1);
        }
        if (out != null && out[0] > ackFloorConsumer && pending.isEmpty()) {
            ackFloorConsumer = dseq - 1;
        }
    }

    /**
     * Takes a new configuration that {@link #updateRefusal} allowed (nats-server's updateConfig):
     * limits, ack wait, backoff, filter, deliver subject and the like take effect at once.
     */
    void update(JsConsumerConfig updated) {
        if (!java.util.Objects.equals(updated.filterSubject(), config.filterSubject())) {
            reads.filter(updated.filterSubject());
        }
        config = updated;
        dirty = true;
    }

    /** @return why {@code updated} may not replace the configuration (nats-server's texts), or null */
    String updateRefusal(JsConsumerConfig updated) {
        return ConsumerUpdate.refusal(config, updated,
                config.push() && client.hasSubscribers(config.deliverSubject()));
    }

    /** @return messages due for redelivery now */
    int dueCount() {
        return due.size();
    }

    /** Adds a pull request (the caller checked max_waiting). */
    void addRequest(PullRequest request, long now) {
        waiting.addLast(request);
        touch(now);
    }

    /** Answers every waiting pull request with 409 Consumer Deleted. */
    void deleted() {
        for (PullRequest request : waiting) {
            status(request.reply, null, NatsHeaderBlock.statusBlock("409 Consumer Deleted"));
        }
        waiting.clear();
    }

    /** @return whether a push consumer's deliver subject has subscribers now */
    boolean pushBound() {
        return config.push() && client.hasSubscribers(config.deliverSubject());
    }

    /** Everything restored is due again at once. */
    void dueNow(long now) {
        nextDueNanos = now;
    }
}
