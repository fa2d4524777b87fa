package io.ringbus.core;

import io.ringbus.core.internal.BrokerConfig;
import io.ringbus.core.internal.RingBroker;

import java.time.Duration;
import java.util.Objects;

/**
 * Configures and builds a {@link Broker}. Not thread-safe; {@link #build()} may be called more
 * than once, each call building an independent broker.
 *
 * <p>Every setter validates its argument at once and names the bad value in the exception.
 */
public final class BrokerBuilder {
    /** Largest accepted ring size. */
    public static final int MAX_RING_SIZE = 1 << 30;
    /** Largest accepted number of event loops. */
    public static final int MAX_EVENT_LOOPS = 256;
    /** Largest accepted {@link #meterPatternLimit(int)}. */
    public static final int MAX_METER_PATTERN_LIMIT = 100_000;
    /** Largest accepted {@link #handlerLatencySampling(int)}. */
    public static final int MAX_HANDLER_LATENCY_SAMPLING = 1 << 20;
    /** Largest accepted worker pool. */
    public static final int MAX_WORKER_POOL_SIZE = 32_768;
    /** Event loops unless {@link #eventLoops(int)} says otherwise. */
    public static final int DEFAULT_EVENT_LOOPS = 1;
    /** Worker threads unless {@link #workerPoolSize(int)} says otherwise. */
    public static final int DEFAULT_WORKER_POOL_SIZE = 16;
    /** How long {@link Broker#close()} drains unless {@link #shutdownTimeout(Duration)} says otherwise. */
    public static final Duration DEFAULT_SHUTDOWN_TIMEOUT = Duration.ofSeconds(10);

    private String name = "ringbus";
    private int ringSize = 16_384;
    private WaitStrategy waitStrategy = WaitStrategy.BLOCKING;
    private int eventLoops = DEFAULT_EVENT_LOOPS;
    private int workerPoolSize = DEFAULT_WORKER_POOL_SIZE;
    private Scope defaultScope = Scope.PRIVATE;
    private ErrorHandler errorHandler;
    private BlockedHandlerListener blockedHandlerListener;
    private Duration maxEventLoopExecuteTime = Duration.ofSeconds(2);
    private Duration maxWorkerExecuteTime = Duration.ofSeconds(60);
    private Duration maxVirtualExecuteTime = Duration.ofSeconds(60);
    private Duration watchdogInterval = Duration.ofSeconds(1);
    private Duration shutdownTimeout = DEFAULT_SHUTDOWN_TIMEOUT;
    private int routeCacheSize = 65_536;
    private Object meterRegistry;
    private int meterPatternLimit = 100;
    private int handlerLatencySampling = 1;
    private long maxInFlightBytes = defaultMaxInFlightBytes();
    private Duration replyScopeTtl = Duration.ofMinutes(2);
    private int maxReplyScopes = 1_000_000;
    private Storage storage;
    private Federation federation;

    BrokerBuilder() {
    }

    /**
     * @param name prefix of the broker's thread names; default {@code ringbus}
     * @return this builder
     */
    public BrokerBuilder name(String name) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("name must be non-blank: name='" + name + "'");
        }
        this.name = name;
        return this;
    }

    /**
     * @param ringSize slots in the ring, a power of two in 2..2^30; default 16,384
     * @return this builder
     */
    public BrokerBuilder ringSize(int ringSize) {
        if (ringSize < 2 || ringSize > MAX_RING_SIZE || Integer.bitCount(ringSize) != 1) {
            throw new IllegalArgumentException("ringSize must be a power of two in 2.." + MAX_RING_SIZE
                    + ": ringSize=" + ringSize);
        }
        this.ringSize = ringSize;
        return this;
    }

    /**
     * @param waitStrategy how idle event loops wait; default {@link WaitStrategy#BLOCKING}
     * @return this builder
     */
    public BrokerBuilder waitStrategy(WaitStrategy waitStrategy) {
        this.waitStrategy = Objects.requireNonNull(waitStrategy, "waitStrategy");
        return this;
    }

    /**
     * @param eventLoops dispatch threads, 1..{@value #MAX_EVENT_LOOPS}; each subscription is
     *                   served by one of them; default 1
     * @return this builder
     */
    public BrokerBuilder eventLoops(int eventLoops) {
        if (eventLoops < 1 || eventLoops > MAX_EVENT_LOOPS) {
            throw new IllegalArgumentException("eventLoops must be in 1.." + MAX_EVENT_LOOPS + ": eventLoops=" + eventLoops);
        }
        this.eventLoops = eventLoops;
        return this;
    }

    /**
     * @param workerPoolSize platform threads for {@link ExecutionMode#WORKER} handlers,
     *                       1..{@value #MAX_WORKER_POOL_SIZE}; started on first use; default 16
     * @return this builder
     */
    public BrokerBuilder workerPoolSize(int workerPoolSize) {
        if (workerPoolSize < 1 || workerPoolSize > MAX_WORKER_POOL_SIZE) {
            throw new IllegalArgumentException("workerPoolSize must be in 1.." + MAX_WORKER_POOL_SIZE
                    + ": workerPoolSize=" + workerPoolSize);
        }
        this.workerPoolSize = workerPoolSize;
        return this;
    }

    /**
     * @param defaultScope scope of subjects matching no registered pattern; default PRIVATE
     * @return this builder
     */
    public BrokerBuilder defaultScope(Scope defaultScope) {
        this.defaultScope = Objects.requireNonNull(defaultScope, "defaultScope");
        return this;
    }

    /**
     * @param errorHandler receives handler exceptions; default logs them at ERROR
     * @return this builder
     */
    public BrokerBuilder errorHandler(ErrorHandler errorHandler) {
        this.errorHandler = Objects.requireNonNull(errorHandler, "errorHandler");
        return this;
    }

    /**
     * @param listener receives watchdog warnings; default logs them at WARN with the stack
     * @return this builder
     */
    public BrokerBuilder blockedHandlerListener(BlockedHandlerListener listener) {
        this.blockedHandlerListener = Objects.requireNonNull(listener, "blockedHandlerListener");
        return this;
    }

    /**
     * @param limit how long an event-loop handler call may run before a warning; default 2 s
     * @return this builder
     */
    public BrokerBuilder maxEventLoopExecuteTime(Duration limit) {
        this.maxEventLoopExecuteTime = positive("maxEventLoopExecuteTime", limit);
        return this;
    }

    /**
     * @param limit how long a worker handler call may run before a warning; default 60 s
     * @return this builder
     */
    public BrokerBuilder maxWorkerExecuteTime(Duration limit) {
        this.maxWorkerExecuteTime = positive("maxWorkerExecuteTime", limit);
        return this;
    }

    /**
     * @param limit how long a virtual-thread handler call may run before a warning; default 60 s
     * @return this builder
     */
    public BrokerBuilder maxVirtualExecuteTime(Duration limit) {
        this.maxVirtualExecuteTime = positive("maxVirtualExecuteTime", limit);
        return this;
    }

    /**
     * @param interval how often the watchdog checks running handlers; default 1 s
     * @return this builder
     */
    public BrokerBuilder watchdogInterval(Duration interval) {
        this.watchdogInterval = positive("watchdogInterval", interval);
        return this;
    }

    /**
     * @param timeout how long {@link Broker#close()} waits for accepted messages; default 10 s
     * @return this builder
     */
    public BrokerBuilder shutdownTimeout(Duration timeout) {
        this.shutdownTimeout = positive("shutdownTimeout", timeout);
        return this;
    }

    /**
     * @param routeCacheSize subjects whose subscriber lists are cached, 16..2^24; when full, the
     *                       cache is cleared and refilled (counted); default 65,536
     * @return this builder
     */
    public BrokerBuilder routeCacheSize(int routeCacheSize) {
        if (routeCacheSize < 16 || routeCacheSize > (1 << 24)) {
            throw new IllegalArgumentException("routeCacheSize must be in 16..16777216: routeCacheSize=" + routeCacheSize);
        }
        this.routeCacheSize = routeCacheSize;
        return this;
    }

    /**
     * @param maxInFlightBytes payload bytes (of {@code byte[]} and {@code CharSequence} payloads)
     *                         that ring slots may hold before publishing waits ({@code publish})
     *                         or is refused ({@code tryPublish}), as when the ring is full;
     *                         at least 64 KiB; default a quarter of the maximum heap. A slot gives
     *                         its bytes back as soon as every event loop has dispatched it.
     * @return this builder
     */
    public BrokerBuilder maxInFlightBytes(long maxInFlightBytes) {
        if (maxInFlightBytes < 65_536) {
            throw new IllegalArgumentException("maxInFlightBytes must be >= 65536: maxInFlightBytes=" + maxInFlightBytes);
        }
        this.maxInFlightBytes = maxInFlightBytes;
        return this;
    }

    /** @return a quarter of the maximum heap, at least 64 KiB */
    static long defaultMaxInFlightBytes() {
        return Math.max(65_536, Runtime.getRuntime().maxMemory() / 4);
    }

    /**
     * How long the broker remembers the scope of a request's reply subject. A request from a
     * client of a higher scope than its reply subject's makes the replies data of the client's
     * scope: for this long, subscribers below that scope do not receive them, whatever their
     * pattern ({@code _INBOX.>}, {@code >}).
     *
     * @param ttl positive; default 2 minutes (longer than any sensible request timeout)
     * @return this builder
     */
    public BrokerBuilder replyScopeTtl(Duration ttl) {
        this.replyScopeTtl = positive("replyScopeTtl", ttl);
        return this;
    }

    /**
     * Links this broker to other nodes: messages of PUBLIC and FEDERATED subjects cross, following
     * the interest of each node's subscriptions (ringbus-federation's {@code NatsFederation}). The
     * broker starts the link when built and closes it when closed.
     *
     * @param federation the link
     * @return this builder
     */
    public BrokerBuilder federation(Federation federation) {
        this.federation = java.util.Objects.requireNonNull(federation, "federation");
        return this;
    }

    /**
     * Where durable subjects are stored ({@link Broker#registerSubject(String, Scope, Durability)}).
     * Default: {@code Storage.local(Path.of("data"))}, opened when the first durable subject is
     * registered. The broker closes it when it closes.
     *
     * @param storage the store
     * @return this builder
     */
    public BrokerBuilder storage(Storage storage) {
        this.storage = java.util.Objects.requireNonNull(storage, "storage");
        return this;
    }

    /**
     * @param maxReplyScopes reply subjects remembered at once (see {@link #replyScopeTtl}),
     *                       1..2^26; when full, such requests wait ({@code publish}) or are
     *                       refused ({@code tryPublish}) until older ones expire; default 1,000,000
     * @return this builder
     */
    public BrokerBuilder maxReplyScopes(int maxReplyScopes) {
        if (maxReplyScopes < 1 || maxReplyScopes > (1 << 26)) {
            throw new IllegalArgumentException("maxReplyScopes must be in 1..67108864: maxReplyScopes=" + maxReplyScopes);
        }
        this.maxReplyScopes = maxReplyScopes;
        return this;
    }

    /**
     * Publishes the broker's meters to {@code registry} (names, tags and units in
     * {@code docs/metrics.md}): published, delivered, dropped, handler errors and latency, ring
     * capacity, per-pattern pending and lag, watchdog warnings. The meters read the broker's own
     * counters when scraped; only the handler latency timer costs work per handler call (two
     * clock reads and a record, no allocation). They are removed from the registry when the
     * broker closes.
     *
     * <p>Without this call (the default) the broker loads no Micrometer class, and
     * micrometer-core, an optional dependency, need not be on the class path.
     *
     * @param registry where to register the meters, e.g. a {@code PrometheusMeterRegistry}
     *                 shared with the rest of the application
     * @return this builder
     */
    // Not 'requires transitive': a caller with a registry reads micrometer.core already; one
    // without it must not need the module.
    @SuppressWarnings("exports")
    public BrokerBuilder meterRegistry(io.micrometer.core.instrument.MeterRegistry registry) {
        this.meterRegistry = Objects.requireNonNull(registry, "meterRegistry");
        return this;
    }

    /**
     * Bounds the {@code pattern} tag of the per-pattern meters: at most {@code limit} distinct
     * subscription patterns have series of their own at once; subscriptions with further
     * patterns are reported under {@code pattern="_other"} and counted by
     * {@code ringbus.pattern.overflow}. A pattern's series go when its last subscription does.
     *
     * @param limit 1..{@value #MAX_METER_PATTERN_LIMIT}; default 100
     * @return this builder
     */
    public BrokerBuilder meterPatternLimit(int limit) {
        if (limit < 1 || limit > MAX_METER_PATTERN_LIMIT) {
            throw new IllegalArgumentException("meterPatternLimit must be in 1.." + MAX_METER_PATTERN_LIMIT
                    + ": meterPatternLimit=" + limit);
        }
        this.meterPatternLimit = limit;
        return this;
    }

    /**
     * Times one handler call in {@code oneIn} per subscription for {@code ringbus.handler.latency}
     * (calls number 0, oneIn, 2 x oneIn, ... of each subscription), instead of every call. Timing
     * a call costs two clock reads and a histogram update, about 150 ns: several times what an
     * inline handler costs (see {@code docs/metrics.md} for the measured overhead). With sampling
     * the timer's count and total cover the sampled calls only; {@code ringbus.delivered} stays
     * exact. A power of two, so that choosing costs a mask of the delivery count.
     *
     * @param oneIn a power of two in 1..{@value #MAX_HANDLER_LATENCY_SAMPLING}; default 1 (every call)
     * @return this builder
     */
    public BrokerBuilder handlerLatencySampling(int oneIn) {
        if (oneIn < 1 || oneIn > MAX_HANDLER_LATENCY_SAMPLING || Integer.bitCount(oneIn) != 1) {
            throw new IllegalArgumentException("handlerLatencySampling must be a power of two in 1.."
                    + MAX_HANDLER_LATENCY_SAMPLING + ": handlerLatencySampling=" + oneIn);
        }
        this.handlerLatencySampling = oneIn;
        return this;
    }

    /**
     * Builds and starts the broker: its event loops run from here on.
     *
     * @return the running broker
     */
    public Broker build() {
        return new RingBroker(new BrokerConfig(name, ringSize, waitStrategy, eventLoops, workerPoolSize,
                defaultScope, errorHandler, blockedHandlerListener, maxEventLoopExecuteTime,
                maxWorkerExecuteTime, maxVirtualExecuteTime, watchdogInterval, shutdownTimeout, routeCacheSize,
                meterRegistry, meterPatternLimit, handlerLatencySampling, maxInFlightBytes, replyScopeTtl,
                maxReplyScopes, storage, federation));
    }

    private static Duration positive(String what, Duration value) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(what + " must be positive: " + what + "=" + value);
        }
        return value;
    }
}
