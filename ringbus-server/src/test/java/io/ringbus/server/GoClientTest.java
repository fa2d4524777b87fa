package io.ringbus.server;

import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.ringbus.core.Broker;
import io.ringbus.core.Durability;
import io.ringbus.core.Scope;
import io.ringbus.core.Storage;
import io.ringbus.core.StreamConfig;
import io.ringbus.testkit.Await;
import org.junit.jupiter.api.Test;
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

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The {@link NatsClientContractTest} cases with nats.go: {@code src/test/go/clienttest}, built
 * by {@link GoProgram} (Debian's go and golang-github-nats-io-go-nats-dev in GOPATH mode, no
 * module download) into {@code target/go-clienttest}.
 *
 * <p>Needs {@code go} and {@code /usr/share/gocode/src/github.com/nats-io/nats.go} (bin/test
 * installs both); skipped only when either is missing.
 *
 * <p>Besides the contract, nats.go's JetStream {@code Publish} against a durable subject (the
 * {@code jetstream-publish} case), here and against nats-server with JetStream.
 */
class GoClientTest extends NatsClientContractTest {
    private static volatile Path binary;

    @Override
    void buildProgram() throws Exception {
        buildGoProgram();
    }

    @Override
    List<String> command(String url, String caseName) {
        return goCommand(url, caseName);
    }

    /** Skips the calling test class (assumption) without go or nats.go, else builds the program once per JVM. */
    static void buildGoProgram() throws Exception {
        String missing = GoProgram.missing();
        assumeTrue(missing == null, missing);
        binary = GoProgram.build("clienttest");
    }

    /** @return the command line that runs the Go program's {@code caseName} against {@code url} */
    static List<String> goCommand(String url, String caseName) {
        return List.of(binary.toString(), "-url", url, caseName);
    }

    /**
     * nats.go's JetStream context publishes to a ringbus durable subject unchanged: PubAcks with
     * the stream and consecutive sequences, a repeated {@code Nats-Msg-Id} acknowledged as a
     * duplicate, an asynchronous publish acknowledged; the store holds each message once.
     */
    @Test
    void jetStreamPublishIsAcknowledgedByADurableSubject(@TempDir Path dir) throws Exception {
        try (Broker durable = Broker.builder().name("go-jetstream").defaultScope(Scope.PUBLIC)
                .storage(Storage.local(dir)).build()) {
            durable.registerSubject("orders.>", Scope.PUBLIC, Durability.DURABLE);
            ServerConfig settings = ServerConfig.builder().host("127.0.0.1").port(0)
                    .monitorPort(ServerConfig.MONITOR_OFF).ioThreads(2).build();
            try (RingbusServer jsServer = RingbusServer.start(durable, settings)) {
                ClientProgram.Result result = ClientProgram.run(
                        command("nats://127.0.0.1:" + jsServer.port(), "jetstream-publish"), MODULE, Map.of(),
                        Duration.ofSeconds(120), line -> { });
                assertThat(result.output().lines()).as("output:%n%s", result.output())
                        .contains("PASS jetstream-publish");
                assertThat(result.exitCode()).isZero();
            }
            // 3 publishes, one message id twice (stored once), one asynchronous publish.
            assertThat(durable.registerStream(StreamConfig.of("orders.>"), Scope.PUBLIC).info().lastSequence())
                    .isEqualTo(5);
        }
    }

    /**
     * nats.go unchanged filters its subscription by content: a plain request to $RB.API.FILTER,
     * then a plain SubscribeSync; only the messages the SNS policy takes arrive, and a bad policy
     * is answered with an error naming its bad part (ringbus only: nats-server has no such API).
     */
    @Test
    void contentFilterThroughTheApiWithNatsGoUnchanged() throws Exception {
        passes("content-filter");
    }

    /** The jetstream-publish case is checked against the reference: nats-server -js with a stream on orders.>. */
    @Test
    @SuppressWarnings("try") // jnats Connection.close() throws InterruptedException; the test declares it
    void jetStreamCaseAlsoPassesAgainstNatsServer(@TempDir Path dir) throws Exception {
        Path natsServer = Path.of("/usr/sbin/nats-server");
        assumeTrue(Files.isExecutable(natsServer), natsServer + " is not installed");
        int port;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = socket.getLocalPort();
        }
        Process nats = new ProcessBuilder(natsServer.toString(), "-js", "-sd", dir.toString(), "-a", "127.0.0.1",
                "-p", String.valueOf(port)).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD)
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
            String url = "nats://127.0.0.1:" + port;
            try (Connection nc = Nats.connect(url)) {
                nc.jetStreamManagement().addStream(StreamConfiguration.builder().name("ORDERS")
                        .subjects("orders.>").storageType(StorageType.Memory).build());
            }
            ClientProgram.Result result = ClientProgram.run(command(url, "jetstream-publish"), MODULE, Map.of(),
                    Duration.ofSeconds(120), line -> { });
            assertThat(result.output().lines()).as("against nats-server, output:%n%s", result.output())
                    .contains("PASS jetstream-publish");
        } finally {
            nats.destroy();
            nats.waitFor(10, TimeUnit.SECONDS);
        }
    }
}
