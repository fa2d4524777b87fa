package io.ringbus.bench.jetstream;

import java.util.Locale;

/**
 * The cases of the jetstream scenario (issue 26's benchmark), each one measured step of jsbench
 * run the same way against both servers, and the goal issue 26 sets for it.
 */
enum JsCase {
    /** {@code js.PublishMsgAsync}, window 1,000, a Nats-Msg-Id per message, 128 B. */
    ASYNC_128("async-128", "async publish 128 B", Kind.ASYNC_PUBLISH),
    /** The same with 1 KiB. */
    ASYNC_1K("async-1k", "async publish 1 KiB", Kind.ASYNC_PUBLISH),
    /**
     * {@value #MANY_PUBLISHERS} publishers at once into the one stream, 128 B, each on its own
     * connection with its own window: durable appends under many publishers (issue 27).
     */
    ASYNC_128_MANY("async-128-8pubs", "async publish 128 B, 8 publishers", Kind.ASYNC_PUBLISH),
    /** {@code js.PublishMsg}, one at a time, 128 B. */
    SYNC_128("sync-128", "sync publish 128 B", Kind.SYNC_PUBLISH),
    /** A durable pull consumer, fetch + explicit ack of each message. */
    PULL_ACK("pull-ack", "pull fetch + ack", Kind.READ),
    /** A durable push consumer, ack none, flow control, from the first message. */
    PUSH_REPLAY("push-replay", "push consumer replay", Kind.READ),
    /** nats.go's ordered consumer from the first message. */
    ORDERED_REPLAY("ordered-replay", "ordered consumer replay", Kind.READ),
    /** {@code kv.Put} one at a time. */
    KV_PUT("kv-put", "KV put 128 B", Kind.KV_PUT),
    /** {@code kv.Get} one at a time. */
    KV_GET("kv-get", "KV get 128 B", Kind.READ);

    /** The publishers of {@link #ASYNC_128_MANY}. */
    static final int MANY_PUBLISHERS = 8;

    /** What a case does to the store, which decides its goal. */
    enum Kind { ASYNC_PUBLISH, SYNC_PUBLISH, KV_PUT, READ }

    private final String id;
    private final String label;
    private final Kind kind;

    JsCase(String id, String label, Kind kind) {
        this.id = id;
        this.label = label;
        this.kind = kind;
    }

    /** @return its name in {@code --only} and the JSON, e.g. {@code async-128} */
    String id() {
        return id;
    }

    /** @return its name in tables */
    String label() {
        return label;
    }

    /** @return what it does to the store */
    Kind kind() {
        return kind;
    }

    /** @return whether it reads the stream that a fill wrote */
    boolean readsFill() {
        return this == PULL_ACK || this == PUSH_REPLAY || this == ORDERED_REPLAY;
    }

    /**
     * @param name an {@link #id()} or a constant's name, any case ({@code async-128}, {@code ASYNC_128})
     * @return the case
     * @throws IllegalArgumentException naming the value when it is no case
     */
    static JsCase byName(String name) {
        String wanted = name.strip().toLowerCase(Locale.ROOT).replace('_', '-');
        for (JsCase c : values()) {
            if (c.id.equals(wanted)) {
                return c;
            }
        }
        StringBuilder ids = new StringBuilder();
        for (JsCase c : values()) {
            ids.append(ids.isEmpty() ? "" : ", ").append(c.id);
        }
        throw new IllegalArgumentException("unknown case (" + ids + "): case='" + name + "'");
    }
}
