package io.ringbus.core.internal;

import com.lmax.disruptor.BlockingWaitStrategy;
import com.lmax.disruptor.BusySpinWaitStrategy;
import com.lmax.disruptor.ExceptionHandler;
import com.lmax.disruptor.InsufficientCapacityException;
import com.lmax.disruptor.RingBuffer;
import com.lmax.disruptor.SleepingWaitStrategy;
import com.lmax.disruptor.YieldingWaitStrategy;
import com.lmax.disruptor.dsl.Disruptor;
import com.lmax.disruptor.dsl.ProducerType;
import io.ringbus.core.Backoff;
import io.ringbus.core.Broker;
import io.ringbus.core.BrokerStats;
import io.ringbus.core.Client;
import io.ringbus.core.ConsumerStats;
import io.ringbus.core.Durability;
import io.ringbus.core.DropReason;
import io.ringbus.core.ErrorHandler;
import io.ringbus.core.ExecutionMode;
import io.ringbus.core.Federation;
import io.ringbus.core.FederationContext;
import io.ringbus.core.Headers;
import io.ringbus.core.Message;
import io.ringbus.core.MessageHandler;
import io.ringbus.core.NoRespondersException;
import io.ringbus.core.PublishAck;
import io.ringbus.core.Scope;
import io.ringbus.core.ScopeViolationException;
import io.ringbus.core.Storage;
import io.ringbus.core.StoredStream;
import io.ringbus.core.StreamConfig;
import io.ringbus.core.SubscribeOptions;
import io.ringbus.core.Subscription;
import io.ringbus.core.WaitStrategy;
import io.ringbus.core.memory.ByteBudget;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The broker on an LMAX Disruptor ring.
 *
 * <p>Publish: look the subject's {@link Route} up in the copy-on-write index (a hash probe when
 * cached), check the scope, claim a slot, fill it, publish it. No lock and no allocation.
 * Dispatch: {@code eventLoops} consumers read every slot; each hands it to the subscribers it
 * serves, so a subscriber sees the ring order, which preserves each publisher thread's order.
 *
 * <p>Why this file is over 600 lines: it is the one place where the ring, the index, the
 * subscribers and the lifecycle lock meet (publish, subscribe, fences, close and its drain all
 * touch the same fields). What stands alone lives elsewhere: routing ({@link ConcurrentSubjectIndex}),
 * dispatch ({@link EventLoop}), buffers ({@link BufferedSubscriber}), executors
 * ({@link HandlerExecutors}), replies ({@link ReplyRouter}), meters ({@link BrokerMeters}).
 */
public final class RingBroker implements Broker {
    private static final Logger LOG = LoggerFactory.getLogger(RingBroker.class);
    private static final int SPINS_BEFORE_YIELD = 64;
    private static final int YIELDS_BEFORE_PARK = 64;
    private static final long MAX_PARK_NANOS = 50_000;
    /** A publisher waiting for ring space or in-flight budget: parks 1 us, doubling to {@link #MAX_PARK_NANOS}. */
    private static final Backoff PUBLISH_PARK_NANOS = new Backoff(1_000, MAX_PARK_NANOS);
    /** The acknowledgement of a publish to a subject that is not durable: complete, with no ack. */
    static final CompletableFuture<PublishAck> NOT_STORED = CompletableFuture.completedFuture(null);
    /** {@link #publishAcked}: wait for room rather than refuse. */
    private static final int WAIT = 1;
    /** {@link #publishAcked}: a message from another node. */
    private static final int FROM_LINK = 2;
    /** {@link #publishAcked}: the broker's own message. */
    private static final int ORIGINATED = 4;
    /** {@code close()} waiting for the ring and buffers to drain: parks 10 us, doubling to 5 ms. */
    private static final Backoff DRAIN_PARK_NANOS = new Backoff(10_000, TimeUnit.MILLISECONDS.toNanos(5));

    private final BrokerConfig config;
    private final ErrorHandler errorHandler;
    private final ConcurrentSubjectIndex index;
    private final ReplyScopes replyScopes;
    /** Payload bytes published and not yet dispatched: checked, then added (see {@link #reserveInFlight}). */
    private final ByteBudget inFlight;
    /** Run by a publisher waiting for room in {@link #inFlight}: gives up when the broker closed. */
    private final Runnable openForPublish = () -> {
        if (this.closed) {
            throw closedException("publish");
        }
    };
    private final long maxInFlightBytes;
    private final Disruptor<MessageSlot> disruptor;
    private final RingBuffer<MessageSlot> ring;
    private final EventLoop[] loops;
    private final List<EventLoopThread> loopThreads = new CopyOnWriteArrayList<>();
    private final Watchdog watchdog;
    private final ReplyRouter replies;
    private final Client[] clients = new Client[Scope.values().length];
    /**
     * Live subscribers by id. Not a set by identity: with one, close() retired them in another
     * order and LifecycleTest counted 2 or 8 of 9 undelivered messages as SHUTDOWN (issue 27);
     * why the order matters is not yet understood, so the id order stays.
     */
    private final ConcurrentHashMap<Long, Subscriber> subscribers = new ConcurrentHashMap<>();
    private final AtomicLong nextSubscriptionId = new AtomicLong();
    private final AtomicLong nextClientId = new AtomicLong();
    private final AtomicInteger nextLoop = new AtomicInteger();
    private final ReentrantLock lifecycleLock = new ReentrantLock();
    private final LongAdder rejected = new LongAdder();
    /** Publishes that needed no ring slot (no event-loop subscriber, or none at all). */
    private final LongAdder publishedOffRing = new LongAdder();
    private final LongAdder publishWaits = new LongAdder();
    private final LongAdder cancelled = new LongAdder();
    private final LongAdder fences = new LongAdder();
    private final LongAdder handlerErrors = new LongAdder();
    /** Filter tests run (a test whose answer served several alike filters counts once). */
    private final LongAdder filterEvaluations = new LongAdder();
    private final LongAdder slowConsumers = new LongAdder();
    private final LongAdder retiredDelivered = new LongAdder();
    private final LongAdder[] dropped = new LongAdder[DropReason.values().length];
    /** {@code null} without a registry: then no Micrometer class is ever loaded. */
    private final BrokerMeters meters;
    private final HandlerExecutors executors;
    private final DurableSubjects durables;
    /** The link to other nodes, or null. */
    private final Federation federation;
    /**
     * Reply subjects of requests from other nodes, with the scope of the request's subject here: a
     * reply to one goes back through the federation at that scope (its inbox is another node's).
     */
    private final ReplyScopes remoteReplies;
    private final Map<Long, DurableSubscription> durableSubscriptions = new ConcurrentHashMap<>();
    private volatile boolean closed;
    private volatile boolean halted;
    private boolean terminated;

    /**
     * Builds and starts a broker; use {@link Broker#builder()}.
     *
     * @param config validated settings
     */
    public RingBroker(BrokerConfig config) {
        this.config = config;
        this.executors = new HandlerExecutors(config.name(), config.workerPoolSize());
        this.durables = new DurableSubjects(config.storage());
        this.federation = config.federation();
        this.remoteReplies = new ReplyScopes(config.replyScopeTtl().toNanos(), config.maxReplyScopes());
        this.errorHandler = config.errorHandler() != null ? config.errorHandler() : RingBroker::logHandlerError;
        for (int i = 0; i < dropped.length; i++) {
            dropped[i] = new LongAdder();
        }
        this.index = new ConcurrentSubjectIndex(config.defaultScope(), config.eventLoops(), config.routeCacheSize());
        this.replyScopes = new ReplyScopes(config.replyScopeTtl().toNanos(), config.maxReplyScopes());
        this.maxInFlightBytes = config.maxInFlightBytes();
        this.inFlight = new ByteBudget(maxInFlightBytes);
        for (Scope scope : Scope.values()) {
            clients[scope.ordinal()] = new ScopedClient(this, scope, 0);
        }
        this.watchdog = new Watchdog(config.name() + "-watchdog", config.watchdogInterval(),
                config.blockedHandlerListener());
        this.loops = new EventLoop[config.eventLoops()];
        AtomicInteger threadNumber = new AtomicInteger();
        this.disruptor = new Disruptor<>(MessageSlot::new, config.ringSize(), task -> {
            EventLoopThread thread = new EventLoopThread(this, task,
                    config.name() + "-loop-" + threadNumber.getAndIncrement());
            loopThreads.add(thread);
            return thread;
        }, ProducerType.MULTI, waitStrategy(config.waitStrategy()));
        for (int i = 0; i < loops.length; i++) {
            loops[i] = new EventLoop(this, i, loops.length);
            watchdog.watch(loops[i].probe());
        }
        disruptor.handleEventsWith(loops);
        disruptor.setDefaultExceptionHandler(new LoopExceptionHandler());
        this.ring = disruptor.start();
        watchdog.start();
        this.replies = new ReplyRouter(this, Long.toUnsignedString(ThreadLocalRandom.current().nextLong(), 36));
        replies.registerScopes();
        this.meters = config.meterRegistry() == null ? null
                : new BrokerMeters(config.meterRegistry(), config.name(), config.meterPatternLimit(),
                        config.handlerLatencySampling(), this);
        if (federation != null) {
            try {
                federation.start(new LinkContext());
            } catch (RuntimeException e) {
                close(Duration.ZERO); // stop the threads started above: the broker is not built
                throw e;
            }
        }
    }

    /** What the federation link sees of this broker. */
    private final class LinkContext implements FederationContext {
        @Override
        public String nodeName() {
            return config.name();
        }

        @Override
        public boolean accepts(String subject) {
            return index.routeVerbatim(subject).scope.ordinal() <= Scope.FEDERATED.ordinal();
        }

        @Override
        public boolean deliver(String subject, String replyTo, Headers headers, Object payload, String pattern,
                               String queueGroup) {
            if (closed) {
                throw closedException("deliver");
            }
            Route route = index.routeVerbatim(subject);
            if (route.scope.ordinal() > Scope.FEDERATED.ordinal()) {
                return false;
            }
            route = queueGroup == null ? route.plainWithPattern(pattern) : route.onlyGroup(queueGroup);
            publishAcked(Scope.FEDERATED, 0, route, subject, replyTo, headers, payload, WAIT | FROM_LINK, null);
            return true;
        }
    }

    private static com.lmax.disruptor.WaitStrategy waitStrategy(WaitStrategy strategy) {
        return switch (strategy) {
            case BLOCKING -> new BlockingWaitStrategy();
            case SLEEPING -> new SleepingWaitStrategy();
            case YIELDING -> new YieldingWaitStrategy();
            case BUSY_SPIN -> new BusySpinWaitStrategy();
        };
    }

    // ---------------------------------------------------------------- publish

    @Override
    public Scope scope() {
        return Scope.ROOT;
    }

    @Override
    public void publish(String subject, String replyTo, Headers headers, Object payload) {
        publish(Scope.ROOT, 0, subject, replyTo, headers, payload, true);
    }

    @Override
    public boolean tryPublish(String subject, String replyTo, Headers headers, Object payload) {
        return publish(Scope.ROOT, 0, subject, replyTo, headers, payload, false);
    }

    /**
     * Publishes for a client of {@code clientScope}.
     *
     * @param wait whether to wait for ring capacity, or return {@code false} at once
     */
    boolean publish(Scope clientScope, long origin, String subject, String replyTo, Headers headers, Object payload,
                    boolean wait) {
        if (closed) {
            throw closedException("publish");
        }
        return publish(clientScope, origin, index.route(subject), subject, replyTo, headers, payload, wait);
    }

    /** Publishes a subject taken as received (see {@link ConcurrentSubjectIndex#routeVerbatim}). */
    boolean publishVerbatim(Scope clientScope, long origin, String subject, String replyTo, Headers headers,
                            Object payload, boolean wait) {
        if (closed) {
            throw closedException("publish");
        }
        return publish(clientScope, origin, index.routeVerbatim(subject), subject, replyTo, headers, payload, wait);
    }

    /**
     * The publish path. PUBLISHER subscribers are called here, on the caller's thread, after the
     * ring slot (if any subscriber needs one) is published; nothing is delivered when it returns
     * {@code false}.
     */
    private boolean publish(Scope clientScope, long origin, Route route, String subject, String replyTo,
                            Headers headers, Object payload, boolean wait) {
        if (!plain(clientScope, route, subject, replyTo)) {
            return publishAcked(clientScope, origin, route, subject, replyTo, headers, payload, wait ? WAIT : 0,
                    null) != null;
        }
        Headers h = headers == null ? Headers.EMPTY : headers;
        if (route.ring) {
            if (!publishToRing(route, subject, null, h, payload, origin, wait)) {
                return false;
            }
        } else {
            publishedOffRing.increment();
        }
        if (route.direct.length != 0 || route.directGroups.length != 0) {
            route.deliverDirect(Message.of(subject, null, h, payload, origin));
        }
        return true;
    }

    /**
     * @return whether a publish is the plain case, the fast path of {@link #publish} and
     *         {@link #publishView}: no reply subject, no durable subject and no federation on this
     *         broker, no pending reply scope for the subject, and a subject the client may publish
     *         to; anything else takes {@link #publishAcked}
     */
    private boolean plain(Scope clientScope, Route route, String subject, String replyTo) {
        return replyTo == null && federation == null && !durables.any() && replyScopes.scopeOf(subject) == null
                && clientScope.includes(route.scope);
    }

    /**
     * Publishes for a client and tells when the message is stored (see
     * {@link Client#tryPublishWithAck}); {@code verbatim} as {@link #publishVerbatim}.
     */
    CompletableFuture<PublishAck> publishWithAck(Scope clientScope, long origin, String subject, String replyTo,
                                                 Headers headers, Object payload, boolean verbatim) {
        if (closed) {
            throw closedException("publish");
        }
        Route route = verbatim ? index.routeVerbatim(subject) : index.route(subject);
        return publishAcked(clientScope, origin, route, subject, replyTo, headers, payload, 0, null);
    }

    /**
     * Publishes a message the broker makes itself (a dead letter) carrying data of {@code dataScope}:
     * only subscribers of that scope or above receive it, whatever the subject's own scope (never the
     * default scope), and it reaches the federation only when that scope is FEDERATED or below. Waits
     * for room.
     *
     * @throws IllegalStateException when the broker is closed
     */
    void publishOriginated(Scope dataScope, String subject, Headers headers, Object payload) {
        publishAtScope(dataScope, index.route(subject), subject, null, headers, payload);
    }

    /** As a network client's subjects: NATS' characters accepted ({@link Client#verbatim()}). */
    @Override
    public void publishAtScope(Scope dataScope, String subject, String replyTo, Headers headers, Object payload) {
        publishAtScope(dataScope, index.routeVerbatim(subject), subject, replyTo, headers, payload);
    }

    private void publishAtScope(Scope dataScope, Route found, String subject, String replyTo, Headers headers,
                                Object payload) {
        if (closed) {
            throw closedException("publish");
        }
        Route route = found;
        if (dataScope.ordinal() > route.scope.ordinal()) {
            route = index.routeAtScope(route, dataScope);
        }
        publishAcked(Scope.ROOT, 0, route, subject, replyTo, headers, payload, WAIT | ORIGINATED, null);
    }

    /**
     * Publishes a client's view ({@link io.ringbus.core.Client#tryPublishView}). The fast path is
     * the plain case: every subscriber is called on this thread (no ring), no reply subject, no
     * durable subject, no federation, no pending reply scope. It checks the scope and hands the
     * view to the direct subscribers: no copy, no object. Anything else is
     * {@link #publishAcked}, which still gives view handlers the view.
     *
     * @param verbatim as {@link #publishVerbatim}
     * @return as {@link #publishWithAck}
     */
    CompletableFuture<PublishAck> publishView(Scope clientScope, long origin, Message view, boolean verbatim) {
        if (closed) {
            throw closedException("publish");
        }
        if (view.origin() != origin) {
            throw new IllegalArgumentException("a view's origin must be its client's id: origin=" + view.origin()
                    + ", client=" + origin);
        }
        String subject = view.subject();
        Route route = verbatim ? index.routeVerbatim(subject) : index.route(subject);
        if (route.ring || !plain(clientScope, route, subject, view.replyTo())) {
            return publishAcked(clientScope, origin, route, subject, view.replyTo(), view.headers(), null, 0, view);
        }
        publishedOffRing.increment();
        if (route.direct.length != 0 || route.directGroups.length != 0) {
            route.deliverDirect(view);
        }
        return NOT_STORED;
    }

    /**
     * The whole publish: federation reply scopes, the durable store, reply-scope bookkeeping,
     * the ring, direct subscribers and the federation.
     *
     * @param how     {@link #WAIT}: wait for room rather than refuse; {@link #FROM_LINK}: a message from
     *                another node, neither stored nor sent back to the federation; {@link #ORIGINATED}:
     *                the broker's own message ({@link #publishOriginated}), whose route's scope is never
     *                lowered, not even for a subject another node named as a reply subject
     * @param view    a client's view whose payload is read only where it is kept (ring, store,
     *                federation), or {@code null}: then {@code payload} is the payload
     * @return null when refused for room (nothing published); {@link #NOT_STORED} for a subject that
     *         is not durable; else the store's acknowledgement (complete when {@code WAIT})
     */
    private CompletableFuture<PublishAck> publishAcked(Scope clientScope, long origin, Route route, String subject,
                                                       String replyTo, Headers headers, Object payload, int how,
                                                       Message view) {
        boolean fromLink = (how & FROM_LINK) != 0;
        boolean wait = (how & WAIT) != 0;
        if (federation != null && !fromLink && (how & ORIGINATED) == 0
                && route.scope.ordinal() > Scope.FEDERATED.ordinal()) {
            Scope remote = remoteReplies.scopeOf(subject);
            if (remote != null) {
                route = index.routeAtScope(route, remote); // a reply to another node's request
            }
        }
        if (!clientScope.includes(route.scope)) {
            throw new ScopeViolationException("publish", subject, route.scope, clientScope);
        }
        CompletableFuture<PublishAck> ack = NOT_STORED;
        if (!fromLink && durables.any()) {
            StoredStream stream = durables.streamFor(subject);
            if (stream != null) {
                // A caller that may not wait is refused while the ring is full, before anything is
                // stored; past the store, the ring is only full in a rare race, counted as rejected.
                boolean mayWait = wait && !onOwnEventLoop();
                if (!mayWait && route.ring && !ring.hasAvailableCapacity(1)) {
                    rejected.increment();
                    return null;
                }
                if (replyTo != null) {
                    // Refused before anything is stored: a publish that throws must leave no record.
                    checkReplyTo(clientScope, replyTo);
                }
                ack = DurableSubjects.store(stream, subject, headers, body(payload, view), mayWait);
                if (ack == null) {
                    rejected.increment();
                    return null;
                }
                wait = mayWait;
            }
        }
        Scope replyOf = replyScopes.scopeOf(subject);
        if (replyOf != null && replyOf.ordinal() > route.scope.ordinal()) {
            // A reply to a requester of a higher scope: only subscribers of that scope may see it.
            route = index.routeAtScope(route, replyOf);
        }
        if (fromLink) {
            // The link's thread waits while the table is full (entries expire after replyScopeTtl).
            while (replyTo != null && !remoteReplies.remember(replyTo, route.scope)) {
                if (closed) {
                    throw closedException("deliver");
                }
                publishWaits.increment();
                LockSupport.parkNanos(MAX_PARK_NANOS);
            }
        } else if (replyTo != null && (how & ORIGINATED) == 0 && !rememberReplyScope(clientScope, replyTo, wait)) {
            return ack == NOT_STORED ? null : countRejected(ack);
        }
        Headers h = headers == null ? Headers.EMPTY : headers;
        if (route.ring) {
            if (!publishToRing(route, subject, replyTo, h, body(payload, view), origin, wait)) {
                return ack == NOT_STORED ? null : countRejected(ack);
            }
        } else {
            publishedOffRing.increment();
        }
        if (route.direct.length != 0 || route.directGroups.length != 0) {
            route.deliverDirect(view != null ? view : Message.of(subject, replyTo, h, payload, origin));
        }
        if (federation != null && !fromLink && route.scope.ordinal() <= Scope.FEDERATED.ordinal()) {
            federation.send(subject, replyTo, h, body(payload, view), route.groupNames);
        }
        return ack;
    }

    /** @return the payload to keep: the view's (read now), else {@code payload} */
    private static Object body(Object payload, Message view) {
        return view == null ? payload : view.payload();
    }

    private CompletableFuture<PublishAck> countRejected(CompletableFuture<PublishAck> stored) {
        rejected.increment();
        return stored;
    }

    private boolean publishToRing(Route route, String subject, String replyTo, Headers headers, Object payload,
                                  long origin, boolean wait) {
        int bytes = payloadBytes(payload);
        if (bytes > 0 && !reserveInFlight(bytes)) {
            if (!wait) {
                rejected.increment();
                return false;
            }
            reserveSlowPath(bytes);
        }
        long sequence;
        try {
            sequence = ring.tryNext();
        } catch (InsufficientCapacityException full) {
            if (!wait) {
                releaseInFlight(bytes);
                rejected.increment();
                return false;
            }
            try {
                sequence = claimSlowPath();
            } catch (RuntimeException closedMeanwhile) {
                releaseInFlight(bytes);
                throw closedMeanwhile;
            }
        }
        MessageSlot slot = ring.get(sequence);
        slot.set(route, subject, replyTo, headers, payload, origin, bytes, loops.length);
        // The claim above was a CAS (a full fence): either close() sees this slot in its drain,
        // or we see closed here and cancel the slot.
        if (closed) {
            slot.route = null;
            ring.publish(sequence);
            cancelled.increment();
            throw closedException("publish");
        }
        ring.publish(sequence);
        return true;
    }

    /**
     * The bytes a payload holds, for the in-flight budget: a byte[]'s length, a CharSequence's
     * length; 0 for any other object (the application's own, whose size the broker cannot know).
     */
    private static int payloadBytes(Object payload) {
        if (payload instanceof byte[] bytes) {
            return bytes.length;
        }
        if (payload instanceof CharSequence chars) {
            return chars.length();
        }
        return 0;
    }

    /**
     * Takes {@code bytes} from the in-flight budget. Checked, then added: racing publishers may
     * overshoot it by one message each. One message larger than the budget still goes through
     * when nothing else is in flight.
     */
    private boolean reserveInFlight(int bytes) {
        return inFlight.tryAcquireOvershooting(bytes);
    }

    private void reserveSlowPath(int bytes) {
        if (onOwnEventLoop()) {
            throw waitOnEventLoop("the in-flight byte budget is spent (maxInFlightBytes=" + maxInFlightBytes + ")");
        }
        publishWaits.increment();
        inFlight.acquire(bytes, true, PUBLISH_PARK_NANOS, openForPublish);
    }

    /** Event loop: gives the bytes of a dispatched slot back to the budget. */
    void releaseInFlight(int bytes) {
        if (bytes > 0) {
            inFlight.release(bytes);
        }
    }

    /**
     * A request from a client of a higher scope than its reply subject's: remembers that the
     * replies are of the client's scope.
     *
     * @return {@code false} when the table of pending replies is full and {@code wait} is false
     */
    private boolean rememberReplyScope(Scope clientScope, String replyTo, boolean wait) {
        Scope replyScope = checkReplyTo(clientScope, replyTo);
        if (replyScope.ordinal() >= clientScope.ordinal() || replyScopes.remember(replyTo, clientScope)) {
            return true;
        }
        if (!wait) {
            rejected.increment();
            return false;
        }
        if (onOwnEventLoop()) {
            throw waitOnEventLoop("the table of pending replies is full (maxReplyScopes=" + config.maxReplyScopes() + ")");
        }
        publishWaits.increment();
        while (!replyScopes.remember(replyTo, clientScope)) {
            if (closed) {
                throw closedException("publish");
            }
            LockSupport.parkNanos(MAX_PARK_NANOS);
        }
        return true;
    }

    /**
     * A reply subject asks the responder to publish there, so it must be one the client may
     * publish to itself: a PUBLIC client cannot make a trusted responder write to a PRIVATE subject.
     */
    private Scope checkReplyTo(Scope clientScope, String replyTo) {
        Scope replyScope = index.scopeOfLiteral(replyTo, "replyTo");
        if (!clientScope.includes(replyScope)) {
            throw new ScopeViolationException("reply", replyTo, replyScope, clientScope);
        }
        return replyScope;
    }

    /** @return whether the caller is one of this broker's event loops (which must not wait for the ring) */
    private boolean onOwnEventLoop() {
        return Thread.currentThread() instanceof EventLoopThread loop && loop.broker == this;
    }

    /** The error for a publish that would wait on an event loop; built only then (no allocation on the wait path). */
    private IllegalStateException waitOnEventLoop(String why) {
        return new IllegalStateException(why + " and publish() was called on event loop "
                + Thread.currentThread().getName() + ", which would wait for itself: use tryPublish() there, or a "
                + "WORKER or VIRTUAL subscription");
    }

    private long claimSlowPath() {
        if (onOwnEventLoop()) {
            throw waitOnEventLoop("the ring is full (ringSize=" + config.ringSize() + ")");
        }
        publishWaits.increment();
        int attempts = 0;
        long park = PUBLISH_PARK_NANOS.initial();
        for (;;) {
            if (closed) {
                throw closedException("publish");
            }
            try {
                return ring.tryNext();
            } catch (InsufficientCapacityException full) {
                attempts++;
                if (attempts < SPINS_BEFORE_YIELD) {
                    Thread.onSpinWait();
                } else if (attempts < SPINS_BEFORE_YIELD + YIELDS_BEFORE_PARK) {
                    Thread.yield();
                } else {
                    LockSupport.parkNanos(park);
                    park = PUBLISH_PARK_NANOS.next(park);
                }
            }
        }
    }

    // ---------------------------------------------------------------- subscribe

    @Override
    public Subscription subscribe(String pattern, MessageHandler handler, SubscribeOptions options) {
        return subscribeInternal(Scope.ROOT, pattern, handler, options);
    }

    @Override
    public CompletableFuture<PublishAck> tryPublishWithAck(String subject, String replyTo, Headers headers,
                                                           Object payload) {
        return publishWithAck(Scope.ROOT, 0, subject, replyTo, headers, payload, false);
    }

    Subscription subscribeInternal(Scope clientScope, String pattern, MessageHandler handler,
                                   SubscribeOptions options) {
        if (handler == null) {
            throw new IllegalArgumentException("handler must not be null (pattern='" + pattern + "')");
        }
        if (options == null) {
            throw new IllegalArgumentException("options must not be null (pattern='" + pattern + "')");
        }
        if (closed) {
            throw closedException("subscribe");
        }
        SubjectPattern parsed = SubjectPattern.parse(pattern);
        if (options.durable() != null) {
            if (options.filter() != null) {
                throw new IllegalArgumentException("a durable subscription takes no filter (it acknowledges every "
                        + "message of its stream; filter in the handler or subscribe to a narrower pattern): pattern='"
                        + pattern + "', filter=" + options.filter().text());
            }
            return subscribeDurable(clientScope, parsed, handler, options);
        }
        if (!parsed.isWildcard()) {
            Scope subjectScope = index.scopeOf(parsed.tokens());
            if (!clientScope.includes(subjectScope)) {
                throw new ScopeViolationException("subscribe", pattern, subjectScope, clientScope);
            }
        }
        ExecutionMode mode = options.mode();
        if (mode == ExecutionMode.EVENT_LOOP && !options.ordered()) {
            throw new IllegalArgumentException("ordered=false needs mode WORKER or VIRTUAL: an event loop runs one "
                    + "handler at a time (pattern='" + pattern + "', mode=" + mode + ")");
        }
        int loop = Math.floorMod(nextLoop.getAndIncrement(), loops.length);
        long id = nextSubscriptionId.incrementAndGet();
        long maxExecuteNanos = maxExecuteNanos(options);
        PatternStats stats = meters == null ? null : meters.acquire(parsed.text(), mode);
        Subscriber subscriber;
        try {
            subscriber = newSubscriber(mode, id, parsed, clientScope, options, handler, loop, maxExecuteNanos, stats);
        } catch (RuntimeException e) {
            if (stats != null) {
                meters.release(null, stats);
            }
            throw e;
        }
        if (stats != null) {
            stats.attach(subscriber);
        }
        subscribers.put(id, subscriber);
        index.add(subscriber);
        if (federation != null) {
            federation.interest(parsed.text(), options.queueGroup(), true);
        }
        if (closed) {
            subscriber.retire();
            throw closedException("subscribe");
        }
        return subscriber;
    }

    private Subscription subscribeDurable(Scope clientScope, SubjectPattern parsed, MessageHandler handler,
                                          SubscribeOptions options) {
        DurableSubjects.Entry entry = durables.covering(parsed);
        if (entry == null) {
            throw new IllegalArgumentException("no durable subject pattern covers '" + parsed.text()
                    + "': register one with registerSubject(pattern, scope, Durability.DURABLE) first");
        }
        if (!clientScope.includes(entry.scope())) {
            throw new ScopeViolationException("subscribe", parsed.text(), entry.scope(), clientScope);
        }
        ExecutorService executor = options.mode() == ExecutionMode.VIRTUAL ? executors.virtualExecutor()
                : executors.workerPool();
        DurableSubscription subscription = new DurableSubscription(this, nextSubscriptionId.incrementAndGet(),
                parsed.text(), clientScope, options, handler, entry.stream().consumer(
                        options.durable().consumerConfig(parsed.text())), entry.stream().config().name(),
                entry.scope(), errorHandler, executor);
        durableSubscriptions.put(subscription.id(), subscription);
        if (meters != null) {
            subscription.onEnd(meters.registerDurable(subscription, entry.stream().config().name(),
                    options.durable().name()));
        }
        if (closed) {
            subscription.unsubscribe();
            throw closedException("subscribe");
        }
        subscription.start();
        return subscription;
    }

    void durableUnsubscribed(DurableSubscription subscription) {
        durableSubscriptions.remove(subscription.id());
    }

    private Subscriber newSubscriber(ExecutionMode mode, long id, SubjectPattern parsed, Scope clientScope,
                                     SubscribeOptions options, MessageHandler handler, int loop,
                                     long maxExecuteNanos, PatternStats stats) {
        return switch (mode) {
            case EVENT_LOOP -> new EventLoopSubscriber(this, id, parsed, clientScope, options, handler, loop,
                    maxExecuteNanos, stats);
            case WORKER -> new BufferedSubscriber(this, id, parsed, clientScope, options, handler, loop,
                    maxExecuteNanos, executors.workerPool(), true, stats);
            case VIRTUAL -> new BufferedSubscriber(this, id, parsed, clientScope, options, handler, loop,
                    maxExecuteNanos, executors.virtualExecutor(), false, stats);
            case PUBLISHER -> new PublisherSubscriber(this, id, parsed, clientScope, options, handler, loop, stats);
        };
    }

    private long maxExecuteNanos(SubscribeOptions options) {
        if (options.maxExecuteTime() != null) {
            return options.maxExecuteTime().toNanos();
        }
        return switch (options.mode()) {
            case EVENT_LOOP -> config.maxEventLoopExecuteTime().toNanos();
            case WORKER -> config.maxWorkerExecuteTime().toNanos();
            case VIRTUAL -> config.maxVirtualExecuteTime().toNanos();
            case PUBLISHER -> Long.MAX_VALUE;
        };
    }

    /** Called once per subscriber when it stops: removes it from routing and keeps its count. */
    void retire(Subscriber subscriber) {
        index.remove(subscriber);
        if (federation != null) {
            federation.interest(subscriber.pattern(), subscriber.options().queueGroup(), false);
        }
        if (subscribers.remove(subscriber.id()) != null) {
            retiredDelivered.add(subscriber.delivered());
            if (subscriber.stats != null) {
                meters.release(subscriber, subscriber.stats);
            }
        }
    }

    // ---------------------------------------------------------------- request / reply

    @Override
    public CompletableFuture<Message> request(String subject, Headers headers, Object payload, Duration timeout) {
        return request(Scope.ROOT, 0, subject, headers, payload, timeout);
    }

    CompletableFuture<Message> request(Scope clientScope, long origin, String subject, Headers headers,
                                       Object payload, Duration timeout) {
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive: timeout=" + timeout);
        }
        if (closed) {
            throw closedException("request");
        }
        Route route = index.route(subject);
        if (!clientScope.includes(route.scope)) {
            throw new ScopeViolationException("request", subject, route.scope, clientScope);
        }
        if (route.targets == 0 && !reachesOtherNodes(route)) {
            return CompletableFuture.failedFuture(new NoRespondersException(subject));
        }
        CompletableFuture<Message> reply = new CompletableFuture<>();
        // With no local responder, a remote "no responders" status (NATS 503) answers the request.
        String inbox = replies.open(route.scope, reply, route.targets == 0 ? subject : null);
        reply.orTimeout(timeout.toNanos(), TimeUnit.NANOSECONDS);
        try {
            publish(clientScope, origin, subject, inbox, headers, payload, true);
        } catch (RuntimeException e) {
            replies.cancel(inbox);
            throw e;
        }
        return reply;
    }

    // ---------------------------------------------------------------- scopes, clients, stats

    @Override
    public void registerSubject(String pattern, Scope scope) {
        if (scope == null) {
            throw new IllegalArgumentException("scope must not be null (pattern='" + pattern + "')");
        }
        index.register(SubjectPattern.parse(pattern), scope);
    }

    @Override
    public void registerSubject(String pattern, Scope scope, Durability durability) {
        if (durability == null) {
            throw new IllegalArgumentException("durability must not be null (pattern='" + pattern + "')");
        }
        if (durability == Durability.DURABLE) {
            registerStream(StreamConfig.of(pattern), scope);
        } else {
            registerSubject(pattern, scope);
            durables.unregister(pattern);
        }
    }

    @Override
    public StoredStream registerStream(StreamConfig streamConfig, Scope scope) {
        if (streamConfig == null || scope == null) {
            throw new IllegalArgumentException("config and scope must not be null: config=" + streamConfig
                    + ", scope=" + scope);
        }
        if (closed) {
            throw closedException("registerStream");
        }
        StoredStream stream = durables.register(streamConfig, pattern -> scope);
        for (String pattern : streamConfig.subjects()) {
            index.register(SubjectPattern.parse(pattern), scope);
        }
        return stream;
    }

    @Override
    public StoredStream registerStream(StreamConfig streamConfig) {
        if (streamConfig == null) {
            throw new IllegalArgumentException("config must not be null");
        }
        if (closed) {
            throw closedException("registerStream");
        }
        return durables.register(streamConfig, index::maxScopeOf);
    }

    @Override
    public StoredStream updateStream(StreamConfig streamConfig) {
        if (streamConfig == null) {
            throw new IllegalArgumentException("config must not be null");
        }
        if (closed) {
            throw closedException("updateStream");
        }
        return durables.update(streamConfig, index::maxScopeOf);
    }

    @Override
    public boolean deleteStream(String name) {
        if (closed) {
            throw closedException("deleteStream");
        }
        return durables.delete(name);
    }

    @Override
    public java.util.List<StoredStream> streams() {
        return durables.streams();
    }

    @Override
    public Optional<Storage> storage() {
        return Optional.ofNullable(durables.storage());
    }

    @Override
    public Scope maxScopeOf(String pattern) {
        return index.maxScopeOf(SubjectPattern.parse(pattern));
    }

    /** @return whether a federation link was configured */
    boolean hasFederation() {
        return federation != null;
    }

    /** @return the federation link's stats; only when {@link #hasFederation()} */
    io.ringbus.core.FederationStats federationStats() {
        return federation.stats();
    }

    /** @return whether messages published to {@code subject} are stored (it matches a durable pattern) */
    boolean isDurable(String subject) {
        return durables.any() && durables.streamFor(subject) != null;
    }

    @Override
    public Scope scopeOf(String subject) {
        // Not index.route(subject).scope: a subject published once (an ack, a reply inbox) would build a
        // route, subscribers and all, to learn its scope.
        return index.scopeOfLiteral(subject, "subject");
    }

    @Override
    public Optional<Scope> streamScope(String stream) {
        return Optional.ofNullable(durables.scopeOfStream(stream));
    }

    @Override
    public Client client(Scope scope) {
        if (scope == null) {
            throw new IllegalArgumentException("scope must not be null");
        }
        return clients[scope.ordinal()];
    }

    @Override
    public boolean tryFence(Runnable action) {
        if (action == null) {
            throw new IllegalArgumentException("action must not be null");
        }
        if (closed) {
            throw closedException("fence");
        }
        long sequence;
        try {
            sequence = ring.tryNext();
        } catch (InsufficientCapacityException full) {
            return false;
        }
        ring.get(sequence).set(Route.FENCE, null, null, Headers.EMPTY, new Fence(action, loops.length), 0, 0,
                loops.length);
        fences.increment();
        ring.publish(sequence);
        return true;
    }

    void fenceFailed(RuntimeException error) {
        LOG.error("fence action threw; carrying on", error);
    }

    @Override
    public Client verbatim() {
        return clients[Scope.ROOT.ordinal()].verbatim();
    }

    @Override
    public Client newClient(Scope scope) {
        if (scope == null) {
            throw new IllegalArgumentException("scope must not be null");
        }
        return new ScopedClient(this, scope, nextClientId.incrementAndGet());
    }

    @Override
    public long id() {
        return 0;
    }

    @Override
    public boolean hasSubscribers(String subject) {
        return hasSubscribers(Scope.ROOT, subject, false);
    }

    boolean hasSubscribers(Scope clientScope, String subject, boolean verbatim) {
        Route route = verbatim ? index.routeVerbatim(subject) : index.route(subject);
        // A durable subject's store receives every message, as a JetStream stream that captures
        // a subject does: the network front must neither answer no-responders nor skip the PUB.
        // With a federation link up, another node may have subscribers: the message goes out (and a
        // request with none anywhere gets NATS's no-responders status back through the link).
        return clientScope.includes(route.scope)
                && (route.targets > 0 || isDurable(subject) || reachesOtherNodes(route));
    }

    private boolean reachesOtherNodes(Route route) {
        return federation != null && route.scope.ordinal() <= Scope.FEDERATED.ordinal() && federation.isConnected();
    }

    @Override
    public BrokerStats stats() {
        Map<DropReason, Long> drops = new EnumMap<>(DropReason.class);
        for (DropReason reason : DropReason.values()) {
            drops.put(reason, dropped[reason.ordinal()].sum());
        }
        long delivered = retiredDelivered.sum();
        List<BrokerStats.SubscriptionStats> subscriptions = new ArrayList<>(subscribers.size());
        for (Subscriber s : subscribers.values()) {
            long count = s.delivered();
            delivered += count;
            subscriptions.add(new BrokerStats.SubscriptionStats(s.id(), s.pattern(), s.scope(), s.options().mode(),
                    s.options().queueGroup(), s.pending(), count, s.dropped(),
                    s.filter == null ? null : s.filter.text(), s.filtered()));
        }
        subscriptions.sort((a, b) -> Long.compare(a.id(), b.id()));
        List<ConsumerStats> consumers = new ArrayList<>(durableSubscriptions.size());
        for (DurableSubscription d : durableSubscriptions.values()) {
            delivered += d.delivered();
            consumers.add(d.consumerStats());
        }
        return new BrokerStats(published(), rejected.sum(), publishWaits.sum(),
                delivered, Map.copyOf(drops), handlerErrors.sum(), config.ringSize(), ring.remainingCapacity(),
                watchdog.warnings(), List.copyOf(subscriptions), List.copyOf(consumers),
                federation == null ? null : federation.stats(), filterEvaluations.sum());
    }

    /** Any routing thread: one filter test was run. */
    void filterEvaluated() {
        filterEvaluations.increment();
    }

    /** @return messages accepted: into the ring (claimed slots minus cancelled publishes and fences), or past it */
    long published() {
        return ring.getCursor() + 1 - cancelled.sum() - fences.sum() + publishedOffRing.sum();
    }

    long ringRemaining() {
        return ring.remainingCapacity();
    }

    int ringSize() {
        return config.ringSize();
    }

    int subscriptionCount() {
        return subscribers.size();
    }

    /** @return slots published (or being filled) that event loop {@code loop} has not dispatched yet */
    long loopBacklog(int loop) {
        return Math.max(0, ring.getCursor() - loops[loop].dispatched());
    }

    // ---------------------------------------------------------------- callbacks from subscribers

    Watchdog watchdog() {
        return watchdog;
    }

    boolean isHalted() {
        return halted;
    }

    void countDrop(Subscriber subscriber, DropReason reason, long count) {
        dropped[reason.ordinal()].add(count);
        if (subscriber.stats != null) {
            subscriber.stats.dropped(reason, count);
        }
    }

    void slowConsumer(Subscriber subscriber) {
        slowConsumers.increment();
        LOG.warn("slow consumer disconnected: {} (buffer of {} full)", subscriber, subscriber.options().bufferSize());
    }

    /** Reports a handler's exception; rethrows a {@link VirtualMachineError} after reporting it. */
    void handlerFailed(Throwable error, Message message, Subscriber subscription) {
        handlerErrors.increment();
        if (subscription.stats != null) {
            subscription.stats.handlerError();
        }
        try {
            errorHandler.onError(error, message, subscription);
        } catch (Throwable handlerError) {
            LOG.error("error handler threw while reporting a handler exception; carrying on", handlerError);
        }
        if (error instanceof VirtualMachineError fatal) {
            throw fatal;
        }
    }

    private static void logHandlerError(Throwable error, Message message, Subscription subscription) {
        LOG.error("handler of {} threw on subject '{}'", subscription, message.subject(), error);
    }

    // ---------------------------------------------------------------- lifecycle

    @Override
    public boolean isClosed() {
        return closed;
    }

    @Override
    public void close() {
        close(config.shutdownTimeout());
    }

    @Override
    public void close(Duration drainTimeout) {
        if (drainTimeout == null || drainTimeout.isNegative()) {
            throw new IllegalArgumentException("drainTimeout must be >= 0: drainTimeout=" + drainTimeout);
        }
        lifecycleLock.lock();
        try {
            if (terminated) {
                return;
            }
            closed = true;
            if (federation != null) {
                federation.close();
            }
            for (DurableSubscription durable : durableSubscriptions.values()) {
                durable.unsubscribe();
            }
            long deadline = System.nanoTime() + drainTimeout.toNanos();
            awaitDrained(deadline);
            // Past the drain: stop handing out messages. Retired subscribers count what they
            // will not get (buffered, waiting for room, or still in the ring) as SHUTDOWN.
            halted = true;
            for (Subscriber subscriber : subscribers.values()) {
                subscriber.retireForShutdown();
            }
            passRemainingRing(System.nanoTime() + TimeUnit.SECONDS.toNanos(1));
            disruptor.halt();
            stopLoopThreads(TimeUnit.SECONDS.toNanos(1));
            executors.shutdown();
            watchdog.stop();
            replies.failAll(closedException("request"));
            durables.close();
            if (meters != null) {
                meters.close();
            }
            terminated = true;
        } finally {
            lifecycleLock.unlock();
        }
    }

    private void awaitDrained(long deadline) {
        long park = DRAIN_PARK_NANOS.initial();
        while (System.nanoTime() - deadline < 0) {
            if (ring.getMinimumGatingSequence() >= ring.getCursor() && buffersIdle()) {
                return;
            }
            LockSupport.parkNanos(park);
            park = DRAIN_PARK_NANOS.next(park);
        }
    }

    private boolean buffersIdle() {
        for (Subscriber subscriber : subscribers.values()) {
            if (subscriber instanceof BufferedSubscriber buffered && !buffered.isIdle()) {
                return false;
            }
        }
        return true;
    }

    /**
     * Lets the event loops run through what is left in the ring, now that every subscriber is
     * retired (each counts its share as SHUTDOWN); interrupts a loop stuck in a handler.
     */
    private void passRemainingRing(long deadline) {
        long interruptAt = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100);
        boolean interrupted = false;
        while (ring.getMinimumGatingSequence() < ring.getCursor()) {
            long now = System.nanoTime();
            if (now - deadline >= 0) {
                LOG.warn("closing with {} messages never dispatched: an event-loop handler ignores interruption",
                        ring.getCursor() - ring.getMinimumGatingSequence());
                return;
            }
            if (!interrupted && now - interruptAt >= 0) {
                interrupted = true;
                for (int i = 0; i < loops.length; i++) {
                    // Only a loop inside a handler: interrupting a waiting loop would skip a slot.
                    Thread thread = loops[i].probe().thread;
                    if (thread != null && (loops[i].probe().phaseAcquire() & 1) != 0) {
                        thread.interrupt();
                    }
                }
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
    }

    private void stopLoopThreads(long graceNanos) {
        long deadline = System.nanoTime() + graceNanos;
        for (EventLoopThread thread : loopThreads) {
            try {
                thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
                if (thread.isAlive()) {
                    LOG.warn("event loop {} did not stop: a handler ignores interruption", thread.getName());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private IllegalStateException closedException(String action) {
        return new IllegalStateException("broker '" + config.name() + "' is closed: cannot " + action);
    }

    /** Keeps event loops alive: logs what escaped a dispatch (only a VirtualMachineError can). */
    private static final class LoopExceptionHandler implements ExceptionHandler<MessageSlot> {
        @Override
        public void handleEventException(Throwable error, long sequence, MessageSlot slot) {
            LOG.error("event loop caught an error at sequence {} (subject '{}')", sequence,
                    slot == null ? null : slot.subject, error);
            if (error instanceof VirtualMachineError fatal) {
                // Out of memory or worse: let the thread's uncaught-exception policy decide
                // (ringbus-server halts the process) rather than dispatch on half dead.
                throw fatal;
            }
        }

        @Override
        public void handleOnStartException(Throwable error) {
            LOG.error("event loop failed to start", error);
        }

        @Override
        public void handleOnShutdownException(Throwable error) {
            LOG.error("event loop failed to shut down", error);
        }
    }
}
