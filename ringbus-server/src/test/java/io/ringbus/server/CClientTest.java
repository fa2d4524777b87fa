package io.ringbus.server;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The {@link NatsClientContractTest} cases with the NATS C client: {@code src/test/c/clienttest.c}
 * (and its TLS cases, {@code tls.c}), compiled with gcc against Debian's libnats-dev ({@code -lnats}) into {@code target/c-clienttest}.
 *
 * <p>Needs {@code gcc} and {@code /usr/include/nats/nats.h} (bin/test installs libnats-dev);
 * skipped only when either is missing.
 */
class CClientTest extends NatsClientContractTest {
    private static final Path HEADER = Path.of("/usr/include/nats/nats.h");
    private static final Path BINARY = MODULE.resolve("target").resolve("c-clienttest");

    @Override
    void buildProgram() throws Exception {
        buildCProgram();
    }

    @Override
    List<String> command(String url, String caseName) {
        return cCommand(url, caseName);
    }

    /** Skips the calling test class (assumption) without gcc or libnats-dev, else builds the program once per JVM. */
    static void buildCProgram() throws Exception {
        assumeTrue(ClientProgram.onPath("gcc"), "gcc is not installed");
        assumeTrue(Files.isRegularFile(HEADER), HEADER + " is missing (Debian: libnats-dev)");
        ClientProgram.build(List.of("gcc", "-std=c11", "-O1", "-Wall", "-Wextra", "-Werror", "-o", BINARY.toString(),
                "src/test/c/clienttest.c", "src/test/c/tls.c", "-lnats", "-lpthread"), MODULE, Map.of());
    }

    /** @return the command line that runs the C program's {@code caseName} against {@code url} */
    static List<String> cCommand(String url, String caseName) {
        return List.of(BINARY.toString(), url, caseName);
    }
}
