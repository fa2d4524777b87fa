package io.ringbus.server;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;

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
    void aTakenMonitoringPortFailsAtOnceNamingItAndTheWayOut() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            String port = String.valueOf(taken.getLocalPort());
            String err = captureStderr(() -> assertThat(new CommandLine(new RingbusServerMain())
                    .execute("--host", "127.0.0.1", "--port", "0", "-m", port)).isEqualTo(1));
            assertThat(err).contains("cannot listen for monitoring on 127.0.0.1:" + port).contains("--no-monitor");
        }
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
