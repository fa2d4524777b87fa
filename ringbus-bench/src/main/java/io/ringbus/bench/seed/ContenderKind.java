package io.ringbus.bench.seed;

import io.ringbus.core.ExecutionMode;

import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;

/** Every contender of the seed scenario, by the name used on the command line and in reports. */
public enum ContenderKind {
    /** ringbus, event-loop handlers on one event loop. */
    RINGBUS_EVENT_LOOP("ringbus-event-loop", () -> new RingbusContender("ringbus-event-loop", ExecutionMode.EVENT_LOOP, 1, 0)),
    /**
     * ringbus-event-loop with a Prometheus meter registry: what the meters cost. Every handler
     * call is timed; the other meters read the broker's counters only when scraped.
     */
    RINGBUS_EVENT_LOOP_METRICS("ringbus-event-loop-metrics",
            () -> new RingbusContender("ringbus-event-loop-metrics", ExecutionMode.EVENT_LOOP, 1, 1)),
    /** ringbus-event-loop-metrics timing one handler call in 64 ({@code handlerLatencySampling(64)}). */
    RINGBUS_EVENT_LOOP_METRICS_SAMPLED("ringbus-event-loop-metrics-sampled",
            () -> new RingbusContender("ringbus-event-loop-metrics-sampled", ExecutionMode.EVENT_LOOP, 1, 64)),
    /** ringbus, event-loop handlers spread over two event loops. */
    RINGBUS_EVENT_LOOP_2("ringbus-event-loop-2", () -> new RingbusContender("ringbus-event-loop-2", ExecutionMode.EVENT_LOOP, 2, 0)),
    /** ringbus, ordered handlers on the worker pool. */
    RINGBUS_WORKER("ringbus-worker", () -> new RingbusContender("ringbus-worker", ExecutionMode.WORKER, 1, 0)),
    /** ringbus, ordered handlers on virtual threads. */
    RINGBUS_VIRTUAL("ringbus-virtual", () -> new RingbusContender("ringbus-virtual", ExecutionMode.VIRTUAL, 1, 0)),
    /** One Disruptor, one consumer calling every subscriber inline: the practical limit. */
    DISRUPTOR_INLINE("disruptor-inline", DisruptorInlineContender::new),
    /** The seed article's broker, rebuilt from its description. */
    SEED_DESIGN("seed-design", SeedDesignContender::new),
    /** Vert.x's local event bus. */
    VERTX_EVENTBUS("vertx-eventbus", VertxEventBusContender::new),
    /** Guava's AsyncEventBus. */
    GUAVA_ASYNC_EVENTBUS("guava-async-eventbus", GuavaAsyncEventBusContender::new),
    /** A lock, a bounded deque and one dispatch thread: the textbook event bus. */
    LOCK_QUEUE("lock-queue", LockQueueContender::new);

    /** The contender every other is compared with. */
    public static final ContenderKind BASELINE = DISRUPTOR_INLINE;

    private final String label;
    private final Supplier<Contender> factory;

    ContenderKind(String label, Supplier<Contender> factory) {
        this.label = label;
        this.factory = factory;
    }

    /** @return the name used on the command line and in reports */
    public String label() {
        return label;
    }

    /** @return a new, not yet started contender */
    public Contender create() {
        return factory.get();
    }

    /**
     * @param label a contender name, e.g. {@code lock-queue}
     * @return the contender of that name
     * @throws IllegalArgumentException naming the value and the known names when unknown
     */
    public static ContenderKind byLabel(String label) {
        for (ContenderKind kind : values()) {
            if (kind.label.equals(label.trim())) {
                return kind;
            }
        }
        throw new IllegalArgumentException("unknown contender: contender='" + label + "'; known: " + labels());
    }

    /** @return every name, in report order */
    public static List<String> labels() {
        return Arrays.stream(values()).map(ContenderKind::label).toList();
    }
}
