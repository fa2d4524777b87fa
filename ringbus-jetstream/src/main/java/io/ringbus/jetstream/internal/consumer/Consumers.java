package io.ringbus.jetstream.internal.consumer;

import io.ringbus.jetstream.internal.ApiError;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ringbus.core.Broker;
import io.ringbus.core.Scope;
import io.ringbus.core.StoredStream;
import io.ringbus.core.StreamConfig;
import io.ringbus.server.spi.ApiRequest;
import io.ringbus.server.spi.RequestHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Instant;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;

/**
 * Every JetStream consumer, run on one thread of its own: deliveries, redeliveries, pull requests,
 * heartbeats and acks all happen there, so a consumer's state has one writer. A stream that tells of
 * its appends ({@link StoredStream#onAppend}) wakes the thread at once (wakes coalesce: one queued at a
 * time); a tick every {@link #TICK_MILLIS} ms delivers what other streams stored since, redelivers,
 * times out pull requests and saves changed durable consumers
 * ({@link ConsumerFiles}); an {@code AckSync} (an ack with a reply subject) is saved before it is answered.
 *
 * <p>Also the handler of {@code $JS.ACK.} and {@code $JS.FC.} (acks and flow-control answers): taken on
 * the event loop, queued ({@link AckInbox}), applied on the consumers' thread.
 */
public final class Consumers implements RequestHandler, AutoCloseable {
    /** How often streams are looked at for new messages, in ms. */
    static final long TICK_MILLIS = 10;
    /** The most consumers, all streams together. */
    public static final int MAX_CONSUMERS = 1_024;
    /** The most max_ack_pending a consumer may ask for (nats-server has no default limit; ringbus bounds memory). */
    public static final int MAX_ACK_PENDING = 65_536;
    /** The most max_waiting a pull consumer may ask for. */
    public static final int MAX_WAITING = 4_096;
    /** The most pull requests waiting, all consumers together. */
    public static final int MAX_WAITING_TOTAL = 16_384;
    private static final Logger LOG = LoggerFactory.getLogger(Consumers.class);

    final Broker broker;
    private final ConsumerFiles files;
    private final ScheduledThreadPoolExecutor executor;
    /** Stream name to consumer name to consumer; the consumers' thread only. */
    final Map<String, Map<String, JsConsumer>> byStream = new TreeMap<>();
    /** Acks and flow-control answers, queued by the event loops and applied here. */
    private final AckInbox ackInbox = new AckInbox(this);
    private volatile int count;
    /** Consumers per stream, replaced whole on every change (the monitor reads it from its thread). */
    private volatile Map<String, Integer> counts = Map.of();
    private long lastSaveNanos;
    /** Whether a wake is queued on the consumers' thread (appends coalesce into it). */
    private final AtomicBoolean wakeQueued = new AtomicBoolean();
    /** The streams listened to, by identity (a stream updated is a new one); the consumers' thread only. */
    private final Map<StoredStream, Boolean> listened = new IdentityHashMap<>();
    /** Workqueue and interest retention. */
    private final ConsumedRetention retention = new ConsumedRetention();
    /** A stream's JetStream retention by name. */
    private volatile java.util.function.Function<String, String> retentionOf = name -> "limits";
    /** The streams that have consumers now: an append to another wakes nothing. */
    private volatile Set<String> withConsumers = Set.of();

    /**
     * @param broker         the broker whose streams are consumed
     * @param documents      where durable consumers are kept
     */
    public Consumers(Broker broker, io.ringbus.core.Documents documents) {
        this.broker = broker;
        this.files = new ConsumerFiles(documents);
        this.executor = new ScheduledThreadPoolExecutor(1,
                Thread.ofPlatform().name("ringbus-jetstream-consumers").daemon(true).factory());
        call(this::restore);
        executor.scheduleWithFixedDelay(this::tick, TICK_MILLIS, TICK_MILLIS, TimeUnit.MILLISECONDS);
    }

    private Void restore() {
        long now = System.nanoTime();
        for (String stream : files.streams()) {
            Optional<StoredStream> stored = stream(stream);
            if (stored.isEmpty()) {
                files.deleteStream(stream); // the stream went while the server was down
                continue;
            }
            for (ConsumerFiles.Stored saved : files.load(stream)) {
                try {
                    JsConsumerConfig config = JsConsumerConfig.parse(saved.state().get("config"));
                    JsConsumer consumer = new JsConsumer(stream, config, Instant.parse(saved.state().get("created")
                            .asText()), broker);
                    ConsumerJson.restore(consumer, saved.state(), now);
                    byStream.computeIfAbsent(stream, s -> new TreeMap<>()).put(consumer.name(), consumer);
                } catch (RuntimeException e) {
                    LOG.warn("jetstream: consumer {} > {} not restored: {}", stream, saved.name(), e.toString());
                }
            }
        }
        recount();
        return null;
    }

    /** @return consumers now */
    public int count() {
        return count;
    }

    /** @return acks dropped because the queue was full */
    public long droppedAcks() {
        return ackInbox.dropped();
    }

    /**
     * @param stream a stream's name
     * @return its consumers now; any thread
     */
    public int count(String stream) {
        return counts.getOrDefault(stream, 0);
    }

    private void recount() {
        Map<String, Integer> next = new TreeMap<>();
        byStream.forEach((stream, consumers) -> next.put(stream, consumers.size()));
        counts = Map.copyOf(next);
        count = byStream.values().stream().mapToInt(Map::size).sum();
        withConsumers = byStream.entrySet().stream().filter(e -> !e.getValue().isEmpty()).map(Map.Entry::getKey)
                .collect(java.util.stream.Collectors.toUnmodifiableSet());
    }

    /**
     * The info of every consumer of the streams {@code streams} accepts, as the API's CONSUMER.INFO
     * answers it (without {@code config} unless {@code withConfig}), taken on the consumers' thread
     * without waiting for it: for the monitor, whose thread must not wait.
     *
     * @param streams    which streams' consumers (by name)
     * @param withConfig whether each info keeps its {@code config}
     * @return completes on the consumers' thread with the infos by stream name (sorted), each list
     *         by consumer name; exceptionally when the consumers are closed
     */
    public CompletableFuture<Map<String, List<ObjectNode>>> infos(Predicate<String> streams, boolean withConfig) {
        CompletableFuture<Map<String, List<ObjectNode>>> infos = new CompletableFuture<>();
        try {
            executor.execute(() -> {
                try {
                    Map<String, List<ObjectNode>> all = new TreeMap<>();
                    for (Map.Entry<String, Map<String, JsConsumer>> entry : byStream.entrySet()) {
                        Optional<StoredStream> stored = entry.getValue().isEmpty() || !streams.test(entry.getKey())
                                ? Optional.empty() : stream(entry.getKey());
                        if (stored.isEmpty()) {
                            continue;
                        }
                        List<ObjectNode> list = new ArrayList<>();
                        for (JsConsumer consumer : entry.getValue().values()) {
                            ObjectNode info = ConsumerJson.info(consumer, JsConsumerConfig.MAPPER.createObjectNode(),
                                    stored.get());
                            if (!withConfig) {
                                info.remove("config");
                            }
                            list.add(info);
                        }
                        all.put(entry.getKey(), List.copyOf(list));
                    }
                    infos.complete(all);
                } catch (RuntimeException e) {
                    infos.completeExceptionally(e);
                }
            });
        } catch (RejectedExecutionException closed) {
            infos.completeExceptionally(new IllegalStateException("jetstream consumers are closed", closed));
        }
        return infos;
    }

    Optional<StoredStream> stream(String name) {
        for (StoredStream stream : broker.streams()) {
            if (stream.config().name().equals(name)) {
                return Optional.of(stream);
            }
        }
        return Optional.empty();
    }

    /**
     * Runs {@code work} on the consumers' thread and waits for it (API requests).
     *
     * @throws ConsumerError 503 when the thread does not answer within 5 s
     */
    <T> T call(Callable<T> work) {
        Future<T> future;
        try {
            future = executor.submit(work);
        } catch (RejectedExecutionException closed) {
            throw ConsumerError.of(ApiError.UNAVAILABLE);
        }
        try {
            return future.get(5, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new IllegalStateException(e.getCause());
        } catch (TimeoutException e) {
            throw ConsumerError.of(ApiError.UNAVAILABLE);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ConsumerError.of(ApiError.UNAVAILABLE);
        }
    }

    /** Runs later on the consumers' thread. */
    void later(Runnable work) {
        executor.execute(work);
    }

    /** A stream stored a message (its storing thread): deliver it now. */
    private void wake() {
        if (wakeQueued.compareAndSet(false, true)) {
            try {
                executor.execute(this::woken);
            } catch (RejectedExecutionException closed) {
                wakeQueued.set(false);
            }
        }
    }

    private void woken() {
        wakeQueued.set(false);
        try {
            long now = System.nanoTime();
            for (Map.Entry<String, Map<String, JsConsumer>> entry : byStream.entrySet()) {
                Optional<StoredStream> stored = stream(entry.getKey());
                if (stored.isPresent()) {
                    for (JsConsumer consumer : entry.getValue().values()) {
                        consumer.pump(stored.get(), now);
                    }
                }
            }
        } catch (RuntimeException e) {
            LOG.warn("jetstream consumers: delivery failed: {}", e.toString(), e);
        }
    }

    /** Listens to the appends of a stream with consumers; forgets streams gone or replaced. */
    private void listen(StoredStream stream) {
        if (!listened.containsKey(stream)) {
            listened.keySet().retainAll(broker.streams());
            String name = stream.config().name();
            listened.put(stream, stream.onAppend(() -> {
                if (withConsumers.contains(name)) {
                    wake();
                }
            }));
        }
    }

    private void tick() {
        try {
            long now = System.nanoTime();
            List<String[]> gone = new ArrayList<>();
            for (Map.Entry<String, Map<String, JsConsumer>> entry : byStream.entrySet()) {
                Optional<StoredStream> stored = stream(entry.getKey());
                if (stored.isEmpty()) {
                    gone.add(new String[] {entry.getKey(), null});
                    continue;
                }
                listen(stored.get());
                for (JsConsumer consumer : entry.getValue().values()) {
                    if (consumer.inactive(now)) {
                        gone.add(new String[] {entry.getKey(), consumer.name()});
                    } else {
                        consumer.pump(stored.get(), now);
                    }
                }
            }
            for (String[] remove : gone) {
                if (remove[1] == null) {
                    streamDeleted(remove[0]);
                } else {
                    delete(remove[0], remove[1]);
                }
            }
            if (now - lastSaveNanos >= TimeUnit.MILLISECONDS.toNanos(50)) {
                lastSaveNanos = now;
                saveDirty();
                for (StoredStream stored : broker.streams()) {
                    String name = stored.config().name();
                    retention.apply(stored, retentionOf.apply(name), of(name).values());
                }
            }
        } catch (RuntimeException e) {
            LOG.warn("jetstream consumers: tick failed: {}", e.toString(), e);
        }
    }

    private void saveDirty() {
        for (Map<String, JsConsumer> consumers : byStream.values()) {
            for (JsConsumer consumer : consumers.values()) {
                if (consumer.dirty) {
                    save(consumer);
                }
            }
        }
    }

    void save(JsConsumer consumer) {
        consumer.dirty = false;
        if (persistent(consumer.config)) {
            files.save(consumer.stream, consumer.name(), ConsumerJson.state(consumer));
        }
    }

    /** Durable consumers are kept on disk; ephemerals and {@code mem_storage} ones live in memory. */
    private static boolean persistent(JsConsumerConfig config) {
        return config.isDurable() && !config.memStorage();
    }

    /** @return pull requests waiting, all consumers together (consumers' thread) */
    int waitingTotal() {
        int total = 0;
        for (Map<String, JsConsumer> consumers : byStream.values()) {
            for (JsConsumer consumer : consumers.values()) {
                total += consumer.waiting.size();
            }
        }
        return total;
    }

    /** @return the consumer, on the consumers' thread */
    JsConsumer find(String stream, String name) {
        Map<String, JsConsumer> consumers = byStream.get(stream);
        return consumers == null ? null : consumers.get(name);
    }

    /** @return the consumers of a stream, by name (consumers' thread) */
    Map<String, JsConsumer> of(String stream) {
        return byStream.getOrDefault(stream, Map.of());
    }

    /** Adds a new consumer (consumers' thread), saved before it is answered. */
    void add(JsConsumer consumer) {
        byStream.computeIfAbsent(consumer.stream, s -> new TreeMap<>()).put(consumer.name(), consumer);
        recount();
        // Its stream's appends wake it from now on, not from the next tick: a message stored in between
        // could supersede one the consumer starts at (last_per_subject, max_msgs_per_subject).
        stream(consumer.stream).ifPresent(this::listen);
        save(consumer);
    }

    /**
     * A new consumer, held until its create response is out, delivers its first messages now, on the
     * consumers' thread that created it, before the response is published: its output keeps them.
     * Read later, a message a limit removed in between would be lost to it: the client may store as
     * soon as it has the response (a KV watch's start superseded by the next put and delete of the key).
     */
    void start(JsConsumer consumer, StoredStream stored) {
        try {
            consumer.pump(stored, System.nanoTime());
        } catch (RuntimeException e) {
            LOG.warn("jetstream consumers: delivery failed: {}", e.toString(), e);
        }
    }

    /**
     * A new consumer's create response is out (any thread): on the consumers' thread, what it held is
     * published, and it delivers on.
     */
    void release(JsConsumer consumer) {
        later(() -> {
            try {
                consumer.output.release();
                stream(consumer.stream).ifPresent(stored -> consumer.pump(stored, System.nanoTime()));
            } catch (RuntimeException e) {
                LOG.warn("jetstream consumers: delivery failed: {}", e.toString(), e);
            }
        });
    }

    /** Deletes a consumer (consumers' thread): waiting pulls get 409 Consumer Deleted. */
    boolean delete(String stream, String name) {
        Map<String, JsConsumer> consumers = byStream.get(stream);
        JsConsumer consumer = consumers == null ? null : consumers.remove(name);
        if (consumer == null) {
            return false;
        }
        if (consumers.isEmpty()) {
            byStream.remove(stream);
        }
        recount();
        consumer.deleted();
        files.delete(stream, name);
        return true;
    }

    /** Forgets every consumer of a deleted stream (consumers' thread). */
    void streamDeleted(String stream) {
        retention.forget(stream);
        Map<String, JsConsumer> consumers = byStream.remove(stream);
        if (consumers != null) {
            consumers.values().forEach(JsConsumer::deleted);
        }
        files.deleteStream(stream);
        recount();
    }

    /**
     * Called by the stream API when it deleted or created a stream: the consumers of a stream of that
     * name go (a stream created again starts without consumers).
     */
    public void streamGone(String stream) {
        call(() -> {
            streamDeleted(stream);
            return null;
        });
    }

    /** @return whether a workqueue stream's retention lets another consumer with {@code filter} in */
    boolean workQueueAllows(String stream, String filter) {
        for (JsConsumer other : of(stream).values()) {
            String theirs = other.config.filterSubject();
            if (filter == null || theirs == null || io.ringbus.core.Subject.overlap(filter, theirs)) {
                return false;
            }
        }
        return true;
    }

    static boolean workQueue(StoredStream stream) {
        return stream.config().retention() == StreamConfig.Retention.WORK_QUEUE;
    }

    // ---- $JS.ACK. and $JS.FC. ----

    @Override
    public void handle(ApiRequest request) {
        ackInbox.handle(request);
    }

    @Override
    public void close() {
        try {
            call(() -> {
                saveDirty();
                return null;
            });
        } catch (RuntimeException e) {
            LOG.warn("jetstream consumers: final save failed: {}", e.toString());
        }
        executor.shutdownNow();
        try {
            executor.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        retention.close();
    }

    /**
     * @param lookup a stream's JetStream retention by name ({@code limits}, {@code workqueue},
     *               {@code interest}), for {@link ConsumedRetention}
     */
    public void retentionFrom(java.util.function.Function<String, String> lookup) {
        this.retentionOf = lookup;
    }
}
