package io.ringbus.jetstream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * nats.go's own consumers, unchanged, against ringbus-server: {@code src/test/go/jsconsumers} (built
 * with Debian's go and golang-github-nats-io-go-nats-dev in GOPATH mode, nothing downloaded) pulls
 * with {@code Fetch}, acks with {@code Ack} and {@code AckSync}, reads {@code ConsumerInfo}, and
 * reads the same messages through a durable push subscription and an ordered consumer.
 */
class GoConsumerTest {
    private static final Path NATS_GO = Path.of("/usr/share/gocode/src/github.com/nats-io/nats.go");

    @TempDir
    Path store;

    @Test
    void natsGoPullsAndPushes() throws Exception {
        assumeTrue(Files.isDirectory(NATS_GO), NATS_GO + " is missing (Debian: golang-github-nats-io-go-nats-dev)");
        Path binary = build();
        try (JetStreamServer server = JetStreamServer.start(store)) {
            Process go = new ProcessBuilder(binary.toString(), server.url()).redirectErrorStream(true).start();
            boolean ended = go.waitFor(60, TimeUnit.SECONDS);
            String output = new String(go.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!ended) {
                go.destroyForcibly();
            }
            assertThat(output.lines().toList()).as(output).containsExactly("pull m1 1", "pull m2 2", "pull m3 3",
                    "pull m4 4", "pull m5 5", "info delivered 5 pending 0", "push m1 go.x", "push m2 go.x",
                    "push m3 go.x", "push m4 go.x", "push m5 go.x", "ordered m1", "ordered m2", "ordered m3",
                    "ordered m4", "ordered m5", "done");
        }
    }

    /** Builds the program into target/go-jsconsumers (GOPATH mode, Debian's nats.go). */
    private static Path build() throws IOException, InterruptedException {
        Path module = Path.of("").toAbsolutePath();
        if (!Files.isDirectory(module.resolve("src/test/go"))) {
            module = module.resolve("ringbus-jetstream");
        }
        Path binary = module.resolve("target").resolve("go-jsconsumers");
        ProcessBuilder builder = new ProcessBuilder(List.of("go", "build", "-o", binary.toString(),
                "./src/test/go/jsconsumers")).directory(module.toFile()).redirectErrorStream(true);
        builder.environment().putAll(Map.of("GO111MODULE", "off", "GOPATH", "/usr/share/gocode", "GOCACHE",
                module.resolve("target").resolve("go-cache").toString(), "GOFLAGS", ""));
        Process process;
        try {
            process = builder.start();
        } catch (IOException noGo) {
            assumeTrue(false, "go is not installed (Debian: golang-go)");
            throw noGo;
        }
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor()).as("go build: %s", output).isZero();
        return binary;
    }
}
