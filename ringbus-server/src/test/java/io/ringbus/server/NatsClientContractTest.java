package io.ringbus.server;

import io.ringbus.testkit.Await;
import io.ringbus.core.Broker;
import io.ringbus.core.Scope;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * One contract for every NATS client library in another language: a client test program of ours
 * ({@code src/test/go}, {@code src/test/c}) runs one case at a time against a ringbus-server
 * started here, prints {@code PASS <case>} or {@code FAIL <case>: <reason>}, and exits non-zero
 * on failure. The programs expect nats-server's behaviour (they pass against nats-server 2.9
 * itself), so a failure here is a difference of ringbus's.
 *
 * <p>The server: every subject PUBLIC (as on a nats-server without authorization), max_payload
 * 64 KiB, max_pending 64 KiB and a 3 s write deadline, so that a subscriber that stops reading is
 * dropped soon. When a program prints {@code RESTART}, the server is closed and a new one started
 * on the same port and broker.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(150)
abstract class NatsClientContractTest {
    /** Bound on one case, far above its need; the programs bound each of their waits too. */
    private static final Duration CASE_TIMEOUT = Duration.ofSeconds(120);
    static final Path MODULE = Path.of("").toAbsolutePath();

    private Broker broker;
    private ServerConfig config;
    private volatile RingbusServer server;
    private final AtomicInteger restarts = new AtomicInteger();

    /** Skips the class (assumption) when the client library or compiler is missing, else builds. */
    abstract void buildProgram() throws Exception;

    /** @return the command line that runs {@code caseName} against {@code url} */
    abstract List<String> command(String url, String caseName);

    @BeforeAll
    void build() throws Exception {
        buildProgram();
    }

    /**
     * The reference nats-server's {@code max_pending} below: a subscriber that stops reading is cut
     * off well before the 8 MiB the slow-consumer case publishes, while a healthy one that a busy
     * 2-core machine deschedules for a moment is not (at 64 KiB it sometimes was).
     */
    private static final int MAX_PENDING = 1 << 20;

    @BeforeEach
    void startServer() {
        broker = Broker.builder().name("clients").ringSize(4096).defaultScope(Scope.PUBLIC).build();
        config = ServerConfig.builder().host("127.0.0.1").port(0).monitorPort(ServerConfig.MONITOR_OFF)
                .maxPayload(64 * 1024).maxPending(MAX_PENDING).writeDeadline(Duration.ofSeconds(3)).ioThreads(2)
                .build();
        server = RingbusServer.start(broker, config);
        config = ServerConfig.builder().host("127.0.0.1").port(server.port()).monitorPort(ServerConfig.MONITOR_OFF)
                .maxPayload(64 * 1024).maxPending(MAX_PENDING).writeDeadline(Duration.ofSeconds(3)).ioThreads(2)
                .build(); // for a restart: the same port
    }

    @AfterEach
    void stopServer() {
        if (server != null) {
            server.close();
        }
        if (broker != null) {
            broker.close(Duration.ofSeconds(2));
        }
    }

    @Test
    void deliversInPublishOrderWithBinaryPayloadsIntact() throws Exception {
        passes("pubsub");
    }

    @Test
    void starAndTailWildcardsMatchOnlyTheirSubjects() throws Exception {
        passes("wildcards");
    }

    @Test
    void queueGroupGivesEachMessageToExactlyOneMemberAndPlainSubscribersGetAll() throws Exception {
        passes("queue-groups");
    }

    @Test
    void requestsAreAnsweredByAResponderOnAnotherConnection() throws Exception {
        passes("request-reply");
    }

    @Test
    void requestWithoutRespondersFailsAtOnce() throws Exception {
        passes("no-responders");
    }

    @Test
    void headersReachTheSubscriberWithEveryValue() throws Exception {
        passes("headers");
    }

    @Test
    void drainHandsOverEveryMessageInFlightBeforeClosing() throws Exception {
        passes("drain");
    }

    @Test
    void clientReconnectsAndResubscribesAfterTheServerRestarts() throws Exception {
        passes("reconnect");
        assertThat(restarts.get()).as("server restarts asked by the program").isEqualTo(1);
    }

    @Test
    void oddPublishSubjectsBuiltFromDataKeepTheConnection() throws Exception {
        passes("odd-subjects");
        assertThat(server.stats().protocolErrors()).as("-ERR sent").isZero();
    }

    @Test
    void subscriptionOverItsClientPendingLimitReportsSlowConsumerWhileOthersGetEverything() throws Exception {
        passes("slow-consumer-client");
    }

    @Test
    void subscriberThatStopsReadingIsDroppedWhileAHealthyOneGetsEverything() throws Exception {
        passes("slow-consumer-server");
        assertThat(server.stats().slowConsumers()).as("slow consumers dropped").isEqualTo(1);
    }

    /**
     * The program itself is checked against the reference: every case but reconnect (which needs
     * a restart) passes against a real nats-server (max_pending 1 MiB, write deadline 2 s, so
     * that its slow consumer is cut off too). Skipped without {@code /usr/sbin/nats-server}.
     */
    @Test
    void everyCaseAlsoPassesAgainstNatsServer(@TempDir Path dir) throws Exception {
        Path natsServer = Path.of("/usr/sbin/nats-server");
        assumeTrue(Files.isExecutable(natsServer), natsServer + " is not installed");
        Path natsConfig = dir.resolve("nats.conf");
        Files.writeString(natsConfig, "max_payload: 65536\nmax_pending: 1048576\nwrite_deadline: \"2s\"\n");
        int port;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = socket.getLocalPort();
        }
        Process nats = new ProcessBuilder(natsServer.toString(), "-a", "127.0.0.1", "-p", String.valueOf(port), "-c",
                natsConfig.toString()).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        try {
            Await.until("nats-server accepts connections on " + port, () -> {
                try (Socket probe = new Socket()) {
                    probe.connect(new InetSocketAddress("127.0.0.1", port), 1_000);
                    return true;
                } catch (IOException notYet) {
                    return false;
                }
            });
            // Not slow-consumer-client: it checks the client library's own pending limit, nothing
            // of the server's, and nats.c intermittently hung in it here (its stuck handler holds
            // the dispatcher) against nats-server on a loaded machine.
            for (String caseName : List.of("pubsub", "wildcards", "queue-groups", "request-reply", "no-responders",
                    "headers", "drain", "odd-subjects", "slow-consumer-server")) {
                ClientProgram.Result result = ClientProgram.run(command("nats://127.0.0.1:" + port, caseName), MODULE,
                        Map.of(), CASE_TIMEOUT, line -> { });
                assertThat(result.output().lines()).as("against nats-server, output of %s:%n%s", caseName,
                        result.output()).contains("PASS " + caseName);
            }
        } finally {
            nats.destroy();
            nats.waitFor(10, TimeUnit.SECONDS);
        }
    }

    void passes(String caseName) throws Exception {
        ClientProgram.Result result = ClientProgram.run(command("nats://127.0.0.1:" + server.port(), caseName),
                MODULE, Map.of(), CASE_TIMEOUT, line -> {
                    if (line.startsWith("RESTART ")) {
                        restart();
                    }
                });
        assertThat(result.output().lines()).as("output of %s:%n%s", caseName, result.output())
                .contains("PASS " + caseName);
        assertThat(result.exitCode()).as("exit code; output:%n%s", result.output()).isZero();
    }

    /** Closes the server and starts another on the same port and broker (called on the reader). */
    private void restart() {
        server.close();
        server = RingbusServer.start(broker, config);
        restarts.incrementAndGet();
    }
}
