package io.ringbus.server;

import io.nats.client.Connection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

@Timeout(30)
class RingbusServerMainTest {

    @Test
    void aTakenPortFailsAtOnceNamingThePort() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            String port = String.valueOf(taken.getLocalPort());
            String err = captureStderr(() -> assertThat(new CommandLine(new RingbusServerMain())
                    .execute("--host", "127.0.0.1", "--port", port)).isEqualTo(1));
            assertThat(err).contains("cannot listen on 127.0.0.1:" + port).contains("--port");
        }
    }

    @Test
    void helpAndVersionDescribeTheCommand() {
        CommandLine cli = new CommandLine(new RingbusServerMain());
        assertThat(cli.getUsageMessage()).contains("--port").contains("--host").contains("--config")
                .contains("-m, --http-port").contains("--http-host").contains("--no-monitor");
        assertThat(cli.execute("--version")).isZero();
    }

    @Test
    void aBadConfigFileStopsTheStartNamingTheProblem() throws Exception {
        java.nio.file.Path file = java.nio.file.Files.createTempFile("ringbus", ".properties");
        try {
            java.nio.file.Files.writeString(file, "max_connections=lots\n");
            String err = captureStderr(() -> assertThat(new CommandLine(new RingbusServerMain())
                    .execute("--config", file.toString(), "--port", "0")).isEqualTo(2));
            assertThat(err).contains("max_connections=lots").contains("not an integer");
        } finally {
            java.nio.file.Files.deleteIfExists(file);
        }
    }

    @Test
    void aBadAuthenticatorTimeoutStopsTheStartNamingTheOption() {
        for (String bad : new String[] {"soon", "0s"}) {
            String err = captureStderr(() -> assertThat(new CommandLine(new RingbusServerMain())
                    .execute("--port", "0", "--authenticator-timeout", bad)).isEqualTo(2));
            assertThat(err).contains("--authenticator-timeout " + bad);
        }
        assertThat(new CommandLine(new RingbusServerMain()).getUsageMessage()).contains("--authenticator-timeout");
    }

    @Test
    void aTakenMonitoringPortFailsAtOnceNamingItAndTheWayOut() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            String port = String.valueOf(taken.getLocalPort());
            String err = captureStderr(() -> assertThat(new CommandLine(new RingbusServerMain())
                    .execute("--host", "127.0.0.1", "--port", "0", "-m", port)).isEqualTo(1));
            assertThat(err).contains("cannot listen for monitoring on 127.0.0.1:" + port).contains("--no-monitor");
        }
    }

    @Test
    @Timeout(90)
    @SuppressWarnings("try") // jnats Connection.close() throws InterruptedException; the test declares it
    void theCommandLineStoresDurableSubjectsAndFindsThemAfterARestart(@TempDir Path dir) throws Exception {
        Path data = dir.resolve("data");
        String[] args = {"--storage-dir", data.toString(), "--fsync", "interval", "--fsync-interval", "10ms",
                "--durable", "orders.>"};
        try (ForkedServer forked = ForkedServer.start("128m", args)) {
            assertThat(forked.log()).anySatisfy(line -> assertThat(line).contains("storage: local " + data)
                    .contains("INTERVAL"));
            assertThat(forked.log()).anySatisfy(line -> assertThat(line)
                    .contains("durable: orders.> -> stream orders_all, 0 messages, last sequence 0"));
            try (Connection nc = io.nats.client.Nats.connect("nats://127.0.0.1:" + forked.port())) {
                assertThat(nc.jetStream().publish("orders.cli", "from the command line".getBytes(StandardCharsets.UTF_8)).getSeqno())
                        .isEqualTo(1);
            }
            assertThat(forked.monitor("/varz").body()).contains("\"store\":\"local " + data);
            assertThat(forked.signalAndWait("TERM")).isZero();
        }
        try (ForkedServer forked = ForkedServer.start("128m", args)) {
            assertThat(forked.log()).anySatisfy(line -> assertThat(line)
                    .contains("durable: orders.> -> stream orders_all, 1 messages, last sequence 1"));
        }
    }

    @Test
    void federationAndJetStreamStorageWithoutTheirModuleStopTheStartNamingTheOptionAndTheModule() {
        // ringbus-federation is not on this module's test path, as for an embedder that did not add it
        // (with it: FederatedServersTest and StandaloneJetStreamStorageTest in ringbus-federation)
        String err = captureStderr(() -> assertThat(new CommandLine(new RingbusServerMain())
                .execute("--port", "0", "--no-monitor", "--federation", "nats://127.0.0.1:4222")).isEqualTo(2));
        assertThat(err).contains("--federation needs the federation link")
                .contains("ringbus-federation (module io.ringbus.federation)");
        err = captureStderr(() -> assertThat(new CommandLine(new RingbusServerMain()).execute("--port", "0",
                "--no-monitor", "--storage-jetstream", "nats://127.0.0.1:4222", "--durable", "orders.>")).isEqualTo(2));
        assertThat(err).contains("--storage-jetstream needs the JetStream store")
                .contains("ringbus-federation (module io.ringbus.federation)");
    }

    @Test
    void overlappingDurablePatternsStopTheStartNamingBoth(@TempDir Path dir) {
        String err = captureStderr(() -> assertThat(new CommandLine(new RingbusServerMain()).execute("--host",
                "127.0.0.1", "--port", "0", "--no-monitor", "--storage-dir", dir.toString(),
                "--durable", "orders.>", "--durable", "orders.eu.*=PRIVATE")).isEqualTo(2));
        assertThat(err).contains("orders.eu.*").contains("overlaps").contains("orders.>");
    }

    private static String captureStderr(Runnable action) {
        PrintStream original = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            action.run();
        } finally {
            System.setErr(original);
        }
        return captured.toString(StandardCharsets.UTF_8);
    }
}
