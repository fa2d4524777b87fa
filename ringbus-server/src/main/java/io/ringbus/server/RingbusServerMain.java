package io.ringbus.server;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.ringbus.core.Broker;
import io.ringbus.core.BrokerBuilder;
import io.ringbus.core.Durations;
import io.ringbus.core.Federation;
import io.ringbus.core.Scope;
import io.ringbus.core.Storage;
import io.ringbus.core.StorageException;
import io.ringbus.core.StoredStream;
import io.ringbus.server.internal.ConfigFile;
import io.ringbus.server.internal.FederationSettings;
import io.ringbus.server.internal.FatalErrors;
import io.ringbus.server.internal.ServerContext;
import io.ringbus.server.internal.HangupSignal;
import io.ringbus.server.internal.StandaloneBroker;
import io.ringbus.server.internal.StorageSettings;
import io.ringbus.server.monitor.BlockedHandlerLog;
import io.ringbus.server.monitor.MonitorSources;
import io.ringbus.server.spi.ServerExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/**
 * The {@code ringbus-server} command: a standalone broker that NATS clients connect to. Runs
 * until SIGTERM/SIGINT, then stops accepting, drains the broker and closes every connection.
 *
 * <p>Threading: {@code call()} runs on the calling thread and blocks until the server stops.
 */
@Command(name = "ringbus-server", mixinStandardHelpOptions = true, versionProvider = RingbusServerMain.Version.class,
        description = "A ringbus broker that NATS clients talk to (NATS client protocol).")
public final class RingbusServerMain implements Callable<Integer> {
    private static final Logger LOG = LoggerFactory.getLogger(RingbusServerMain.class);

    /**
     * The server's defaults: every option's initial value is taken from them, and {@code --help}
     * shows that value ({@code ${DEFAULT-VALUE}} is a field's initial value), so the help cannot
     * drift from what the server does. An option is applied only when given ({@link #given}), so
     * a configuration file's value stands unless the command line names the option.
     */
    private static final ServerConfig DEFAULTS = ServerConfig.builder().build();
    private static final StorageSettings STORAGE_DEFAULTS = new StorageSettings();

    @Spec
    private CommandSpec spec;

    @Option(names = {"-p", "--port"}, description = "client port (default: ${DEFAULT-VALUE}, the NATS default)")
    private int port = DEFAULTS.port();

    @Option(names = {"-a", "--host"}, description = "address to bind (default: ${DEFAULT-VALUE})")
    private String host = DEFAULTS.host();

    /** A command with every option at its default, for {@link CommandLine} to fill from the arguments. */
    public RingbusServerMain() {
        // options are fields that picocli sets
    }

    @Option(names = {"-c", "--config"}, description = "configuration file: key = value lines, every key in "
            + "docs/configuration.md (the distribution's conf/ringbus.properties has them all, commented out)")
    private Path config;

    @Option(names = {"-m", "--http-port", "--http_port"},
            description = "HTTP monitoring port: dashboard, /varz, /connz, /subsz, /healthz, /metrics "
                    + "(default: ${DEFAULT-VALUE}, the NATS default; 0 picks a free one)")
    private int httpPort = DEFAULTS.monitorPort();

    @Option(names = {"--https-port", "--https_port"},
            description = "monitoring over HTTPS on this port, with the client port's TLS certificate "
                    + "(instead of --http-port; needs tls.cert_file and tls.key_file)")
    private int httpsPort;

    @Option(names = {"--http-host"}, description = "address the monitoring port binds (default: ${DEFAULT-VALUE})")
    private String httpHost = DEFAULTS.monitorHost();

    @Option(names = {"--no-monitor"}, description = "no HTTP monitoring port")
    private boolean noMonitor;

    @Option(names = {"--storage-dir"}, paramLabel = "DIR",
            description = "where durable subjects are stored (default: ${DEFAULT-VALUE}, under the working directory)")
    private Path storageDir = STORAGE_DEFAULTS.dir();

    @Option(names = {"--fsync"}, paramLabel = "POLICY",
            description = "when stored messages are forced to the disk: always, interval, os (default: ${DEFAULT-VALUE})")
    private String fsync = STORAGE_DEFAULTS.policy().name().toLowerCase(Locale.ROOT);

    @Option(names = {"--fsync-interval"}, paramLabel = "DURATION",
            description = "the force interval of --fsync interval (default: ${DEFAULT-VALUE})")
    private String fsyncInterval = Durations.format(STORAGE_DEFAULTS.interval());

    @Option(names = {"--max-store"}, paramLabel = "SIZE",
            description = "the most bytes the store keeps, all streams together; past it publishes to them are "
                    + "refused (JetStream's max_file_store; default: what it holds at start plus 75%% of the free disk)")
    private String maxStore;

    @Option(names = {"--max-memory-store"}, paramLabel = "SIZE",
            description = "the most bytes memory streams keep, all together (their files count against --max-store "
                    + "too); past it publishes to them are refused (JetStream's max_memory_store; default: three "
                    + "quarters of the machine's memory)")
    private String maxMemoryStore;

    @Option(names = {"--storage-jetstream"}, paramLabel = "URLS",
            description = "store durable subjects in this JetStream (NATS URLs, comma-separated) instead of the "
                    + "local log (needs ringbus-federation, in the distribution's and bin/run's jar)")
    private String storageJetStream;

    @Option(names = {"--federation"}, paramLabel = "URLS",
            description = "NATS servers (comma-separated) this node shares its PUBLIC and FEDERATED subjects "
                    + "through with other ringbus nodes (needs ringbus-federation, in the distribution's and bin/run's "
                    + "jar; see docs/federation.md)")
    private String federationServers;

    @Option(names = {"--no-jetstream"}, description = "no JetStream API (jetstream.enabled=false); it is on when "
            + "ringbus-jetstream is on the class path, as in the distribution and bin/run (see docs/jetstream.md)")
    private boolean noJetStream;

    @Option(names = {"--durable"}, paramLabel = "PATTERN[=SPEC]",
            description = "a durable subject pattern, stored before PING is answered and acknowledged with "
                    + "JetStream's PubAck; SPEC: [SCOPE] [name=..] [max_age=..] [max_bytes=..] [max_messages=..] "
                    + "[max_messages_per_subject=..] [duplicate_window=..] [duplicate_window_bytes=..] [key_dedup_bytes=..] (see "
                    + "docs/configuration.md); repeatable")
    private List<String> durable;

    @Option(names = {"--authenticator-timeout", "--authenticator_timeout"}, paramLabel = "DURATION",
            description = "how long a bcrypt check or the authentication plug-in may take, its wait for a thread "
                    + "included, before the client is refused (default: ${DEFAULT-VALUE})")
    private String authenticatorTimeout = Durations.format(DEFAULTS.authenticatorTimeout());

    @Option(names = {"--tls-cert"}, paramLabel = "PEM",
            description = "the server's certificate chain: every client must use TLS (with --tls-key)")
    private Path tlsCert;

    @Option(names = {"--tls-key"}, paramLabel = "PEM", description = "the server's private key (PKCS#8)")
    private Path tlsKey;

    @Option(names = {"--tls-ca"}, paramLabel = "PEM", description = "CA certificates that sign client certificates")
    private Path tlsCa;

    @Option(names = {"--tls-verify"}, description = "require a client certificate signed by --tls-ca (mutual TLS)")
    private boolean tlsVerify;

    private final CountDownLatch stopped = new CountDownLatch(1);
    /** Recent watchdog warnings, for the dashboard. */
    private static final int BLOCKED_HANDLERS_KEPT = 50;

    /** Supplies {@code --version}. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"ringbus-server " + ServerContext.VERSION + " (Java " + Runtime.version() + ")"};
        }
    }

    /**
     * Runs the command line.
     *
     * @param args see {@code --help}
     */
    public static void main(String[] args) {
        // Leak-detection wrappers cost on every buffer access; tests keep Netty's default.
        if (System.getProperty("io.netty.leakDetection.level") == null) {
            System.setProperty("io.netty.leakDetection.level", "disabled");
        }
        FatalErrors.install();
        System.exit(commandLine().execute(args));
    }

    /**
     * @return the command line: a bad option or value is one line naming it (exit 2), not the whole usage
     */
    static CommandLine commandLine() {
        return new CommandLine(new RingbusServerMain()).setParameterExceptionHandler((e, args) -> {
            e.getCommandLine().getErr().println("ringbus-server: " + e.getMessage() + " (see --help)");
            return 2;
        });
    }

    @Override
    public Integer call() throws Exception {
        ServerConfig.Builder serverConfig = ServerConfig.builder();
        // Standalone, subjects nobody registered are for network clients: PUBLIC (StandaloneBroker's
        // defaults). Registered patterns (subject.<pattern>=SCOPE) make some FEDERATED, PRIVATE or ROOT.
        BlockedHandlerLog blockedHandlers = new BlockedHandlerLog(BLOCKED_HANDLERS_KEPT);
        BrokerBuilder brokerBuilder = StandaloneBroker.builder(blockedHandlers);
        Map<String, Scope> subjects = Map.of();
        StorageSettings storageSettings = new StorageSettings().defaultScope(StandaloneBroker.DEFAULT_SCOPE);
        FederationSettings federationSettings = new FederationSettings();
        // Extensions (the JetStream API) on the class or module path: their keys (jetstream.*) are
        // read from the configuration file below.
        for (ServerExtension extension : ServiceLoader.load(ServerExtension.class)) {
            serverConfig.extension(extension);
        }
        try {
            if (noJetStream && serverConfig.extensionNames().contains("jetstream")) {
                serverConfig.extensionSetting("jetstream.enabled", "false");
            }
            if (config != null) {
                subjects = applyConfig(serverConfig, brokerBuilder, storageSettings, federationSettings);
            }
            if (federationServers != null) {
                federationSettings.servers(federationServers, "--federation");
            }
            if (given("--storage-dir")) {
                storageSettings.dir(storageDir);
            }
            if (storageJetStream != null) {
                storageSettings.jetStream(storageJetStream, "--storage-jetstream");
            }
            if (given("--fsync")) {
                option("--fsync", fsync, () -> storageSettings.policy(fsync));
            }
            if (given("--fsync-interval")) {
                option("--fsync-interval", fsyncInterval, () -> storageSettings.interval(fsyncInterval));
            }
            if (maxStore != null) {
                option("--max-store", maxStore, () -> storageSettings.maxBytes(maxStore));
            }
            if (maxMemoryStore != null) {
                option("--max-memory-store", maxMemoryStore, () -> storageSettings.maxMemory(maxMemoryStore));
            }
            if (durable != null) {
                for (String pattern : durable) {
                    option("--durable", pattern, () -> storageSettings.durable(pattern));
                }
            }
            if (given("--port")) {
                serverConfig.port(port);
            }
            if (given("--host")) {
                serverConfig.host(host);
            }
            if (given("--http-port")) {
                serverConfig.monitorPort(httpPort).monitorTls(false);
            }
            if (given("--https-port")) {
                serverConfig.monitorPort(httpsPort).monitorTls(true);
            }
            if (given("--http-host")) {
                serverConfig.monitorHost(httpHost);
            }
            if (noMonitor) {
                serverConfig.monitorPort(ServerConfig.MONITOR_OFF);
            }
            if (given("--authenticator-timeout")) {
                try {
                    serverConfig.authenticatorTimeout(Durations.parse(authenticatorTimeout));
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("--authenticator-timeout " + authenticatorTimeout + ": "
                            + e.getMessage(), e);
                }
            }
            if (tlsCert != null) {
                serverConfig.tlsCertFile(tlsCert);
            }
            if (tlsKey != null) {
                serverConfig.tlsKeyFile(tlsKey);
            }
            if (tlsCa != null) {
                serverConfig.tlsCaFile(tlsCa);
            }
            if (tlsVerify) {
                serverConfig.tlsVerify(true);
            }
        } catch (IllegalArgumentException e) {
            System.err.println("ringbus-server: " + e.getMessage());
            return 2;
        }
        ServerConfig settings;
        try {
            settings = serverConfig.build();
        } catch (IllegalArgumentException e) {
            System.err.println("ringbus-server: " + e.getMessage());
            return 2;
        }
        long heap = Runtime.getRuntime().maxMemory();
        if (settings.maxMemory() > heap) {
            // A budget the heap cannot hold is no bound: the server would run out of memory first.
            System.err.println("ringbus-server: max_memory " + ConfigFile.sizeText(settings.maxMemory())
                    + " is more than the heap (" + heap / (1 << 20) + " MiB): lower max_memory, or give the JVM "
                    + "more heap (RINGBUS_JAVA_OPTS=-Xmx...)");
            return 2;
        }
        // One heap budget (max_memory): the messages in the broker's ring take a quarter of it.
        brokerBuilder.maxInFlightBytes(Math.max(65_536, settings.maxMemory() / 4));
        // The registry /metrics scrapes: JVM basics, the broker's meters and the server's.
        PrometheusMeterRegistry registry = MonitorSources.jvmMeterRegistry();
        // The store is opened only for durable subjects or an extension that keeps streams (JetStream):
        // without them, nothing is written (no data/ directory).
        boolean extensionStore;
        try {
            extensionStore = settings.extensions().stream()
                    .anyMatch(extension -> extension.needsStorage(settings.extensionSettings(extension.name())));
        } catch (IllegalArgumentException e) {
            System.err.println("ringbus-server: " + e.getMessage()); // an extension's settings (jetstream.*)
            return 2;
        }
        Storage storage = null;
        if (!storageSettings.durables().isEmpty() || extensionStore) {
            try {
                storage = storageSettings.open();
            } catch (StorageException e) {
                System.err.println("ringbus-server: " + e.getMessage());
                return 1;
            }
            brokerBuilder.storage(storage); // the broker closes it
        }
        Federation federation;
        try {
            federation = federationSettings.build();
        } catch (IllegalArgumentException e) {
            System.err.println("ringbus-server: " + e.getMessage());
            return 2;
        }
        if (federation != null) {
            brokerBuilder.federation(federation); // the broker starts and closes it
            LOG.info("federation: {} (PUBLIC and FEDERATED subjects cross)", federationSettings.servers());
        }
        Broker broker;
        try {
            broker = brokerBuilder.meterRegistry(registry).build();
        } catch (IllegalStateException e) {
            System.err.println("ringbus-server: " + e.getMessage()); // a federation link refused
            return 1;
        }
        subjects.forEach(broker::registerSubject);
        List<StoredStream> streams;
        try {
            streams = storageSettings.register(broker, subjects);
        } catch (IllegalArgumentException | StorageException e) {
            broker.close();
            System.err.println("ringbus-server: durable subjects: " + e.getMessage());
            return e instanceof StorageException ? 1 : 2;
        }
        RingbusServer server;
        try {
            MonitorSources.Builder sourcesBuilder = MonitorSources.builder().blockedHandlers(blockedHandlers)
                    .meterRegistry(registry);
            if (storage != null) {
                sourcesBuilder.storage(storage, streams);
            }
            server = RingbusServer.start(broker, settings, sourcesBuilder.build());
        } catch (UncheckedIOException e) {
            broker.close();
            System.err.println("ringbus-server: " + e.getCause().getMessage());
            return 1;
        } catch (IllegalArgumentException e) {
            broker.close();
            System.err.println("ringbus-server: " + e.getMessage()); // TLS files, an extension's settings
            return 2;
        } catch (StorageException e) {
            broker.close();
            System.err.println("ringbus-server: " + e.getMessage()); // an extension's streams could not be opened
            return 1;
        }
        Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().name("ringbus-shutdown").unstarted(() -> {
            LOG.info("shutting down: no new connections, draining the broker");
            server.stopAccepting();
            broker.close();
            server.close();
            LOG.info("stopped: {}", server.stats());
            stopped.countDown();
            // A requested stop (SIGTERM, SIGINT) that drained cleanly is a success: status 0,
            // not the JVM's 128 + signal. Every ringbus resource is closed above; only hooks of
            // libraries still running concurrently (none that ringbus-server needs) are cut short.
            Runtime.getRuntime().halt(0);
        }));
        LOG.info("ringbus-server {} listening on {}:{} ({})", ServerContext.VERSION, settings.host(), server.port(),
                settings.authRequired() ? "auth required" : "no auth, clients are " + settings.noAuthScope());
        if (settings.tlsEnabled()) {
            LOG.info("TLS: required{}{}, certificate {} (reloaded on SIGHUP or when the files change)",
                    settings.tlsVerify() ? ", client certificates verified" : "",
                    settings.tlsHandshakeFirst() ? ", handshake first" : "", settings.tlsCertFile());
            HangupSignal.onHangup(server::reloadTls);
        }
        logStorage(storage, streams);
        if (server.monitorPort() != ServerConfig.MONITOR_OFF) {
            String monitorHost = settings.monitorHost().contains(":") ? "[" + settings.monitorHost() + "]"
                    : settings.monitorHost();
            LOG.info("monitoring: dashboard at {}://{}:{}/ (also /varz /connz /subsz /jsz /healthz /metrics){}",
                    settings.monitorTls() ? "https" : "http", monitorHost, server.monitorPort(), settings.authRequired() ? ", credentials required" : "");
        }
        stopped.await();
        return 0;
    }

    /**
     * Reads {@code --config}; a file that cannot be read is a bad option, one line naming the path
     * as given and as resolved against the working directory.
     */
    private Map<String, Scope> applyConfig(ServerConfig.Builder serverConfig, BrokerBuilder brokerBuilder,
                                           StorageSettings storageSettings, FederationSettings federationSettings) {
        try {
            return ConfigFile.apply(config, serverConfig, brokerBuilder, storageSettings, federationSettings);
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException("--config " + config + ": no such file (" + config.toAbsolutePath()
                    + ")", e);
        } catch (IOException e) {
            throw new IllegalArgumentException("--config " + config + ": cannot read it (" + config.toAbsolutePath()
                    + "): " + e, e);
        }
    }

    /**
     * Applies one option's value; a bad value stops the start naming the option and the value, as a
     * bad line of the configuration file names its key ({@code --max-store 10q: not a size ...}).
     */
    private static void option(String name, String value, Runnable apply) {
        try {
            apply.run();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(name + " " + value + ": " + e.getMessage(), e);
        }
    }

    /** @return whether the command line named the option (by any of its names), not its default */
    private boolean given(String option) {
        return spec.commandLine().getParseResult().hasMatchedOption(option);
    }

    /** The start-up lines about the store: which, where, its policy, and each durable stream. */
    private static void logStorage(Storage storage, List<StoredStream> streams) {
        if (storage == null) {
            LOG.info("storage: off (no durable subjects; see --durable or storage.durable.<pattern>)");
            return;
        }
        LOG.info("storage: {}", storage.describe());
        for (StoredStream stream : streams) {
            var info = stream.info();
            LOG.info("durable: {} -> stream {}, {} messages, last sequence {}",
                    String.join(", ", stream.config().subjects()), info.name(), info.messages(), info.lastSequence());
        }
    }
}
