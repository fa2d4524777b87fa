package io.ringbus.server.internal;

import io.ringbus.core.Broker;
import io.ringbus.core.Durations;
import io.ringbus.core.FsyncPolicy;
import io.ringbus.core.Scope;
import io.ringbus.core.Storage;
import io.ringbus.core.StoredStream;
import io.ringbus.core.StreamConfig;
import io.ringbus.core.spi.StorageProvider;
import io.ringbus.server.spi.ConfigKey;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * The standalone server's store and durable subjects, as the configuration file
 * ({@code storage.*}) and the command line ({@code --storage-dir}, {@code --fsync},
 * {@code --fsync-interval}, {@code --durable}) set them. Mutable, single-threaded: filled while
 * the server starts, then {@link #open() opened} and {@link #register registered}.
 *
 * <p>A durable subject is a pattern and a spec, the same in the file and on the command line:
 *
 * <pre>
 * storage.durable.&lt;pattern&gt; = [SCOPE] [name=NAME] [max_age=DURATION] [max_bytes=SIZE]
 *                               [max_messages=N] [max_messages_per_subject=N] [duplicate_window=DURATION]
 *                               [duplicate_window_bytes=SIZE] [key_dedup_bytes=SIZE]
 * --durable '&lt;pattern&gt;[=&lt;spec&gt;]'
 * </pre>
 *
 * <p>Words are separated by spaces or commas. Without a SCOPE the pattern keeps the scope its
 * subjects have ({@code subject.<pattern>}, else {@code broker.default_scope}); without a name
 * the stream is named after the pattern ({@code orders.>} is {@code orders_all}); limits are
 * unlimited unless given.
 */
public final class StorageSettings {
    /** The store's directory unless set: {@code data} under the working directory ({@code bin/run}: the checkout). */
    public static final Path DEFAULT_DIR = Path.of("data");
    /** The force interval of {@link FsyncPolicy#INTERVAL} unless set. */
    public static final Duration DEFAULT_FSYNC_INTERVAL = Duration.ofMillis(100);
    /** The words of a durable spec after its scope, for the configuration reference and the error that lists them. */
    public static final List<ConfigKey> SPEC_WORDS = List.of(
            ConfigKey.of("name", ConfigKey.TEXT, "the pattern's, orders.> is orders_all", "The stream's name."),
            ConfigKey.of("max_age", ConfigKey.DURATION, "unlimited", "Messages older than this are removed."),
            ConfigKey.of("max_bytes", ConfigKey.SIZE, "unlimited", "The stream's most bytes; the oldest go first."),
            ConfigKey.of("max_messages", ConfigKey.INTEGER, "unlimited", "The stream's most messages."),
            ConfigKey.of("max_messages_per_subject", ConfigKey.INTEGER, "unlimited", "The most messages kept per "
                    + "subject."),
            ConfigKey.of("duplicate_window", ConfigKey.DURATION, Durations.format(StreamConfig.DEFAULT_DUPLICATE_WINDOW),
                    "How long a Nats-Msg-Id is remembered: a repeat within it is acknowledged, not stored."),
            ConfigKey.of("duplicate_window_bytes", ConfigKey.SIZE,
                    ConfigFile.sizeText(StreamConfig.DEFAULT_DUPLICATE_WINDOW_BYTES), "The memory the duplicate "
                    + "window's ids may take."),
            ConfigKey.of("key_dedup_bytes", ConfigKey.SIZE, "0 (off)", "Per-key outbox ids, opt-in: the memory "
                    + "they may take (4m is a good start); a message with Ringbus-Key and a Ringbus-Event-Id whose "
                    + "number is not above its key's last is a duplicate with no time window (docs/outbox.md)."));

    private Path dir = DEFAULT_DIR;
    private FsyncPolicy policy = FsyncPolicy.ALWAYS;
    private Duration interval = DEFAULT_FSYNC_INTERVAL;
    private long maxBytes = -1;
    private long maxMemory = -1;
    private Scope defaultScope = Scope.PUBLIC;
    private String jetStream;
    private StorageProvider jetStreamProvider;
    private final Map<String, Durable> durables = new LinkedHashMap<>();

    /**
     * One durable subject pattern.
     *
     * @param stream its stream (name, pattern, limits)
     * @param scope  its scope, or {@code null} for the scope its subjects have
     */
    public record Durable(StreamConfig stream, Scope scope) {
    }

    /** @param directory where the store keeps its streams @return this */
    public StorageSettings dir(Path directory) {
        this.dir = Objects.requireNonNull(directory, "dir");
        return this;
    }

    /**
     * @param text {@code always}, {@code interval} or {@code os} (any case)
     * @return this
     * @throws IllegalArgumentException naming the value when it is none of them
     */
    public StorageSettings policy(String text) {
        try {
            this.policy = FsyncPolicy.valueOf(text.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("not an fsync policy (always, interval, os): '" + text + "'");
        }
        return this;
    }

    /**
     * @param text a duration ({@link Durations}), at least 1 ms
     * @return this
     * @throws IllegalArgumentException naming the value when it is not one
     */
    public StorageSettings interval(String text) {
        Duration parsed = Durations.parse(text);
        if (parsed.toMillis() < 1) {
            throw new IllegalArgumentException("fsync interval must be at least 1ms: '" + text + "'");
        }
        this.interval = parsed;
        return this;
    }

    /**
     * @param text a size ({@link ConfigFile#size}): the most bytes the store's streams hold together
     *             (nats-server's {@code max_file_store}); unset, what it holds at open plus 75% of the free disk
     * @return this
     * @throws IllegalArgumentException naming the value when it is not a positive size
     */
    public StorageSettings maxBytes(String text) {
        long parsed = ConfigFile.size(text);
        if (parsed < 1) {
            throw new IllegalArgumentException("storage.max_bytes must be a positive size: '" + text + "'");
        }
        this.maxBytes = parsed;
        return this;
    }

    /**
     * @param text a size ({@link ConfigFile#size}): the most bytes memory streams hold together
     *             (nats-server's {@code max_memory_store}); unset, three quarters of the machine's memory
     * @return this
     * @throws IllegalArgumentException naming the value when it is not a positive size
     */
    public StorageSettings maxMemory(String text) {
        long parsed = ConfigFile.size(text);
        if (parsed < 1) {
            throw new IllegalArgumentException("storage.max_memory must be a positive size: '" + text + "'");
        }
        this.maxMemory = parsed;
        return this;
    }

    /** @param scope the scope of a durable pattern given without one and without a subject entry @return this */
    public StorageSettings defaultScope(Scope scope) {
        this.defaultScope = Objects.requireNonNull(scope, "defaultScope");
        return this;
    }

    /**
     * Adds (or replaces) a durable subject pattern.
     *
     * @param pattern a subject pattern
     * @param spec    {@code [SCOPE] [key=value ...]} as in the class comment; may be empty
     * @return this
     * @throws IllegalArgumentException naming the word when the pattern or a word is not valid
     */
    public StorageSettings durable(String pattern, String spec) {
        StreamConfig stream = StreamConfig.of(pattern.trim());
        Scope scope = null;
        for (String word : spec.trim().split("[\\s,]+")) {
            if (word.isEmpty()) {
                continue;
            }
            int eq = word.indexOf('=');
            if (eq < 0) {
                if (scope != null) {
                    throw new IllegalArgumentException("two scopes for durable '" + pattern + "': '" + word + "'");
                }
                scope = ConfigFile.scope(word);
                continue;
            }
            String value = word.substring(eq + 1);
            stream = switch (word.substring(0, eq).toLowerCase(Locale.ROOT)) {
                case "name" -> stream.withName(value);
                case "max_age" -> stream.withMaxAge(Durations.parse(value));
                case "max_bytes" -> stream.withMaxBytes(ConfigFile.size(value));
                case "max_messages" -> stream.withMaxMessages(number(value));
                case "max_messages_per_subject" -> stream.withMaxMessagesPerSubject(number(value));
                case "duplicate_window" -> stream.withDuplicateWindow(Durations.parse(value));
                case "duplicate_window_bytes" -> stream.withDuplicateWindowBytes(ConfigFile.size(value));
                case "key_dedup_bytes" -> stream.withKeyDedupBytes(ConfigFile.size(value));
                default -> throw new IllegalArgumentException("unknown option of durable '" + pattern + "': '" + word
                        + "' (" + String.join(", ", SPEC_WORDS.stream().map(ConfigKey::name).toList()) + ")");
            };
        }
        durables.put(stream.subjects().getFirst(), new Durable(stream, scope));
        return this;
    }

    /**
     * Adds a durable subject from the command line's form, {@code <pattern>[=<spec>]}.
     *
     * @param option the option's value
     * @return this
     * @throws IllegalArgumentException naming the value when it is not valid
     */
    public StorageSettings durable(String option) {
        int eq = option.indexOf('=');
        return eq < 0 ? durable(option, "") : durable(option.substring(0, eq), option.substring(eq + 1));
    }

    /** @return the durable patterns, in the order given */
    public List<Durable> durables() {
        return List.copyOf(durables.values());
    }

    /** @return the store's directory */
    public Path dir() {
        return dir;
    }

    /** @return when stored messages are forced to the disk */
    public FsyncPolicy policy() {
        return policy;
    }

    /** @return the store's byte limit ({@code storage.max_bytes}), -1 for the default */
    public long maxBytes() {
        return maxBytes;
    }

    /** @return memory streams' byte limit ({@code storage.max_memory}), -1 for the default */
    public long maxMemory() {
        return maxMemory;
    }

    /** @return the force interval for {@link FsyncPolicy#INTERVAL} */
    public Duration interval() {
        return interval;
    }

    /**
     * Stores durable subjects in JetStream instead of the local log ({@code storage.jetstream} in the
     * configuration file): the NATS servers, comma-separated.
     *
     * @param urls the JetStream cluster's URLs
     * @return this
     * @throws IllegalArgumentException naming the value when empty, or the module when the store's is not there
     */
    public StorageSettings jetStream(String urls) {
        return jetStream(urls, "storage.jetstream");
    }

    /**
     * Stores durable subjects in JetStream instead of the local log. The store comes from
     * ringbus-federation, found at run time ({@link RuntimePlugins}): the server does not compile against it.
     *
     * @param urls   the JetStream cluster's URLs
     * @param option the option or key that gives them ({@code --storage-jetstream}), for the error
     * @return this
     * @throws IllegalArgumentException naming the value when empty, or the option and the module when
     *                                  ringbus-federation is not on the class or module path
     */
    public StorageSettings jetStream(String urls, String option) {
        if (urls == null || urls.isBlank()) {
            throw new IllegalArgumentException("storage.jetstream must name at least one NATS URL: '" + urls + "'");
        }
        this.jetStreamProvider = RuntimePlugins.storage(StorageProvider.JETSTREAM)
                .orElseThrow(() -> RuntimePlugins.missing(option, "the JetStream store"));
        this.jetStream = urls;
        return this;
    }

    /**
     * Opens the store: JetStream when {@link #jetStream(String)} was set, else the local log under
     * {@link #dir()} with the policy.
     *
     * @return the storage, for {@link io.ringbus.core.BrokerBuilder#storage}
     * @throws io.ringbus.core.StorageException when the directory cannot be created or is locked, or
     *                                          JetStream cannot be reached
     */
    public Storage open() {
        if (jetStream != null) {
            return jetStreamProvider.open(jetStream, "ringbus-server");
        }
        return Storage.local(dir, policy, interval, maxBytes, maxMemory);
    }

    /**
     * Registers every durable pattern on {@code broker}, whose storage is {@link #open()}'s.
     *
     * @param broker   the broker
     * @param subjects the subject scopes also configured ({@code subject.<pattern>}), for patterns given without a scope
     * @return the open streams, in order
     * @throws IllegalArgumentException         when patterns overlap or a stream of that name stores another pattern
     * @throws io.ringbus.core.StorageException when a stream cannot be opened
     */
    public List<StoredStream> register(Broker broker, Map<String, Scope> subjects) {
        List<StoredStream> streams = new ArrayList<>(durables.size());
        for (Durable durable : durables.values()) {
            String pattern = durable.stream().subjects().getFirst();
            Scope scope = durable.scope() != null ? durable.scope() : subjects.getOrDefault(pattern, defaultScope);
            streams.add(broker.registerStream(durable.stream(), scope));
        }
        return streams;
    }

    private static long number(String value) {
        try {
            return Long.parseLong(value.replace("_", ""));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a number: '" + value + "'");
        }
    }
}
