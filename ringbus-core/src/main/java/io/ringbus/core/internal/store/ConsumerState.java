package io.ringbus.core.internal.store;

import io.ringbus.core.ConsumerConfig;
import io.ringbus.core.ConsumerStats;
import io.ringbus.core.StartPosition;
import io.ringbus.core.StorageException;
import io.ringbus.core.StoredMessage;
import io.ringbus.core.internal.SubjectPattern;
import io.ringbus.core.internal.log.DurableFiles;
import io.ringbus.core.internal.log.LogReader;
import io.ringbus.core.internal.log.LogRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.TreeMap;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One durable consumer of a {@link LocalStream}, shared by every handle opened under its name.
 *
 * <p><b>State.</b> {@code delivered}: the last stream sequence read for it; {@code unacked}: the
 * sequences delivered (or due for redelivery) and not acknowledged, with their delivery counts. The
 * ack floor is the lowest unacked sequence minus one. That state is bounded by the in-flight window
 * and saved by {@link ConsumerStateFile} when the consumer is created (before {@link #open} returns)
 * and then every {@link LocalStorage#STATE_SAVE_MILLIS} ms; after a
 * restart the unacked messages are delivered again, in stream order, then reading goes on after
 * {@code delivered} (or after the log's last record, when the log lost records past it).
 *
 * <p>Thread-safe: everything under {@link #lock}.
 */
final class ConsumerState {
    private static final Logger LOG = LoggerFactory.getLogger(ConsumerState.class);

    private final LocalStream stream;
    private final ConsumerStateFile file;
    private final ConsumerConfig config;
    private final SubjectPattern filter;
    private final boolean filtered;
    private final ReentrantLock lock = new ReentrantLock();
    /** Serializes saves, so an older snapshot never replaces a newer one. */
    private final ReentrantLock saveLock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    /** Sequence to deliveries so far, for every unacked sequence. */
    private final TreeMap<Long, Integer> unacked = new TreeMap<>();
    /** Out with a handle: sequence to its delivery. */
    private final Map<Long, Delivery> out = new HashMap<>();
    /** Waiting for redelivery, by due time, then sequence. */
    private final PriorityQueue<Delivery> due = new PriorityQueue<>(Delivery.BY_DUE_TIME);
    /** Out, by ack deadline, then sequence; stale entries (acked, nak'ed) are skipped when polled. */
    private final PriorityQueue<Delivery> deadlines = new PriorityQueue<>(Delivery.BY_DUE_TIME);
    private LogReader reader;
    private long delivered;
    private int waiting;
    private volatile int waitingHint;
    private long redeliveredCount;
    private long deliveredCount;
    private long version;
    private long savedVersion;
    private boolean closed;

    /** A sequence out with a handle or due again. */
    private static final class Delivery {
        /**
         * Due time, then stream order: what a restart puts back is all due at once, and a
         * PriorityQueue returns equal keys in no particular order, so without the sequence an
         * ordered subscription got its redeliveries shuffled (found by DurableCrashTest).
         */
        static final Comparator<Delivery> BY_DUE_TIME = (a, b) -> a.dueNanos != b.dueNanos
                ? Long.compare(a.dueNanos, b.dueNanos) : Long.compare(a.sequence, b.sequence);

        final long sequence;
        int deliveries;
        long dueNanos;
        Object owner;

        Delivery(long sequence, int deliveries) {
            this.sequence = sequence;
            this.deliveries = deliveries;
        }
    }

    private ConsumerState(LocalStream stream, ConsumerStateFile file, ConsumerConfig config) {
        this.stream = stream;
        this.file = file;
        this.config = config;
        this.filter = SubjectPattern.parse(config.filterSubject());
        this.filtered = !stream.config().subjects().equals(java.util.List.of(config.filterSubject()))
                && !config.filterSubject().equals(">");
    }

    static ConsumerState open(LocalStream stream, Path path, ConsumerConfig config, DurableFiles files) {
        ConsumerStateFile file = new ConsumerStateFile(path, files);
        ConsumerState state = new ConsumerState(stream, file, config);
        try {
            ConsumerStateFile.Saved saved = file.load();
            if (saved != null) {
                if (!saved.filter().equals(config.filterSubject())) {
                    throw new IllegalArgumentException("durable consumer '" + config.durableName() + "' of stream '"
                            + stream.config().name() + "' filters '" + saved.filter() + "', not '"
                            + config.filterSubject() + "'");
                }
                state.resume(saved);
                return state;
            }
            state.start(config.start());
        } catch (ConsumerStateFile.DamagedException e) {
            StartPosition fallback = noSkipStart(config.start());
            file.repaired(e.getMessage() + "; no whole copy left: durable consumer '" + config.durableName()
                    + "' starts over from " + fallback + " (messages it had acknowledged are delivered again)");
            state.start(fallback);
        } catch (IOException e) {
            throw new StorageException("cannot read consumer state " + path + ": " + e + " (check that it is readable"
                    + " by this user; deleting it makes the consumer start over from its configured start)", e);
        }
        state.saveCreated();
        return state;
    }

    /**
     * Saves a consumer just created (or started over) before {@link #open} returns, so that its
     * creation is durable when {@code StoredStream.consumer} returns. Otherwise a power cut within
     * the first save interval loses it: a {@code NEW} consumer is then created again at a later end
     * of the stream, skipping what was stored in between, and a work queue, seeing no state file,
     * deletes records that consumer never got (found by MetadataPowerCutTest).
     *
     * @throws StorageException naming the file when it cannot be written
     */
    private void saveCreated() {
        saveLock.lock();
        try {
            file.save(config.filterSubject(), delivered, new TreeMap<>(unacked));
            savedVersion = version;
        } catch (IOException e) {
            throw new StorageException("cannot create durable consumer '" + config.durableName() + "' of stream '"
                    + stream.config().name() + "': writing " + file.path() + " failed: " + e
                    + " (check that the directory is writable by this user and the disk not full)", e);
        } finally {
            saveLock.unlock();
        }
    }

    /**
     * Where a consumer whose saved state was lost starts so that it skips nothing it may not have
     * handled (at least once): its configured sequence or time, below which it never delivered;
     * otherwise the stream's first record (a NEW or LAST_PER_SUBJECT consumer's start is relative to
     * a moment no longer known).
     */
    static StartPosition noSkipStart(StartPosition configured) {
        return switch (configured.kind()) {
            case SEQUENCE, TIME, ALL -> configured;
            default -> StartPosition.all();
        };
    }

    private void resume(ConsumerStateFile.Saved saved) {
        // A consumer reads records before their fsync, and its state is forced on its own clock: after
        // a power loss (or under OS / INTERVAL) the saved position may be past what the log kept. The
        // log gives those sequences to the next appends (maybe made already, before this consumer was
        // opened); reading on after the saved position would skip them for good, so resume at the end
        // the log was recovered to and forget deliveries of records that are gone.
        long last = stream.recoveredLastSequence();
        if (saved.delivered() > last) {
            LOG.warn("durable consumer '{}' of stream '{}': saved position {} is past the log's last sequence {} "
                    + "(records lost in a crash): resuming at {}", config.durableName(), stream.config().name(),
                    saved.delivered(), last, last);
            version++;
        }
        delivered = Math.min(saved.delivered(), last);
        long now = System.nanoTime();
        for (Map.Entry<Long, Integer> entry : saved.unacked().entrySet()) {
            if (entry.getKey() > last) {
                continue;
            }
            Delivery d = new Delivery(entry.getKey(), entry.getValue());
            d.dueNanos = now;
            unacked.put(d.sequence, d.deliveries);
            due.add(d);
        }
        reader = stream.reader(delivered + 1);
    }

    private void start(StartPosition start) {
        long last = stream.log().lastSequence();
        switch (start.kind()) {
            case ALL -> delivered = stream.log().firstSequence() - 1;
            case NEW -> delivered = last;
            case SEQUENCE -> delivered = Math.max(start.sequence(), stream.log().firstSequence()) - 1;
            case TIME -> {
                LogRecord first = stream.log().readerFromTime(start.time()).next();
                delivered = first == null ? last : first.sequence() - 1;
            }
            case LAST_PER_SUBJECT -> {
                Map<String, Long> latest = new LinkedHashMap<>();
                LogReader scan = stream.reader(1);
                for (LogRecord r = scan.next(); r != null && r.sequence() <= last; r = scan.next()) {
                    String subject = r.subject();
                    if (!filtered || filter.matches(SubjectPattern.verbatimTokens(subject))) {
                        latest.remove(subject);
                        latest.put(subject, r.sequence());
                    }
                }
                long now = System.nanoTime();
                latest.values().stream().sorted().forEach(sequence -> {
                    Delivery d = new Delivery(sequence, 0);
                    d.dueNanos = now;
                    unacked.put(sequence, 0);
                    due.add(d);
                });
                delivered = last;
            }
            default -> throw new IllegalStateException("unknown start " + start);
        }
        reader = stream.reader(delivered + 1);
    }

    void checkFilter(ConsumerConfig other) {
        if (!other.filterSubject().equals(config.filterSubject())) {
            throw new IllegalArgumentException("durable consumer '" + config.durableName() + "' of stream '"
                    + stream.config().name() + "' filters '" + config.filterSubject() + "', not '"
                    + other.filterSubject() + "'");
        }
    }

    ConsumerConfig config() {
        return config;
    }

    List<StoredMessage> fetch(LocalConsumer owner, int max, long waitNanos) throws InterruptedException {
        long deadline = System.nanoTime() + waitNanos;
        lock.lock();
        try {
            while (true) {
                if (closed) {
                    throw new IllegalStateException("consumer closed: " + config.durableName());
                }
                if (owner.isClosed()) {
                    // Closed while this fetch waited (release signalled): nothing more to this handle.
                    throw new IllegalStateException("consumer handle closed: " + config.durableName());
                }
                List<StoredMessage> batch = collect(owner, max);
                if (!batch.isEmpty()) {
                    return batch;
                }
                long now = System.nanoTime();
                long left = deadline - now;
                if (left <= 0) {
                    return batch;
                }
                if (!due.isEmpty()) {
                    left = Math.min(left, Math.max(1, due.peek().dueNanos - now));
                }
                if (!deadlines.isEmpty()) {
                    left = Math.min(left, Math.max(1, deadlines.peek().dueNanos - now));
                }
                waiting++;
                waitingHint = waiting;
                try {
                    changed.awaitNanos(left);
                } finally {
                    waiting--;
                    waitingHint = waiting;
                }
            }
        } finally {
            lock.unlock();
        }
    }

    private List<StoredMessage> collect(Object owner, int max) {
        List<StoredMessage> batch = new ArrayList<>(Math.min(max, 64));
        long now = System.nanoTime();
        long ackWait = config.ackWait().toNanos();
        while (!deadlines.isEmpty() && deadlines.peek().dueNanos <= now) {
            Delivery d = deadlines.poll();
            if (out.get(d.sequence) == d && d.owner != null) {
                out.remove(d.sequence);
                d.owner = null;
                due.add(d); // its ack wait passed: due again now
            }
        }
        while (batch.size() < max && out.size() < config.maxAckPending() && !due.isEmpty()
                && due.peek().dueNanos <= now) {
            Delivery d = due.poll();
            if (d.deliveries >= config.maxDeliver()) {
                // Given up: JetStream's max_deliver. Said, since no handler may have seen the last try.
                LOG.warn("stream '{}', consumer '{}': sequence {} given up after {} deliveries (maxDeliver)",
                        stream.config().name(), config.durableName(), d.sequence, d.deliveries);
                settle(d.sequence);
                continue;
            }
            StoredMessage message = stream.read(d.sequence, d.deliveries + 1);
            if (message == null) {
                settle(d.sequence); // retention deleted it
                continue;
            }
            if (d.deliveries > 0) {
                redeliveredCount++;
            }
            handOut(d, owner, now + ackWait);
            batch.add(message);
        }
        while (batch.size() < max && out.size() < config.maxAckPending()) {
            LogRecord record = reader.next();
            if (record == null) {
                break;
            }
            delivered = record.sequence();
            version++;
            if (filtered && !filter.matches(SubjectPattern.verbatimTokens(record.subject()))
                    || stream.isSuperseded(record.sequence())) {
                continue;
            }
            Delivery d = new Delivery(record.sequence(), 0);
            handOut(d, owner, now + ackWait); // puts it in unacked
            batch.add(stream.toMessage(record, 1));
        }
        return batch;
    }

    private void handOut(Delivery d, Object owner, long ackDeadline) {
        d.deliveries++;
        d.owner = owner;
        d.dueNanos = ackDeadline;
        unacked.put(d.sequence, d.deliveries);
        out.put(d.sequence, d);
        deadlines.add(d);
        deliveredCount++;
        version++;
    }

    private void settle(long sequence) {
        unacked.remove(sequence);
        version++;
    }

    void ack(StoredMessage message) {
        lock.lock();
        try {
            if (out.remove(message.sequence()) != null || unacked.containsKey(message.sequence())) {
                removeDue(message.sequence());
                settle(message.sequence());
                pruneDeadlines();
                changed.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Drops the settled entries at the head of {@link #deadlines} (as {@link #collect} would once
     * they are due): acknowledged in order, they would otherwise stay for a whole ack wait, holding
     * rate x ack wait deliveries in memory.
     */
    private void pruneDeadlines() {
        Delivery head = deadlines.peek();
        while (head != null && (head.owner == null || out.get(head.sequence) != head)) {
            deadlines.poll();
            head = deadlines.peek();
        }
    }

    void nak(StoredMessage message, long delayNanos) {
        lock.lock();
        try {
            Delivery d = out.remove(message.sequence());
            if (d != null) {
                d.owner = null;
                d.dueNanos = System.nanoTime() + delayNanos;
                due.add(d);
                changed.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    private void removeDue(long sequence) {
        due.removeIf(d -> d.sequence == sequence);
    }

    /** Puts what {@code owner} holds back for delivery now (a closed handle). */
    void release(Object owner) {
        lock.lock();
        try {
            long now = System.nanoTime();
            out.values().removeIf(d -> {
                if (d.owner != owner) {
                    return false;
                }
                d.owner = null;
                d.dueNanos = now;
                due.add(d);
                return true;
            });
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** An append: wakes a fetch waiting for messages. Cheap when none waits. */
    void wake() {
        if (waitingHint > 0) {
            lock.lock();
            try {
                changed.signalAll();
            } finally {
                lock.unlock();
            }
        }
    }

    ConsumerStats stats() {
        lock.lock();
        try {
            long floor = unacked.isEmpty() ? delivered : unacked.firstKey() - 1;
            long pending = Math.max(0, stream.log().lastSequence() - delivered);
            return new ConsumerStats(stream.config().name(), config.durableName(), floor, pending, unacked.size(),
                    redeliveredCount, deliveredCount);
        } finally {
            lock.unlock();
        }
    }

    /** @return the entries of the ack-deadline queue, settled ones not yet dropped included (tests) */
    int deadlinesHeld() {
        lock.lock();
        try {
            return deadlines.size();
        } finally {
            lock.unlock();
        }
    }

    void saveIfChanged() {
        saveLock.lock();
        try {
            saveSnapshot();
        } finally {
            saveLock.unlock();
        }
    }

    private void saveSnapshot() {
        long v;
        long d;
        Map<Long, Integer> copy;
        lock.lock();
        try {
            if (version == savedVersion) {
                return;
            }
            v = version;
            d = delivered;
            copy = new TreeMap<>(unacked);
        } finally {
            lock.unlock();
        }
        try {
            file.save(config.filterSubject(), d, copy);
            lock.lock();
            try {
                savedVersion = Math.max(savedVersion, v);
            } finally {
                lock.unlock();
            }
        } catch (IOException e) {
            LOG.error("saving consumer {} failed: {}",
                    config.durableName(), e.toString());
        }
    }

    void close() {
        saveIfChanged();
        lock.lock();
        try {
            closed = true;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

}
