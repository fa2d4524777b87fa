package io.ringbus.jetstream;

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
 * Builds a Go program of {@code src/test/go/<name>} with Debian's go and nats.go 1.22
 * (golang-github-nats-io-go-nats-dev) in GOPATH mode ({@code GO111MODULE=off},
 * {@code GOPATH=/usr/share/gocode}): nothing is downloaded. The binary is
 * {@code target/go-<name>}.
 */
final class GoProgram {
    /** Where Debian puts nats.go's sources. */
    static final Path NATS_GO = Path.of("/usr/share/gocode/src/github.com/nats-io/nats.go");

    private GoProgram() {
    }

    /**
     * Builds {@code src/test/go/<name>}; skips the test (an assumption) when go or nats.go is not
     * installed.
     *
     * @param name the program's directory under {@code src/test/go}
     * @return the binary
     */
    static Path build(String name) throws IOException, InterruptedException {
        return build(name, JetStreamClientContractTest.module(), "./src/test/go/" + name);
    }

    /**
     * Builds the Go package in {@code directory}/{@code sources} (a path starting with {@code ./})
     * into {@code target/go-<name>} of this module; skips the test (an assumption) when go or
     * nats.go is not installed.
     *
     * @param name      the binary's name after {@code go-}
     * @param directory where {@code go build} runs
     * @param sources   the package's directory, relative to {@code directory}
     * @return the binary
     */
    static Path build(String name, Path directory, String sources) throws IOException, InterruptedException {
        assumeTrue(Files.isDirectory(NATS_GO), NATS_GO + " is missing (Debian: golang-github-nats-io-go-nats-dev)");
        Path module = JetStreamClientContractTest.module();
        Path binary = module.resolve("target").resolve("go-" + name);
        ProcessBuilder builder = new ProcessBuilder(List.of("go", "build", "-o", binary.toString(), sources))
                .directory(directory.toFile()).redirectErrorStream(true);
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
        assertThat(process.waitFor(3, TimeUnit.MINUTES)).as("go build ended").isTrue();
        assertThat(process.exitValue()).as("go build %s: %s", name, output).isZero();
        return binary;
    }
}
