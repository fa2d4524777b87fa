package io.ringbus.jetstream;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The {@link JetStreamClientContractTest} cases with the NATS C client 3.4 (its JetStream and KV
 * API; it has no object store): {@code src/test/c/jscontract.c} and {@code jscontract_kv.c},
 * compiled with gcc against Debian's libnats-dev ({@code -lnats}) into {@code target/c-jscontract}.
 *
 * <p>Skipped only when gcc or {@code /usr/include/nats/nats.h} is missing (bin/test installs both).
 */
class CJetStreamContractTest extends JetStreamClientContractTest {
    private static final Path HEADER = Path.of("/usr/include/nats/nats.h");

    private static Path binary() {
        return module().resolve("target").resolve("c-jscontract");
    }

    @Override
    void buildProgram() throws Exception {
        assumeTrue(Files.isRegularFile(HEADER), HEADER + " is missing (Debian: libnats-dev)");
        List<String> gcc = List.of("gcc", "-std=c11", "-O1", "-Wall", "-Wextra", "-Werror", "-o", binary().toString(),
                "src/test/c/jscontract.c", "src/test/c/jscontract_kv.c", "-lnats", "-lpthread");
        Process process;
        try {
            process = new ProcessBuilder(gcc).directory(module().toFile()).redirectErrorStream(true).start();
        } catch (IOException noGcc) {
            assumeTrue(false, "gcc is not installed");
            throw noGcc;
        }
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(3, TimeUnit.MINUTES)).as("gcc ended").isTrue();
        assertThat(process.exitValue()).as("%s: %s", gcc, output).isZero();
    }

    @Override
    List<String> command(String url) {
        return List.of(binary().toString(), url);
    }

    @Override
    List<String> cases() {
        return CASES;
    }
}
