package io.ringbus.server;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The {@link NatsClientContractTest} cases with nats.go: {@code src/test/go/clienttest}, built
 * with Debian's go and golang-github-nats-io-go-nats-dev in GOPATH mode (no module download)
 * into {@code target/go-clienttest}.
 *
 * <p>Needs {@code go} and {@code /usr/share/gocode/src/github.com/nats-io/nats.go} (bin/test
 * installs both); skipped only when either is missing.
 */
class GoClientTest extends NatsClientContractTest {
    private static final Path NATS_GO = Path.of("/usr/share/gocode/src/github.com/nats-io/nats.go");
    private static final Path BINARY = MODULE.resolve("target").resolve("go-clienttest");

    @Override
    void buildProgram() throws Exception {
        assumeTrue(ClientProgram.onPath("go"), "go is not installed (Debian: golang-go)");
        assumeTrue(Files.isDirectory(NATS_GO), NATS_GO + " is missing (Debian: golang-github-nats-io-go-nats-dev)");
        ClientProgram.build(List.of("go", "build", "-o", BINARY.toString(), "./src/test/go/clienttest"), MODULE,
                Map.of("GO111MODULE", "off", "GOPATH", "/usr/share/gocode",
                        "GOCACHE", MODULE.resolve("target").resolve("go-cache").toString(), "GOFLAGS", ""));
    }

    @Override
    List<String> command(String url, String caseName) {
        return List.of(BINARY.toString(), "-url", url, caseName);
    }
}
