package io.ringbus.server.internal;

import io.ringbus.core.BrokerBuilder;
import io.ringbus.core.Durations;
import io.ringbus.core.Scope;
import io.ringbus.core.WaitStrategy;
import io.ringbus.server.ServerConfig;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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
 * ping_interval, max_pings_out, auth_timeout, write_deadline,    durations ({@link Durations}): 500ms, 2s, 2m, 1h
 * no_auth_scope                                                   PUBLIC | FEDERATED | PRIVATE | ROOT
 * http_host, http_port                                            monitoring; http_port=-1 turns it off
 * broker.ring_size, broker.event_loops, broker.worker_pool_size,
 * broker.wait_strategy, broker.default_scope, broker.shutdown_timeout
 * subject.&lt;pattern&gt; = SCOPE        token.&lt;token&gt; = SCOPE        user.&lt;name&gt; = &lt;password&gt;:SCOPE
 * </pre>
 */
public final class ConfigFile {
    private static final Pattern SIZE = Pattern.compile("(\\d+)([kmg]?)b?");

    private final Path path;
    private final Map<String, Scope> subjects = new LinkedHashMap<>();

    private ConfigFile(Path path) {
        this.path = path;
    }

    /**
     * Reads a file and applies it to the builders.
     *
     * @return the subject scopes the file registers, in file order
     * @throws IllegalArgumentException naming the file, key and value on any bad entry
     * @throws IOException              when the file cannot be read
     */
    public static Map<String, Scope> apply(Path path, ServerConfig.Builder server, BrokerBuilder broker)
            throws IOException {
        Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(path, StandardCharsets.UTF_8)) {
            properties.load(reader);
        }
        ConfigFile file = new ConfigFile(path);
        for (String key : properties.stringPropertyNames()) {
            String value = properties.getProperty(key).trim();
            try {
                file.applyOne(key, value, server, broker);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(path + ": " + key + "=" + value + ": " + e.getMessage(), e);
            }
        }
        return file.subjects;
    }

    private void applyOne(String key, String value, ServerConfig.Builder server, BrokerBuilder broker) {
        if (key.startsWith("subject.")) {
            subjects.put(key.substring("subject.".length()), scope(value));
            return;
        }
        if (key.startsWith("token.")) {
            server.token(key.substring("token.".length()), scope(value));
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
            case "max_connections" -> server.maxConnections(integer(value));
            case "max_subscriptions" -> server.maxSubscriptions(integer(value));
            case "ping_interval" -> server.pingInterval(Durations.parse(value));
            case "max_pings_out" -> server.maxPingsOut(integer(value));
            case "auth_timeout" -> server.authTimeout(Durations.parse(value));
            case "write_deadline" -> server.writeDeadline(Durations.parse(value));
            case "no_auth_scope" -> server.noAuthScope(scope(value));
            case "http_host" -> server.monitorHost(value);
            case "http_port" -> server.monitorPort(integer(value));
            case "broker.ring_size" -> broker.ringSize(integer(value));
            case "broker.event_loops" -> broker.eventLoops(integer(value));
            case "broker.worker_pool_size" -> broker.workerPoolSize(integer(value));
            case "broker.wait_strategy" -> broker.waitStrategy(WaitStrategy.valueOf(value.toUpperCase(Locale.ROOT)));
            case "broker.default_scope" -> broker.defaultScope(scope(value));
            case "broker.shutdown_timeout" -> broker.shutdownTimeout(Durations.parse(value));
            default -> throw new IllegalArgumentException("unknown key (see docs/server.md) in " + path);
        }
    }

    static Scope scope(String value) {
        try {
            return Scope.valueOf(value.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("not a scope (PUBLIC, FEDERATED, PRIVATE, ROOT): '" + value + "'");
        }
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
