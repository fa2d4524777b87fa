package io.ringbus.server;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The {@link NatsClientContractTest} cases with the NATS C client: {@code src/test/c/clienttest.c},
 * compiled with gcc against Debian's libnats-dev ({@code -lnats}) into {@code target/c-clienttest}.
 *
 * <p>Needs {@code gcc} and {@code /usr/include/nats/nats.h} (bin/test installs libnats-dev);
 * skipped only when either is missing.
 */
class CClientTest extends NatsClientContractTest {
    private static final Path HEADER = Path.of("/usr/include/nats/nats.h");
    private static final Path BINARY = MODULE.resolve("target").resolve("c-clienttest");

    @Override
    void buildProgram() throws Exception {
        assumeTrue(ClientProgram.onPath("gcc"), "gcc is not installed");
        assumeTrue(Files.isRegularFile(HEADER), HEADER + " is missing (Debian: libnats-dev)");
        ClientProgram.build(List.of("gcc", "-std=c11", "-O1", "-Wall", "-Wextra", "-Werror", "-o", BINARY.toString(),
                "src/test/c/clienttest.c", "-lnats", "-lpthread"), MODULE, Map.of());
    }

    @Override
    List<String> command(String url, String caseName) {
        return List.of(BINARY.toString(), url, caseName);
    }
}
