package io.ringbus.server;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.ringbus.core.Broker;
import io.ringbus.core.BrokerBuilder;
import io.ringbus.core.Scope;
import io.ringbus.core.WaitStrategy;
import io.ringbus.server.internal.ConfigFile;
import io.ringbus.server.internal.FatalErrors;
import io.ringbus.server.internal.ServerContext;
import io.ringbus.server.monitor.BlockedHandlerLog;
import io.ringbus.server.monitor.MonitorSources;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Map;
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

    @Option(names = {"-p", "--port"}, description = "client port (default: ${DEFAULT-VALUE}, the NATS default)",
            defaultValue = "-1", showDefaultValue = CommandLine.Help.Visibility.NEVER)
    private int port;

    @Option(names = {"-a", "--host"}, description = "address to bind (default: 0.0.0.0)")
    private String host;

    /** A command with every option at its default, for {@link CommandLine} to fill from the arguments. */
    public RingbusServerMain() {
        // options are fields that picocli sets
    }

    @Option(names = {"-c", "--config"}, description = "configuration file (see docs/server.md)")
    private Path config;

    @Option(names = {"-m", "--http-port", "--http_port"},
            description = "HTTP monitoring port: dashboard, /varz, /connz, /subsz, /healthz, /metrics "
                    + "(default: 8222, the NATS default; 0 picks a free one)",
            defaultValue = "-2", showDefaultValue = CommandLine.Help.Visibility.NEVER)
    private int httpPort;

    @Option(names = {"--http-host"}, description = "address the monitoring port binds (default: 127.0.0.1)")
    private String httpHost;

    @Option(names = {"--no-monitor"}, description = "no HTTP monitoring port")
    private boolean noMonitor;

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
        System.exit(new CommandLine(new RingbusServerMain()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        ServerConfig.Builder serverConfig = ServerConfig.builder();
        // Standalone, subjects nobody registered are for network clients: PUBLIC. Registered
        // patterns (subject.<pattern>=SCOPE) make some FEDERATED, PRIVATE or ROOT.
        // SLEEPING: publishers never take a lock to wake the event loop (BLOCKING does, per message).
        BlockedHandlerLog blockedHandlers = new BlockedHandlerLog(BLOCKED_HANDLERS_KEPT);
        // Handler latency timed for 1 call in 64: a network delivery is a ~50 ns enqueue, which a
        // histogram record per call would more than double.
        BrokerBuilder brokerBuilder = Broker.builder().name("ringbus").ringSize(65_536).defaultScope(Scope.PUBLIC)
                .waitStrategy(WaitStrategy.SLEEPING).blockedHandlerListener(blockedHandlers)
                .handlerLatencySampling(64);
        Map<String, Scope> subjects = Map.of();
        try {
            if (config != null) {
                subjects = ConfigFile.apply(config, serverConfig, brokerBuilder);
            }
            if (port >= 0) {
                serverConfig.port(port);
            }
            if (host != null) {
                serverConfig.host(host);
            }
            if (httpPort != -2) {
                serverConfig.monitorPort(httpPort);
            }
            if (httpHost != null) {
                serverConfig.monitorHost(httpHost);
            }
            if (noMonitor) {
                serverConfig.monitorPort(ServerConfig.MONITOR_OFF);
            }
        } catch (IllegalArgumentException e) {
            System.err.println("ringbus-server: " + e.getMessage());
            return 2;
        }
        ServerConfig settings = serverConfig.build();
        // The registry /metrics scrapes: JVM basics, the broker's meters and the server's.
        PrometheusMeterRegistry registry = MonitorSources.jvmMeterRegistry();
        Broker broker = brokerBuilder.meterRegistry(registry).build();
        subjects.forEach(broker::registerSubject);
        RingbusServer server;
        try {
            MonitorSources sources = MonitorSources.builder().blockedHandlers(blockedHandlers)
                    .meterRegistry(registry).build();
            server = RingbusServer.start(broker, settings, sources);
        } catch (UncheckedIOException e) {
            broker.close();
            System.err.println("ringbus-server: " + e.getCause().getMessage());
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
        if (server.monitorPort() != ServerConfig.MONITOR_OFF) {
            String monitorHost = settings.monitorHost().contains(":") ? "[" + settings.monitorHost() + "]"
                    : settings.monitorHost();
            LOG.info("monitoring: dashboard at http://{}:{}/ (also /varz /connz /subsz /healthz /metrics){}",
                    monitorHost, server.monitorPort(), settings.authRequired() ? ", credentials required" : "");
        }
        stopped.await();
        return 0;
    }
}
