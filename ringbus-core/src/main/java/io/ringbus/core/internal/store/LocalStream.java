package io.ringbus.core.internal.store;

import io.ringbus.core.ConsumerConfig;
import io.ringbus.core.FsyncPolicy;
import io.ringbus.core.Headers;
import io.ringbus.core.PublishAck;
import io.ringbus.core.PublishRejectedException;
import io.ringbus.core.StorageException;
import io.ringbus.core.StoredMessage;
import io.ringbus.core.StoredStream;
import io.ringbus.core.StreamConfig;
import io.ringbus.core.StreamConsumer;
import io.ringbus.core.StreamInfo;
import io.ringbus.core.StreamReader;
import io.ringbus.core.internal.SubjectPattern;
import io.ringbus.core.internal.log.DurableFiles;
import io.ringbus.core.internal.log.LogConfig;
import io.ringbus.core.internal.log.LogReader;
import io.ringbus.core.internal.log.LogRecord;
import io.ringbus.core.internal.log.LogStats;
import io.ringbus.core.internal.log.SegmentLog;

import io.ringbus.core.wire.HeaderNames;
import io.ringbus.core.wire.NatsHeaderBlock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One stream of the {@link LocalStorage}: a {@link SegmentLog} under {@code <dir>/log}, the pattern
 * it stores in {@code <dir>/subjects}, and its consumers' positions under {@code <dir>/consumers}.
 *
 * <p><b>Acknowledgements.</b> An append is written under the append lock and queued with its
 * future in sequence order; the log's flusher tells how far the log is durable and the futures up
 * to there complete (on the flusher thread), releasing their bytes from the pending budget.
 *
 * <p>Thread-safe.
 */
final class LocalStream implements StoredStream {
    private static final Logger LOG = LoggerFactory.getLogger(LocalStream.class);
    /** JetStream's {@code JSInsufficientResourcesErr}. */
    static final int INSUFFICIENT_RESOURCES = 10023;
    /** See {@link StreamLogConfig#SEGMENTS_PER_LIMIT}. */
    static final int SEGMENTS_PER_LIMIT = StreamLogConfig.SEGMENTS_PER_LIMIT;

    private final Path dir;
    private final StreamConfig config;
    /** The patterns it stores, parsed. */
    private final List<SubjectPattern> patterns;
    private final SegmentLog log;
    private final FsyncPolicy policy;
    private final DurableFiles files;
    private final ReentrantLock appendLock = new ReentrantLock();
    private final Duplicates duplicates;
    /** Per-key outbox ids ({@link StreamConfig#keyDedupBytes()}), or null when off. */
    private final KeyedIdsCheckpoint keyed;
    /** Appended, not yet durable: their acknowledgements and the bytes they hold. */
    private final PendingAcks pending;
    /** {@link #checkOpen}, made once: an append that waits for room passes it without allocating. */
    private final Runnable openCheck = this::checkOpen;
    private final Map<String, ConsumerState> consumers = new ConcurrentHashMap<>();
    /** Called after each append ({@link #onAppend}). */
    private final List<Runnable> appendListeners = new CopyOnWriteArrayList<>();
    /** The per-subject limit, or null when the stream has none. */
    final SubjectHistory history;
    /** Messages removed on request (purge, delete), durably. */
    final Removals removals;
    /** The newest sequence of each subject; built on first use (under the append lock), then kept. */
    private final SubjectLasts lasts = new SubjectLasts();
    /** Whether {@link #lasts} is built; written under the append lock. */
    private volatile boolean lastsBuilt;
    /** The log's last sequence as recovered at open, before this process appended. */
    private final long recoveredLastSequence;
    private volatile IOException failure;
    /** The store's bytes, against its limit. */
    private final StoreUsage usage;
    /** What {@link AppendRules} reads of this stream, under the append lock. */
    private final StreamRulesState state = new StreamRulesState(this);
    /** The last subject found to match the pattern (a benign race: any value checked is valid). */
    private volatile String lastChecked;
    private volatile boolean closed;
    /** Bytes read from the log's files to open the stream (log recovery, message ids, per-subject history). */
    private long openReadBytes;

    private LocalStream(Path dir, StreamConfig config, SegmentLog log, FsyncPolicy policy, long maxPendingBytes,
                        DurableFiles files, Removals removals, StoreUsage usage, KeyedIdsCheckpoint keyed) {
        this.dir = dir;
        this.keyed = keyed;
        this.usage = usage;
        this.removals = removals;
        this.files = files;
        this.config = config;
        this.patterns = config.subjects().stream().map(SubjectPattern::parse).toList();
        this.log = log;
        this.policy = policy;
        this.pending = new PendingAcks(config.name(), maxPendingBytes);
        this.duplicates = new Duplicates(config.duplicateWindow().toMillis(), config.duplicateWindowBytes());
        this.history = config.maxMessagesPerSubject() > 0 ? new SubjectHistory(config.maxMessagesPerSubject()) : null;
        this.recoveredLastSequence = log.lastSequence();
        log.onDurable(this::durable);
    }

    static LocalStream open(Path dir, StreamConfig config, FsyncPolicy policy, long intervalMillis,
                            long maxPendingBytes, long segmentBytes, DurableFiles files, StoreUsage usage) {
        long started = System.nanoTime();
        try {
            files.createDirectories(dir.resolve("consumers"));
            StreamSubjectsFile.check(dir.resolve(StreamSubjectsFile.NAME), config, files);
        } catch (IOException e) {
            throw new StorageException("cannot open stream '" + config.name() + "' in " + dir + ": " + e
                    + " (check that the directory and its files are readable and writable by this user)", e);
        }
        LogConfig logConfig = StreamLogConfig.of(config, policy, intervalMillis, segmentBytes);
        KeyedIdsCheckpoint keyed = config.keyDedupBytes() == 0 ? null : new KeyedIdsCheckpoint(config.name(),
                config.keyDedupBytes(), new KeyedIdsFile(dir.resolve(KeyedIdsFile.NAME), files));
        SegmentLog log;
        try {
            log = SegmentLog.open(dir.resolve("log"), logConfig, files, keyed);
        } catch (UncheckedIOException e) {
            throw new StorageException("cannot open stream '" + config.name() + "': " + e.getMessage(), e);
        }
        Removals removals;
        try {
            files.forceStreamNames(dir);
            removals = Removals.open(dir, files);
        } catch (IOException e) {
            log.close();
            throw new StorageException("cannot open stream '" + config.name() + "' in " + dir + ": " + e, e);
        }
        LocalStream stream = new LocalStream(dir, config, log, policy, maxPendingBytes, files, removals, usage, keyed);
        long ids = stream.duplicates.rebuild(log, config.duplicateWindow().toMillis())
                + (keyed == null ? 0 : keyed.openReadBytes());
        long history = stream.history == null ? 0 : stream.history.rebuild(log);
        LogStats stats = log.stats();
        stream.openReadBytes = stats.openReadBytes() + ids + history;
        LOG.info("stream '{}' opened in {} ms: {} records, {} bytes in {} segments ({} scanned); read {} bytes (log"
                        + " recovery {}, message ids {}, per-subject history {})", config.name(),
                (System.nanoTime() - started) / 1_000_000, stats.records(), stats.bytes(), stats.segments(),
                stats.openScannedSegments(), stream.openReadBytes, stats.openReadBytes(), ids, history);
        return stream;
    }

    void checkSubjects(StreamConfig other) {
        if (!new HashSet<>(other.subjects()).equals(new HashSet<>(config.subjects()))) {
            throw new IllegalArgumentException("stream '" + config.name() + "' stores '"
                    + String.join(", ", config.subjects()) + "', not '" + String.join(", ", other.subjects()) + "'");
        }
    }

    @Override
    public StreamConfig config() {
        return config;
    }

    SegmentLog log() {
        return log;
    }

    /**
     * @return bytes read from the log's files to open the stream: the log's recovery
     *         ({@link LogStats#openReadBytes()}), the message ids of the duplicate window, and for a
     *         stream with a per-subject limit the whole log
     */
    long openReadBytes() {
        return openReadBytes;
    }

    /** @return the log's last sequence when it was opened: what a crash left, before any append of this process */
    long recoveredLastSequence() {
        return recoveredLastSequence;
    }

    @Override
    public CompletableFuture<PublishAck> append(String subject, Headers headers, byte[] payload, String msgId) {
        return append(subject, headers, payload, msgId, true);
    }

    @Override
    public CompletableFuture<PublishAck> tryAppend(String subject, Headers headers, byte[] payload, String msgId) {
        return append(subject, headers, payload, msgId, false);
    }

    private CompletableFuture<PublishAck> append(String subject, Headers headers, byte[] payload, String msgId,
                                                 boolean wait) {
        if (!subject.equals(lastChecked)) {
            checkSubject(subject);
        }
        byte[] body = payload == null ? new byte[0] : payload;
        Headers h = headers == null ? Headers.EMPTY : headers;
        if (h.natsBlock() != null && h.natsBlock().length > PublishRejectedException.MAX_HEADER_BYTES) {
            // Refused before the block is parsed: a client must not make the server parse 64k+ of header.
            throw PublishRejectedException.headersTooLarge();
        }
        if (msgId != null && !msgId.equals(h.first(HeaderNames.MSG_ID))) {
            Headers.Builder with = Headers.builder();
            for (String name : h.names()) {
                for (String value : h.all(name)) {
                    with.add(name, value);
                }
            }
            h = with.add(HeaderNames.MSG_ID, msgId).build();
        }
        // A block as received is stored as it is (nats-server keeps it byte for byte too), unparsed.
        byte[] headerBlock = h.natsBlock() != null ? h.natsBlock() : h.isEmpty() ? null : h.toNatsBlock();
        if (headerBlock != null && headerBlock.length > PublishRejectedException.MAX_HEADER_BYTES) {
            // nats-server's JetStream refuses the same (the ids it remembers are bounded by it too).
            throw PublishRejectedException.headersTooLarge();
        }
        AppendRules.Expectations expected = AppendRules.read(h);
        KeyedIds.Id keyedId = keyed == null || headerBlock == null ? null : KeyedIds.parse(h);
        int size = body.length + (headerBlock == null ? 0 : headerBlock.length);
        int bytes = size + subject.length();
        if (usage.exceeded()) {
            // nats-server's JSInsufficientResourcesErr: the store holds more than its limit.
            return CompletableFuture.failedFuture(new PublishRejectedException(503, INSUFFICIENT_RESOURCES,
                    "insufficient resources", config.name()));
        }
        if (!pending.reserve(bytes, wait, openCheck)) {
            return null;
        }
        CompletableFuture<PublishAck> future = new CompletableFuture<>();
        long sequence;
        appendLock.lock();
        try {
            checkOpen();
            IOException failed = failure;
            if (failed != null) {
                pending.release(bytes);
                return CompletableFuture.failedFuture(new StorageException("stream '" + config.name()
                        + "' stores nothing more after a failed fsync: " + failed, failed));
            }
            if (msgId != null) {
                long earlier = duplicates.sequenceOf(msgId, System.currentTimeMillis());
                if (earlier > 0) {
                    pending.release(bytes);
                    return CompletableFuture.completedFuture(new PublishAck(config.name(), earlier, true));
                }
            }
            long keyedEarlier = keyedId == null ? 0 : keyed.ids().duplicateOf(keyedId);
            if (keyedEarlier > 0) { // a redelivered outbox row, acknowledged as a Nats-Msg-Id duplicate is
                pending.release(bytes);
                return CompletableFuture.completedFuture(new PublishAck(config.name(), keyedEarlier, true));
            }
            PublishRejectedException refused = AppendRules.refusal(config, state, subject, size, expected);
            if (refused != null) {
                pending.release(bytes);
                return CompletableFuture.failedFuture(refused);
            }
            try {
                sequence = log.append(subject, headerBlock, body);
            } catch (UncheckedIOException e) {
                pending.release(bytes);
                return CompletableFuture.failedFuture(new StorageException("stream '" + config.name()
                        + "': append to '" + subject + "' failed: " + e.getMessage(), e));
            } catch (RuntimeException e) {
                pending.release(bytes);
                throw e;
            }
            if (msgId != null) {
                duplicates.remember(msgId, sequence, System.currentTimeMillis());
            }
            if (keyedId != null) {
                keyed.ids().remember(keyedId, sequence);
            }
            if (history != null) {
                history.appended(subject, sequence);
            }
            if (lastsBuilt) {
                lasts.appended(subject, sequence);
            }
            state.appended(msgId);
            usage.appended(bytes);
            pending.add(sequence, bytes, future);
            if (expected.rollup() != null) {
                RemovalScan.rollUp(this, subject, sequence, expected.rollsUpSubject());
            }
        } finally {
            appendLock.unlock();
        }
        // ALWAYS acknowledges after the fsync that covers the record (group commit); INTERVAL and OS
        // once it is written (as nats-server's sync_interval and Kafka's flush.ms): the flusher forces
        // INTERVAL's log every interval, so a power loss loses at most that window.
        log.requestDurable(sequence);
        complete(policy == FsyncPolicy.ALWAYS ? log.durableSequence() : sequence, null);
        for (ConsumerState consumer : consumers.values()) {
            consumer.wake();
        }
        for (Runnable listener : appendListeners) {
            listener.run();
        }
        return future;
    }

    @Override
    public boolean onAppend(Runnable listener) {
        appendListeners.add(listener);
        return true;
    }

    /** Checks a subject against the stream's pattern, splitting it; remembered, as a publisher repeats its subject. */
    private void checkSubject(String subject) {
        String[] tokens = SubjectPattern.literalTokens(subject, "subject");
        if (patterns.stream().noneMatch(p -> p.matches(tokens))) {
            throw new IllegalArgumentException("subject '" + subject + "' is not stored by stream '" + config.name()
                    + "' (" + String.join(", ", config.subjects()) + ")");
        }
        lastChecked = subject;
    }

    /** The log's flusher: everything up to {@code durable} is on the disk (or an fsync failed). */
    private void durable(long durable, IOException error) {
        if (error != null) {
            failure = error;
        }
        complete(durable, error);
    }

    private void complete(long durable, IOException error) {
        pending.complete(durable, error);
    }

    @Override
    public StreamConsumer consumer(ConsumerConfig consumerConfig) {
        checkOpen();
        ConsumerState state = consumers.computeIfAbsent(consumerConfig.durableName(),
                name -> ConsumerState.open(this, dir.resolve("consumers").resolve(name + ".state"), consumerConfig,
                        files));
        state.checkFilter(consumerConfig);
        return new LocalConsumer(state);
    }

    /**
     * @return whether {@code sequence} is gone though its segment is still on disk: superseded by the
     *         per-subject limit, or removed on request (purge, delete); readers skip it
     */
    boolean isSuperseded(long sequence) {
        return history != null && history.isSuperseded(sequence) || removals.isRemoved(sequence);
    }

    /** @return the record at {@code sequence} as a delivery, or null if retention deleted it */
    StoredMessage read(long sequence, int deliveries) {
        if (isSuperseded(sequence)) {
            return null;
        }
        LogRecord record = log.reader(sequence).next();
        return record == null || record.sequence() != sequence ? null : toMessage(record, deliveries);
    }

    @Override
    public StoredMessage read(long sequence) {
        checkOpen();
        if (sequence < 1 || sequence > log.lastSequence()) {
            return null;
        }
        try {
            return read(sequence, 1);
        } catch (UncheckedIOException e) {
            throw new StorageException("reading sequence " + sequence + " of stream '" + config.name() + "' failed: "
                    + e.getMessage(), e);
        }
    }

    @Override
    public StreamReader newReader() {
        checkOpen();
        return new LocalStreamReader(this);
    }

    @Override
    public StoredMessage lastBySubject(String subjectPattern) {
        checkOpen();
        return SubjectReads.last(this, SubjectPattern.parse(subjectPattern));
    }

    @Override
    public StoredMessage nextBySubject(String subjectPattern, long fromSequence) {
        checkOpen();
        return SubjectReads.next(this, SubjectPattern.parse(subjectPattern), fromSequence);
    }

    @Override
    public long lastSequenceOf(String subject) {
        checkOpen();
        return lasts().lastOf(SubjectPattern.parse(subject), true, log.firstSequence(), this::isSuperseded);
    }

    @Override
    public long countMatching(String pattern, long from, long to) {
        checkOpen();
        return RemovalScan.count(this, SubjectPattern.parse(pattern), from, Math.min(to, log.lastSequence()));
    }

    /** @return the index of subjects, built (one read of the log) the first time it is needed */
    SubjectLasts lasts() {
        if (!lastsBuilt) {
            lasts.build(appendLock, log, this::isSuperseded);
            lastsBuilt = true;
        }
        return lasts;
    }

    @Override
    public boolean delete(long sequence) {
        checkOpen();
        appendLock.lock();
        try {
            checkOpen();
            return RemovalScan.delete(this, sequence);
        } catch (IOException | UncheckedIOException e) {
            throw new StorageException("deleting sequence " + sequence + " of stream '" + config.name()
                    + "' failed: " + e, e);
        } finally {
            appendLock.unlock();
        }
    }

    @Override
    public long purge(String subjectPattern, long belowSequence, long keep) {
        checkOpen();
        if (belowSequence > 0 && keep > 0) {
            throw new IllegalArgumentException("purge takes a sequence or a number to keep, not both: seq="
                    + belowSequence + ", keep=" + keep);
        }
        SubjectPattern filter = subjectPattern == null ? null : SubjectPattern.parse(subjectPattern);
        appendLock.lock();
        try {
            checkOpen();
            boolean everything = filter == null || patterns.size() == 1 && filter.equals(patterns.getFirst());
            return RemovalScan.purge(this, everything ? null : filter, belowSequence, keep);
        } catch (IOException | UncheckedIOException e) {
            throw new StorageException("purging stream '" + config.name() + "' failed: " + e, e);
        } finally {
            appendLock.unlock();
        }
    }

    /** After a removal, under the append lock: the index of subjects read again when it is built. */
    void removed(String subject, long sequence) {
        if (lastsBuilt && (subject == null || lasts.isLast(subject, sequence))) {
            lasts.rebuild(log, this::isSuperseded);
        }
    }

    /**
     * Waits until the log holds {@code sequence} durably: a removal written before the record it
     * removes would, after a power cut that loses the record, hide a new record given its sequence.
     */
    void durableThrough(long sequence) {
        if (policy != FsyncPolicy.ALWAYS || log.durableSequence() < sequence) {
            log.requestDurable(sequence);
            log.awaitDurable(sequence);
        }
    }

    /** @return messages held in {@code [from, to]} (neither removed nor superseded) */
    long held(long from, long to) {
        return to < from ? 0 : to - from + 1 - RemovalScan.gone(removals, history, from, to);
    }

    StoredMessage toMessage(LogRecord record, int deliveries) {
        Headers headers = record.headersLength() == 0 ? null : NatsHeaderBlock.wrap(record.copyHeaders());
        return new StoredMessage(config.name(), record.sequence(), record.timestampMillis(), deliveries,
                record.subject(), headers, record.copyPayload(), null);
    }

    LogReader reader(long fromSequence) {
        return log.reader(fromSequence);
    }

    @Override
    public StreamInfo info() {
        LogStats stats = log.stats();
        long ids;
        long idBytes;
        long forgotten;
        StreamInfo.KeyedIds keyedIds;
        appendLock.lock(); // the ids change under it
        try {
            ids = duplicates.size();
            idBytes = duplicates.bytes();
            forgotten = duplicates.forgotten();
            keyedIds = keyed == null ? StreamInfo.KeyedIds.NONE : keyed.ids().figures();
        } finally {
            appendLock.unlock();
        }
        long last = stats.lastSequence();
        long first = firstHeld(last);
        long messages = held(first, last);
        long subjects = lastsBuilt ? lasts.subjects(first, this::isSuperseded) : -1;
        return new StreamInfo(config.name(), messages, stats.bytes(), first, last, ids, idBytes, forgotten,
                last < first ? 0 : last - first + 1 - messages, subjects, keyedIds);
    }

    /** @return the first sequence held, {@code last + 1} when none is */
    long firstHeld(long last) {
        long first = Math.max(log.firstSequence(), Math.min(removals.floor(), last + 1));
        while (first <= last && isSuperseded(first)) {
            first++;
        }
        return first;
    }

    /** @return subjects that hold a message (builds the index of subjects on first use) */
    @Override
    public long subjectCount() {
        checkOpen();
        return lasts().subjects(log.firstSequence(), this::isSuperseded);
    }

    void saveConsumers() {
        if (history != null) {
            history.retainFrom(log.firstSequence());
        }
        if (lastsBuilt) {
            lasts.retainFrom(log.firstSequence());
        }
        try {
            removals.retainFrom(log.firstSequence());
        } catch (IOException e) { // kept as it is: a larger file, retried at the next save
        }
        for (ConsumerState consumer : consumers.values()) {
            consumer.saveIfChanged();
        }
        if (config.retention() == StreamConfig.Retention.WORK_QUEUE) {
            compactConsumed();
        }
    }

    /**
     * A work queue: deletes the segments every consumer acknowledged. Only when every consumer that
     * has a state file is open here (one not opened yet may still need the records).
     */
    private void compactConsumed() {
        if (consumers.isEmpty()) {
            return;
        }
        try (var files = Files.list(dir.resolve("consumers"))) {
            boolean allOpen = files.map(f -> f.getFileName().toString()).filter(n -> n.endsWith(".state"))
                    .allMatch(n -> consumers.containsKey(n.substring(0, n.length() - ".state".length())));
            if (!allOpen) {
                return;
            }
        } catch (IOException e) {
            return; // try again at the next save
        }
        long floor = Long.MAX_VALUE;
        for (ConsumerState consumer : consumers.values()) {
            floor = Math.min(floor, consumer.stats().ackFloor());
        }
        log.compactThrough(floor, false);
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("stream closed: " + config.name());
        }
    }

    void close() {
        appendLock.lock();
        try {
            closed = true;
        } finally {
            appendLock.unlock();
        }
        for (ConsumerState consumer : consumers.values()) {
            consumer.close();
        }
        log.close();
        complete(policy == FsyncPolicy.OS ? log.lastSequence() : log.durableSequence(),
                failure != null ? failure : new IOException("stream closed"));
    }
}
