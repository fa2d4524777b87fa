package io.ringbus.server.internal;

import io.ringbus.core.BrokerBuilder;
import io.ringbus.core.Durations;
import io.ringbus.core.WaitStrategy;
import io.ringbus.server.ServerConfig;
import io.ringbus.server.TlsProvider;
import io.ringbus.server.spi.ConfigKey;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import static io.ringbus.server.internal.ConfigFile.bool;
import static io.ringbus.server.internal.ConfigFile.integer;
import static io.ringbus.server.internal.ConfigFile.scope;
import static io.ringbus.server.internal.ConfigFile.size;
import static io.ringbus.server.internal.ConfigFile.sizeText;
import static io.ringbus.server.spi.ConfigKey.BOOLEAN;
import static io.ringbus.server.spi.ConfigKey.DURATION;
import static io.ringbus.server.spi.ConfigKey.INTEGER;
import static io.ringbus.server.spi.ConfigKey.PATH;
import static io.ringbus.server.spi.ConfigKey.SCOPE;
import static io.ringbus.server.spi.ConfigKey.SIZE;
import static io.ringbus.server.spi.ConfigKey.TEXT;

/**
 * Every key of the server's own configuration file: its description (for the generated reference,
 * {@code docs/configuration.md}) beside the code that applies it. {@link ConfigFile} reads a file
 * with this table and nothing else, so the reference cannot name a key the parser does not take,
 * nor miss one it does. Defaults are read from the builders the keys set, not restated.
 */
final class ServerConfigKeys {
    /** The server's defaults, as a builder without settings makes them. */
    private static final ServerConfig DEFAULTS = ServerConfig.builder().build();
    /** Sets the value of one key; {@code parts} are the texts that matched its name's placeholders. */
    @FunctionalInterface
    interface Setter {
        void set(ConfigTargets targets, List<String> parts, String value);
    }

    /**
     * One key: where the reference lists it, what it is, and what it sets.
     *
     * @param section the reference's section
     * @param key     its description
     * @param setter  applies a value
     */
    record Row(String section, ConfigKey key, Setter setter) {
    }

    private final List<Row> rows = new ArrayList<>();
    private String section;

    private ServerConfigKeys() {
    }

    /** @return the table, in the reference's order */
    static List<Row> rows() {
        ServerConfigKeys t = new ServerConfigKeys();
        t.network();
        t.limits();
        t.keepAliveAndAuth();
        t.credentials();
        t.tls();
        t.monitoring();
        t.broker();
        t.storage();
        t.federation();
        return List.copyOf(t.rows);
    }

    private void network() {
        section = "Network";
        add("host", TEXT, DEFAULTS.host(), "Address the client port binds: 0.0.0.0 for every interface.",
                (t, p, v) -> t.server().host(v));
        add("port", INTEGER, String.valueOf(DEFAULTS.port()), "Client port (the NATS default); 0 picks a free one.",
                (t, p, v) -> t.server().port(integer(v)));
        add("server_name", TEXT, DEFAULTS.serverName(), "The name INFO announces to clients.",
                (t, p, v) -> t.server().serverName(v));
        computed("io_threads", INTEGER, "the number of cores", "4", "Netty event loops serving connections.",
                (t, p, v) -> t.server().ioThreads(integer(v)));
    }

    private void limits() {
        section = "Limits";
        add("max_payload", SIZE, sizeText(DEFAULTS.maxPayload()), "Largest message payload a client may publish "
                + "(at most 64m); announced in INFO.", (t, p, v) -> t.server().maxPayload(Math.toIntExact(size(v))));
        add("max_pending", SIZE, sizeText(DEFAULTS.maxPending()), "Bytes queued for one slow subscriber before it is "
                + "cut off (nats-server's max_pending); at most a quarter of max_memory applies.",
                (t, p, v) -> t.server().maxPending(size(v)));
        computed("max_memory", SIZE, "a quarter of the heap (-Xmx)", "512m", "Heap for messages in transit, the one budget that "
                + "output queues and the broker's ring share; more than the heap is refused.", (t, p, v) -> t.server().maxMemory(size(v)));
        computed("max_input_buffer", SIZE, "an eighth of max_memory", "64m", "Incomplete input of all connections together; a "
                + "connection past its share is paused, not read.", (t, p, v) -> t.server().maxInputBuffer(size(v)));
        add("max_connections", INTEGER, String.valueOf(DEFAULTS.maxConnections()), "Client connections at once; "
                + "more are refused with -ERR 'maximum connections exceeded'.",
                (t, p, v) -> t.server().maxConnections(integer(v)));
        add("max_subscriptions", INTEGER, String.valueOf(DEFAULTS.maxSubscriptions()), "Subscriptions of one "
                + "connection.", (t, p, v) -> t.server().maxSubscriptions(integer(v)));
        computed("max_subscription_memory", SIZE, "a quarter of the heap (-Xmx)", "512m", "Heap all subscriptions may hold "
                + "together.", (t, p, v) -> t.server().maxSubscriptionMemory(size(v)));
        add("max_filters", INTEGER, String.valueOf(DEFAULTS.maxFilters()), "Content filters ($RB.API.FILTER) "
                + "per connection (docs/routing.md).", (t, p, v) -> t.server().maxFilters(integer(v)));
        add("max_filter_bytes", SIZE, sizeText(DEFAULTS.maxFilterBytes()), "Filter policy text per connection; "
                + "all connections together: a sixty-fourth of max_memory.",
                (t, p, v) -> t.server().maxFilterBytes(size(v)));
    }

    private void keepAliveAndAuth() {
        section = "Keep-alive and authentication";
        add("ping_interval", DURATION, Durations.format(DEFAULTS.pingInterval()), "How often the server PINGs an "
                + "idle client.", (t, p, v) -> t.server().pingInterval(Durations.parse(v)));
        add("max_pings_out", INTEGER, String.valueOf(DEFAULTS.maxPingsOut()), "Unanswered PINGs before the "
                + "connection is closed as stale.", (t, p, v) -> t.server().maxPingsOut(integer(v)));
        add("auth_timeout", DURATION, Durations.format(DEFAULTS.authTimeout()), "Time a new connection has to send "
                + "CONNECT.", (t, p, v) -> t.server().authTimeout(Durations.parse(v)));
        add("write_deadline", DURATION, Durations.format(DEFAULTS.writeDeadline()), "How long a write to a client "
                + "may stay blocked before the client is cut off as a slow consumer.",
                (t, p, v) -> t.server().writeDeadline(Durations.parse(v)));
        add("authenticator_timeout", DURATION, Durations.format(DEFAULTS.authenticatorTimeout()), "How long a "
                + "bcrypt check or the authentication plug-in may take, its wait for a thread included.",
                (t, p, v) -> t.server().authenticatorTimeout(Durations.parse(v)));
        computed("auth_check_threads", INTEGER, "half the cores, at least 1", "2", "Threads for costly credential checks "
                + "(bcrypt).", (t, p, v) -> t.server().authCheckThreads(integer(v)));
        add("auth_checks_per_source", INTEGER, String.valueOf(DEFAULTS.authChecksPerSource()), "Costly checks "
                + "waiting per remote address; more are refused at once (authenticator_busy).",
                (t, p, v) -> t.server().authChecksPerSource(integer(v)));
        add("no_auth_scope", SCOPE, DEFAULTS.noAuthScope().name(), "The scope of clients when no credential is "
                + "configured.", (t, p, v) -> t.server().noAuthScope(scope(v)));
    }

    private void credentials() {
        section = "Scopes, credentials and permissions";
        example("subject.<pattern>", SCOPE, "FEDERATED", "The scope of the subjects a pattern matches "
                + "(docs/routing.md); e.g. subject.billing.> = FEDERATED.",
                (t, p, v) -> t.subjects().put(p.getFirst(), scope(v)));
        example("token.<token>", SCOPE, "PUBLIC", "A client authenticating with this token gets this scope.",
                (t, p, v) -> t.server().token(p.getFirst(), scope(v)));
        example("user.<name>", "<password>:<SCOPE>", "wonderland:PRIVATE", "A user, its password (plain or a "
                + "bcrypt hash $2a$...) and its scope.", (t, p, v) -> {
                    int colon = v.lastIndexOf(':');
                    if (colon <= 0) {
                        throw new IllegalArgumentException("expected <password>:<SCOPE>");
                    }
                    t.server().user(p.getFirst(), v.substring(0, colon), scope(v.substring(colon + 1)));
                });
        example("nkey.<public key U...>", SCOPE, "PUBLIC", "An NKEY (Ed25519) user: it signs the server's nonce, "
                + "no secret crosses the wire.", (t, p, v) -> t.server().nkey(p.getFirst(), scope(v)));
        example("permissions.<user or token>.publish.allow", "patterns, comma-separated", "orders.>, _INBOX.>",
                "Subjects it may publish to (within its scope); absent: all.",
                (t, p, v) -> t.permissionsOf(p.getFirst()).publishAllow(list(v)));
        example("permissions.<user or token>.publish.deny", "patterns, comma-separated", "orders.secret.*",
                "Subjects it may not publish to.", (t, p, v) -> t.permissionsOf(p.getFirst()).publishDeny(list(v)));
        example("permissions.<user or token>.subscribe.allow", "patterns, comma-separated, each with an optional "
                + "queue", "orders.>, jobs.* workers", "Subjects (and queue groups) it may subscribe to; absent: all.",
                (t, p, v) -> t.permissionsOf(p.getFirst()).subscribeAllow(list(v)));
        example("permissions.<user or token>.subscribe.deny", "patterns, comma-separated", "orders.secret.*",
                "Subjects it may not subscribe to.",
                (t, p, v) -> t.permissionsOf(p.getFirst()).subscribeDeny(list(v)));
        example("permissions.<user or token>.allow_responses", "true | false | <max>[,<expires>]", "5,1m",
                "Lets it publish to reply subjects of requests it received: true is 1 reply within 2m.",
                (t, p, v) -> t.permissionsOf(p.getFirst()).allowResponses(ConfigFile.responses(v)));
    }

    private void tls() {
        section = "TLS";
        example("tls.cert_file", PATH, "/etc/ringbus/server.pem", "The server's certificate chain (PEM); with "
                + "tls.key_file every client must use TLS.", (t, p, v) -> t.server().tlsCertFile(Path.of(v)));
        example("tls.key_file", PATH, "/etc/ringbus/server.key", "The server's private key (PEM, PKCS#8).",
                (t, p, v) -> t.server().tlsKeyFile(Path.of(v)));
        example("tls.ca_file", PATH, "/etc/ringbus/ca.pem", "CA certificates that sign client certificates.",
                (t, p, v) -> t.server().tlsCaFile(Path.of(v)));
        add("tls.verify", BOOLEAN, String.valueOf(DEFAULTS.tlsVerify()), "Require a client certificate signed by "
                + "tls.ca_file (mutual TLS).", (t, p, v) -> t.server().tlsVerify(bool(v)));
        add("tls.verify_and_map", BOOLEAN, String.valueOf(DEFAULTS.tlsVerifyAndMap()), "As tls.verify, and the "
                + "certificate's subject names the user (docs/server.md).",
                (t, p, v) -> t.server().tlsVerifyAndMap(bool(v)));
        add("tls.handshake_first", BOOLEAN, String.valueOf(DEFAULTS.tlsHandshakeFirst()), "TLS before INFO, for "
                + "clients that expect it.", (t, p, v) -> t.server().tlsHandshakeFirst(bool(v)));
        add("tls.timeout", DURATION, Durations.format(DEFAULTS.tlsTimeout()), "Time a TLS handshake may take.",
                (t, p, v) -> t.server().tlsTimeout(Durations.parse(v)));
        add("tls.provider", "auto | openssl | jdk", DEFAULTS.tlsProvider().name().toLowerCase(Locale.ROOT),
                "TLS engine: auto uses OpenSSL where it loads.", (t, p, v) -> t.server().tlsProvider(TlsProvider.parse(v)));
    }

    private void monitoring() {
        section = "Monitoring";
        add("http_host", TEXT, DEFAULTS.monitorHost(), "Address the monitoring port binds.",
                (t, p, v) -> t.server().monitorHost(v));
        add("http_port", INTEGER, String.valueOf(DEFAULTS.monitorPort()), "Dashboard, /varz, /connz, /subsz, "
                + "/jsz, /healthz, /metrics over HTTP; -1 turns it off, 0 picks a free port.",
                (t, p, v) -> t.server().monitorPort(integer(v)).monitorTls(false));
        example("https_port", INTEGER, "8443", "The monitoring port over HTTPS instead, with the tls.* certificate.",
                (t, p, v) -> t.server().monitorPort(integer(v)).monitorTls(true));
    }

    private void broker() {
        section = "The broker behind the server";
        add("broker.ring_size", INTEGER, String.valueOf(StandaloneBroker.RING_SIZE), "Slots of the ring that "
                + "carries in-process subscribers' messages (a power of two).",
                (t, p, v) -> t.broker().ringSize(integer(v)));
        add("broker.event_loops", INTEGER, String.valueOf(BrokerBuilder.DEFAULT_EVENT_LOOPS), "Threads that "
                + "consume the ring.", (t, p, v) -> t.broker().eventLoops(integer(v)));
        add("broker.worker_pool_size", INTEGER, String.valueOf(BrokerBuilder.DEFAULT_WORKER_POOL_SIZE), "Threads "
                + "for in-process handlers that may block (WORKER mode).",
                (t, p, v) -> t.broker().workerPoolSize(integer(v)));
        add("broker.wait_strategy", "BLOCKING | SLEEPING | YIELDING | BUSY_SPIN",
                StandaloneBroker.WAIT_STRATEGY.name(), "How an idle ring's event loop waits: BLOCKING costs no CPU.",
                (t, p, v) -> t.broker().waitStrategy(waitStrategy(v)));
        add("broker.default_scope", SCOPE, StandaloneBroker.DEFAULT_SCOPE.name(), "The scope of subjects no "
                + "subject.<pattern> names.", (t, p, v) -> {
                    t.broker().defaultScope(scope(v));
                    t.storage().defaultScope(scope(v));
                });
        add("broker.shutdown_timeout", DURATION, Durations.format(BrokerBuilder.DEFAULT_SHUTDOWN_TIMEOUT), "How long "
                + "a stop waits for handlers to drain.", (t, p, v) -> t.broker().shutdownTimeout(Durations.parse(v)));
    }

    private void storage() {
        section = "Storage (durable subjects, JetStream streams)";
        add("storage.dir", PATH, StorageSettings.DEFAULT_DIR.toString(), "Where streams are stored, under the "
                + "working directory unless absolute; opened (and locked: one server per directory) at start "
                + "when JetStream's API is on, the default, or a subject is durable.",
                (t, p, v) -> t.storage().dir(Path.of(v)));
        add("storage.fsync", "always | interval | os", "always", "When stored messages are forced to the disk "
                + "before they are acknowledged (docs/storage.md).", (t, p, v) -> t.storage().policy(v));
        add("storage.fsync_interval", DURATION, Durations.format(StorageSettings.DEFAULT_FSYNC_INTERVAL),
                "The force interval of storage.fsync=interval.", (t, p, v) -> t.storage().interval(v));
        computed("storage.max_bytes", SIZE, "what the store holds at start plus 75% of the free disk", "10g", "The most bytes "
                + "all streams keep together (JetStream's max_file_store).", (t, p, v) -> t.storage().maxBytes(v));
        computed("storage.max_memory", SIZE, "three quarters of the machine's memory", "1g", "The most bytes memory streams "
                + "keep together (JetStream's max_memory_store).", (t, p, v) -> t.storage().maxMemory(v));
        example("storage.jetstream", "NATS URLs, comma-separated", "nats://127.0.0.1:4222", "Keep durable subjects "
                + "in this JetStream instead of the local log (needs ringbus-federation).",
                (t, p, v) -> t.storage().jetStream(v));
        example("storage.durable.<pattern>", "[SCOPE] [word=value ...] (below)", "PUBLIC max_age=168h",
                "Makes the subjects a pattern matches durable: stored, then acknowledged (docs/storage.md).",
                (t, p, v) -> t.storage().durable(p.getFirst(), v));
    }

    private void federation() {
        section = "Federation (docs/federation.md)";
        example("federation.servers", "NATS URLs, comma-separated", "nats://a:4222,nats://b:4222", "The NATS "
                + "servers this node shares its PUBLIC and FEDERATED subjects through.",
                (t, p, v) -> t.federation().servers(v));
        example("federation.user", "<user>:<password>", "ringbus:secret", "The link's credentials.",
                (t, p, v) -> t.federation().user(v));
        example("federation.token", TEXT, "s3cr3t", "The link's token, instead of a user.",
                (t, p, v) -> t.federation().token(v));
        example("federation.ca_file", PATH, "/etc/ringbus/nats-ca.pem", "TLS to the servers, trusting this CA.",
                (t, p, v) -> t.federation().caFile(Path.of(v)));
        computed("federation.reconnect_wait", DURATION, "2s (jnats')", "2s", "Wait between reconnect attempts.",
                (t, p, v) -> t.federation().reconnectWait(v));
        computed("federation.max_reconnects", INTEGER, "60 (jnats')", "-1", "Reconnect attempts before the link "
                + "gives up; -1 for ever.", (t, p, v) -> t.federation().maxReconnects(integer(v)));
    }

    private void add(String name, String type, String defaultValue, String description, Setter setter) {
        rows.add(new Row(section, ConfigKey.of(name, type, defaultValue, description), setter));
    }

    /** A key whose default is computed (from the cores, the heap ...): the sample file shows {@code example}. */
    private void computed(String name, String type, String defaultWords, String example, String description,
                          Setter setter) {
        rows.add(new Row(section, new ConfigKey(name, type, defaultWords, example, description), setter));
    }

    /** A key without a default: the sample file shows {@code example}, commented out. */
    private void example(String name, String type, String example, String description, Setter setter) {
        rows.add(new Row(section, new ConfigKey(name, type, "", example, description), setter));
    }

    private static String[] list(String value) {
        return value.isEmpty() ? new String[0] : value.split("\\s*,\\s*");
    }

    private static WaitStrategy waitStrategy(String value) {
        try {
            return WaitStrategy.valueOf(value.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("not a wait strategy (BLOCKING, SLEEPING, YIELDING, BUSY_SPIN): '"
                    + value + "'");
        }
    }
}
