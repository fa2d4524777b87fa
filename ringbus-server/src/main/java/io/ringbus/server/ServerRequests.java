package io.ringbus.server;

import java.util.ArrayList;
import java.util.List;

/**
 * Every kind of request ringbus-server accepts from a client: the NATS protocol's verbs, the
 * subjects the server answers itself, and the monitor's HTTP paths. The server dispatches its API
 * and its monitor from these lists, and the standing hostile-client harness ({@code bin/bench
 * hostile}) must attack each entry: a request added here without an attack fails the harness's
 * own test, so every new feature is held to the rule that what a client can make the server keep,
 * compute or reveal is bounded, counted, charged to that client and scoped.
 */
public final class ServerRequests {
    /** The NATS protocol's client verbs. */
    public static final List<String> PROTOCOL_VERBS = List.of("CONNECT", "PUB", "HPUB", "SUB", "UNSUB", "PING",
            "PONG");
    /** Prefix of the subjects the server answers itself; they are never routed to subscribers. */
    public static final String API_PREFIX = "$RB.API.";
    /** Filters on a connection's own subscriptions (docs/routing.md). */
    public static final String FILTER_API = "$RB.API.FILTER";
    /** The subjects under {@link #API_PREFIX} the server answers (any other gets a 404 reply). */
    public static final List<String> API_SUBJECTS = List.of(FILTER_API);
    /** Prefix of JetStream's API, answered by the ringbus-jetstream extension when it runs (docs/jetstream.md). */
    public static final String JETSTREAM_API_PREFIX = "$JS.API.";
    /**
     * The JetStream API requests the extension answers, without the stream name that follows
     * most of them ({@code $JS.API.STREAM.CREATE.<name>}).
     */
    public static final List<String> JETSTREAM_API_SUBJECTS = List.of("$JS.API.INFO", "$JS.API.STREAM.CREATE",
            "$JS.API.STREAM.UPDATE", "$JS.API.STREAM.INFO", "$JS.API.STREAM.DELETE", "$JS.API.STREAM.NAMES",
            "$JS.API.STREAM.LIST", "$JS.API.STREAM.MSG.GET", "$JS.API.STREAM.PURGE", "$JS.API.STREAM.MSG.DELETE",
            "$JS.API.DIRECT.GET", "$JS.API.CONSUMER.CREATE", "$JS.API.CONSUMER.DURABLE.CREATE",
            "$JS.API.CONSUMER.INFO", "$JS.API.CONSUMER.DELETE", "$JS.API.CONSUMER.NAMES", "$JS.API.CONSUMER.LIST",
            "$JS.API.CONSUMER.MSG.NEXT");
    /** Prefix of JetStream's ack subjects ({@code $JS.ACK.<stream>.<consumer>.<delivered>.<sseq>.<cseq>.<ts>.<pending>}). */
    public static final String JETSTREAM_ACK_PREFIX = "$JS.ACK.";
    /** Prefix of JetStream's flow-control answers of push consumers ({@code $JS.FC.<stream>.<consumer>.<id>}). */
    public static final String JETSTREAM_FLOW_CONTROL_PREFIX = "$JS.FC.";
    /**
     * The monitor's HTTP paths (GET). {@code /jsz} answers as a nats-server without JetStream
     * ({@code "disabled": true}) until an extension serves it (ringbus-jetstream does).
     */
    public static final List<String> MONITOR_PATHS = List.of("/", "/varz", "/connz", "/subsz", "/healthz",
            "/metrics", "/dashz", "/jsz");

    private ServerRequests() {
    }

    /** @return every request kind: the verbs, the API subjects, JetStream's, then {@code "GET " + path} for each monitor path */
    public static List<String> all() {
        List<String> all = new ArrayList<>(PROTOCOL_VERBS);
        all.addAll(API_SUBJECTS);
        all.addAll(JETSTREAM_API_SUBJECTS);
        all.add(JETSTREAM_ACK_PREFIX);
        all.add(JETSTREAM_FLOW_CONTROL_PREFIX);
        for (String path : MONITOR_PATHS) {
            all.add("GET " + path);
        }
        return List.copyOf(all);
    }
}
