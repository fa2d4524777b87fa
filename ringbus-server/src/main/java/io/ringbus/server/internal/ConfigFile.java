package io.ringbus.server.internal;

import io.ringbus.core.BrokerBuilder;
import io.ringbus.core.Durations;
import io.ringbus.core.Scope;
import io.ringbus.core.WaitStrategy;
import io.ringbus.server.Permissions;
import io.ringbus.server.ServerConfig;
import io.ringbus.server.TlsProvider;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The server's configuration file: Java properties (documented in docs/server.md). Every key is
 * checked; an unknown key or a bad value fails with a message naming the key, the value and the
 * file.
 *
 * <pre>
 * host, port, server_name, io_threads,
 * max_payload, max_pending, max_connections, max_subscriptions,   sizes accept k/m/g suffixes
 * max_filters, max_filter_bytes                                   content filters per connection ($RB.API.FILTER)
 * max_subscription_memory                                         heap all subscriptions may hold (size)
 * ping_interval, max_pings_out, auth_timeout, write_deadline,    durations ({@link Durations}): 500ms, 2s, 2m, 1h
 * no_auth_scope                                                   PUBLIC | FEDERATED | PRIVATE | ROOT
 * authenticator_timeout (duration), auth_check_threads,           costly credential checks (bcrypt): see
 * auth_checks_per_source                                          {@link ServerConfig.Builder#authChecksPerSource}
 * http_host, http_port                                            monitoring; http_port=-1 turns it off
 * https_port                                                      monitoring over HTTPS (the tls.* material)
 * tls.cert_file, tls.key_file, tls.ca_file                        PEM files (key: PKCS#8); TLS required
 * tls.verify, tls.verify_and_map, tls.handshake_first            true | false
 * tls.timeout                                                     duration of the TLS handshake (2s)
 * tls.provider                                                    auto | openssl | jdk (auto: OpenSSL where it loads)
 * broker.ring_size, broker.event_loops, broker.worker_pool_size,
 * broker.wait_strategy, broker.default_scope, broker.shutdown_timeout
 * subject.&lt;pattern&gt; = SCOPE        token.&lt;token&gt; = SCOPE        user.&lt;name&gt; = &lt;password&gt;:SCOPE
 * nkey.&lt;user public key U...&gt; = SCOPE                           NKEY (Ed25519) users, no secret on the wire
 * permissions.&lt;user or token&gt;.publish.allow / .publish.deny / .subscribe.allow / .subscribe.deny = comma-separated
 *     patterns (subscribe entries may add " queue"); permissions.&lt;user or token&gt;.allow_responses = true | false |
 *     &lt;max&gt;[,&lt;expires&gt;]   see {@link io.ringbus.server.Permissions}
 * storage.dir, storage.fsync (always | interval | os), storage.fsync_interval, storage.max_bytes (SIZE),
 * storage.jetstream (NATS URLs)
 * federation.servers (NATS URLs), federation.user (user:password), federation.token, federation.ca_file,
 * federation.reconnect_wait, federation.max_reconnects  see {@link FederationSettings}
 * storage.durable.&lt;pattern&gt; = [SCOPE] [name=..] [max_age=..] [max_bytes=..] [max_messages=..]  see {@link StorageSettings}
 * </pre>
 */
public final class ConfigFile {
    private static final String[] PERMISSION_KEYS = {
        "publish.allow", "publish.deny", "subscribe.allow", "subscribe.deny", "allow_responses"};
    private static final Pattern SIZE = Pattern.compile("(\\d+)([kmg]?)b?");

    private final Path path;
    private final Map<String, Scope> subjects = new LinkedHashMap<>();
    private final Map<String, Permissions.Builder> permissions = new LinkedHashMap<>();

    private ConfigFile(Path path) {
        this.path = path;
    }

    /**
     * Reads a file and applies it to the builders.
     *
     * @param path    the file
     * @param server  gets the server's settings
     * @param broker  gets the {@code broker.*} settings
     * @param storage gets the {@code storage.*} settings and durable subjects
     * @return the subject scopes the file registers, in file order
     * @throws IllegalArgumentException naming the file, key and value on any bad entry
     * @throws IOException              when the file cannot be read
     */
    public static Map<String, Scope> apply(Path path, ServerConfig.Builder server, BrokerBuilder broker,
                                           StorageSettings storage) throws IOException {
        return apply(path, server, broker, storage, new FederationSettings());
    }

    /**
     * Reads a file and applies it to the builders, {@code federation.*} included.
     *
     * @param path       the file
     * @param server     gets the server's settings
     * @param broker     gets the {@code broker.*} settings
     * @param storage    gets the {@code storage.*} settings and durable subjects
     * @param federation gets the {@code federation.*} settings
     * @return the subject scopes the file registers, in file order
     * @throws IllegalArgumentException naming the file, key and value on any bad entry
     * @throws IOException              when the file cannot be read
     */
    public static Map<String, Scope> apply(Path path, ServerConfig.Builder server, BrokerBuilder broker,
                                           StorageSettings storage, FederationSettings federation)
            throws IOException {
        Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(path, StandardCharsets.UTF_8)) {
            properties.load(reader);
        }
        ConfigFile file = new ConfigFile(path);
        for (String key : properties.stringPropertyNames()) {
            String value = properties.getProperty(key).trim();
            try {
                file.applyOne(key, value, server, broker, storage, federation);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(path + ": " + key + "=" + value + ": " + e.getMessage(), e);
            }
        }
        file.permissions.forEach((name, builder) -> server.permissions(name, builder.build()));
        return file.subjects;
    }

    /** {@code permissions.<name>.<list>}: the name may hold dots, so the list is taken from the end. */
    private void permission(String key, String value) {
        String rest = key.substring("permissions.".length());
        for (String list : PERMISSION_KEYS) {
            if (rest.endsWith("." + list) && rest.length() > list.length() + 1) {
                String name = rest.substring(0, rest.length() - list.length() - 1);
                Permissions.Builder builder = permissions.computeIfAbsent(name, n -> Permissions.builder());
                String[] entries = value.isEmpty() ? new String[0] : value.split("\\s*,\\s*");
                switch (list) {
                    case "publish.allow" -> builder.publishAllow(entries);
                    case "publish.deny" -> builder.publishDeny(entries);
                    case "subscribe.allow" -> builder.subscribeAllow(entries);
                    case "subscribe.deny" -> builder.subscribeDeny(entries);
                    default -> builder.allowResponses(responses(value));
                }
                return;
            }
        }
        throw new IllegalArgumentException("expected permissions.<user or token>." + String.join(" | ", PERMISSION_KEYS));
    }

    /** {@code true} | {@code false} | {@code <max>[,<expires>]} (max 0: the default 1; negative: unlimited). */
    static Permissions.Responses responses(String value) {
        if (value.equalsIgnoreCase("true")) {
            return Permissions.Responses.DEFAULT;
        }
        if (value.equalsIgnoreCase("false")) {
            return null;
        }
        String[] parts = value.split("\\s*,\\s*");
        if (parts.length > 2) {
            throw new IllegalArgumentException("expected true | false | <max>[,<expires>]");
        }
        int max = integer(parts[0]);
        return new Permissions.Responses(max == 0 ? Permissions.Responses.DEFAULT.maxMessages() : max,
                parts.length == 1 ? Permissions.Responses.DEFAULT.expires()
                        : parts[1].equals("0") ? Duration.ZERO : Durations.parse(parts[1]));
    }

    private void applyOne(String key, String value, ServerConfig.Builder server, BrokerBuilder broker,
                          StorageSettings storage, FederationSettings federation) {
        if (key.startsWith("storage.durable.")) {
            storage.durable(key.substring("storage.durable.".length()), value);
            return;
        }
        if (key.startsWith("subject.")) {
            subjects.put(key.substring("subject.".length()), scope(value));
            return;
        }
        if (key.startsWith("nkey.")) {
            server.nkey(key.substring("nkey.".length()), scope(value));
            return;
        }
        if (key.startsWith("token.")) {
            server.token(key.substring("token.".length()), scope(value));
            return;
        }
        if (key.startsWith("permissions.")) {
            permission(key, value);
            return;
        }
        if (key.startsWith("user.")) {
            int colon = value.lastIndexOf(':');
            if (colon <= 0) {
                throw new IllegalArgumentException("expected <password>:<SCOPE>");
            }
            server.user(key.substring("user.".length()), value.substring(0, colon), scope(value.substring(colon + 1)));
            return;
        }
        switch (key) {
            case "host" -> server.host(value);
            case "port" -> server.port(integer(value));
            case "server_name" -> server.serverName(value);
            case "io_threads" -> server.ioThreads(integer(value));
            case "max_payload" -> server.maxPayload(Math.toIntExact(size(value)));
            case "max_pending" -> server.maxPending(size(value));
            case "max_input_buffer" -> server.maxInputBuffer(size(value));
            case "max_memory" -> server.maxMemory(size(value));
            case "max_connections" -> server.maxConnections(integer(value));
            case "max_subscriptions" -> server.maxSubscriptions(integer(value));
            case "max_filters" -> server.maxFilters(integer(value));
            case "max_filter_bytes" -> server.maxFilterBytes(size(value));
            case "max_subscription_memory" -> server.maxSubscriptionMemory(size(value));
            case "ping_interval" -> server.pingInterval(Durations.parse(value));
            case "max_pings_out" -> server.maxPingsOut(integer(value));
            case "auth_timeout" -> server.authTimeout(Durations.parse(value));
            case "authenticator_timeout" -> server.authenticatorTimeout(Durations.parse(value));
            case "auth_check_threads" -> server.authCheckThreads(integer(value));
            case "auth_checks_per_source" -> server.authChecksPerSource(integer(value));
            case "write_deadline" -> server.writeDeadline(Durations.parse(value));
            case "no_auth_scope" -> server.noAuthScope(scope(value));
            case "http_host" -> server.monitorHost(value);
            case "http_port" -> server.monitorPort(integer(value)).monitorTls(false);
            case "https_port" -> server.monitorPort(integer(value)).monitorTls(true);
            case "tls.cert_file" -> server.tlsCertFile(Path.of(value));
            case "tls.key_file" -> server.tlsKeyFile(Path.of(value));
            case "tls.ca_file" -> server.tlsCaFile(Path.of(value));
            case "tls.verify" -> server.tlsVerify(bool(value));
            case "tls.verify_and_map" -> server.tlsVerifyAndMap(bool(value));
            case "tls.handshake_first" -> server.tlsHandshakeFirst(bool(value));
            case "tls.timeout" -> server.tlsTimeout(Durations.parse(value));
            case "tls.provider" -> server.tlsProvider(TlsProvider.parse(value));
            case "broker.ring_size" -> broker.ringSize(integer(value));
            case "broker.event_loops" -> broker.eventLoops(integer(value));
            case "broker.worker_pool_size" -> broker.workerPoolSize(integer(value));
            case "broker.wait_strategy" -> broker.waitStrategy(WaitStrategy.valueOf(value.toUpperCase(Locale.ROOT)));
            case "broker.default_scope" -> {
                broker.defaultScope(scope(value));
                storage.defaultScope(scope(value));
            }
            case "federation.servers" -> federation.servers(value);
            case "federation.user" -> federation.user(value);
            case "federation.token" -> federation.token(value);
            case "federation.ca_file" -> federation.caFile(Path.of(value));
            case "federation.reconnect_wait" -> federation.reconnectWait(value);
            case "federation.max_reconnects" -> federation.maxReconnects(integer(value));
            case "storage.dir" -> storage.dir(Path.of(value));
            case "storage.jetstream" -> storage.jetStream(value);
            case "storage.fsync" -> storage.policy(value);
            case "storage.fsync_interval" -> storage.interval(value);
            case "storage.max_bytes" -> storage.maxBytes(value);
            case "storage.max_memory" -> storage.maxMemory(value);
            case "broker.shutdown_timeout" -> broker.shutdownTimeout(Durations.parse(value));
            default -> {
                int dot = key.indexOf('.');
                if (dot <= 0 || !server.extensionNames().contains(key.substring(0, dot))) {
                    throw new IllegalArgumentException("unknown key (see docs/server.md) in " + path);
                }
                server.extensionSetting(key, value); // an extension's own key (jetstream.*): it checks it
            }
        }
    }

    static Scope scope(String value) {
        try {
            return Scope.valueOf(value.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("not a scope (PUBLIC, FEDERATED, PRIVATE, ROOT): '" + value + "'");
        }
    }

    static boolean bool(String value) {
        return switch (value.toLowerCase(Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new IllegalArgumentException("not a boolean (true, false): '" + value + "'");
        };
    }

    static int integer(String value) {
        try {
            return Integer.parseInt(value.replace("_", ""));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not an integer: '" + value + "'");
        }
    }

    /** Parses {@code 1048576}, {@code 64k}, {@code 64m}, {@code 1g} (binary units). */
    static long size(String value) {
        Matcher m = SIZE.matcher(value.trim().toLowerCase(Locale.ROOT).replace("_", ""));
        if (!m.matches()) {
            throw new IllegalArgumentException("not a size (e.g. 1048576, 64k, 64m): '" + value + "'");
        }
        long n = Long.parseLong(m.group(1));
        return switch (m.group(2)) {
            case "k" -> n << 10;
            case "m" -> n << 20;
            case "g" -> n << 30;
            default -> n;
        };
    }
}
