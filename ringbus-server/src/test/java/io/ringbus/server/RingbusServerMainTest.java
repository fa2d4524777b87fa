package io.ringbus.server;

import io.nats.client.Connection;
import io.ringbus.server.internal.StorageSettings;
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
        // --durable's SPEC lists every word a durable subject's spec takes, and the help names the reference
        String text = cli.getUsageMessage().replaceAll("\\s+", " ");
        assertThat(text).contains("docs/configuration.md").doesNotContain("docs/server.md");
        for (var word : StorageSettings.SPEC_WORDS) {
            assertThat(text).as("--durable's SPEC in --help").contains("[" + word.name() + "=..]");
        }
    }

    @Test
    void helpShowsTheDefaultsTheServerRunsWith() {
        ServerConfig defaults = ServerConfig.builder().build();
        StorageSettings storage = new StorageSettings();
        String[] help = new String[1];
        String err = captureStderr(() -> help[0] = new CommandLine(new RingbusServerMain()).getUsageMessage());
        assertThat(err).as("picocli's complaints while rendering the help").isEmpty();
        String text = help[0].replaceAll("\\s+", " "); // the help wraps lines anywhere
        assertThat(text).contains("client port (default: " + defaults.port() + ", the NATS default)")
                .contains("(default: " + defaults.monitorPort() + ", the NATS default; 0 picks a free one)")
                .contains("address to bind (default: " + defaults.host() + ")")
                .contains("address the monitoring port binds (default: " + defaults.monitorHost() + ")")
                .contains("the client is refused (default: "
                        + io.ringbus.core.Durations.format(defaults.authenticatorTimeout()) + ")")
                .contains("(default: " + storage.dir() + ", under the working directory)")
                .contains("os (default: " + storage.policy().name().toLowerCase(java.util.Locale.ROOT) + ")")
                .contains("--fsync interval (default: " + io.ringbus.core.Durations.format(storage.interval()) + ")")
                .doesNotContain("default: -");
        // the values a reader checks the help against: the NATS defaults, as documented
        assertThat(defaults.port()).isEqualTo(4222);
        assertThat(defaults.monitorPort()).isEqualTo(8222);
        assertThat(text).contains("(default: 4222,").contains("(default: 8222,");
    }

    @Test
    @Timeout(90)
    void aConfigFileValueStandsWhenTheCommandLineDoesNotNameTheOption(@TempDir Path dir) throws Exception {
        // the options' fields start at the defaults; only the options given override the file
        Path data = dir.resolve("from-the-file");
        Path file = dir.resolve("ringbus.properties");
        java.nio.file.Files.writeString(file, "storage.dir=" + data + "\nstorage.fsync=os\n");
        try (ForkedServer forked = ForkedServer.start("128m", "--config", file.toString(), "--durable", "a.>")) {
            assertThat(forked.log()).anySatisfy(line -> assertThat(line).contains("storage: local " + data)
                    .contains("OS"));
            assertThat(forked.signalAndWait("TERM")).isZero();
        }
    }

    @Test
    void aMissingConfigFileIsOneLineNamingThePath(@TempDir Path dir) {
        Path missing = dir.resolve("nope.properties");
        String err = captureStderr(() -> assertThat(new CommandLine(new RingbusServerMain())
                .execute("--config", missing.toString(), "--port", "0")).isEqualTo(2));
        assertThat(err.strip()).isEqualTo("ringbus-server: --config " + missing + ": no such file (" + missing + ")");
    }

    @Test
    void aBadOptionIsOneLineNotTheUsage() {
        java.io.StringWriter err = new java.io.StringWriter();
        CommandLine cli = RingbusServerMain.commandLine();
        cli.setErr(new java.io.PrintWriter(err, true));
        assertThat(cli.execute("--port", "fourtytwo")).isEqualTo(2);
        assertThat(err.toString().strip()).startsWith("ringbus-server: ").contains("fourtytwo")
                .contains("(see --help)").doesNotContain("\n").doesNotContain("Usage");
        err.getBuffer().setLength(0);
        assertThat(cli.execute("--prot", "4222")).isEqualTo(2);
        assertThat(err.toString().strip()).contains("--prot").doesNotContain("Usage");
    }

    @Test
    void aMemoryBudgetLargerThanTheHeapIsRefused(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("big.properties");
        long tooMuch = Runtime.getRuntime().maxMemory() * 2;
        java.nio.file.Files.writeString(file, "max_memory=" + tooMuch + "\n");
        String err = captureStderr(() -> assertThat(new CommandLine(new RingbusServerMain())
                .execute("--config", file.toString(), "--port", "0", "--no-monitor")).isEqualTo(2));
        assertThat(err).contains("max_memory").contains("is more than the heap").contains("-Xmx");
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

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource(delimiter = '|', value = {
        "--max-store | 10q | not a size",
        "--max-memory-store | lots | not a size",
        "--fsync | sometimes | not an fsync policy",
        "--fsync-interval | 30 | not a duration",
        "--durable | orders.>=PUBLC | not a scope",
    })
    void aBadStorageOptionStopsTheStartNamingTheOptionAndTheValue(String option, String value, String why) {
        String err = captureStderr(() -> assertThat(new CommandLine(new RingbusServerMain())
                .execute(option, value, "--port", "0", "--no-monitor")).isEqualTo(2));
        assertThat(err.strip()).startsWith("ringbus-server: " + option + " " + value + ": ").contains(why);
        assertThat(err.strip().lines()).hasSize(1);
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
