package io.ringbus.jetstream;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The {@link JetStreamClientContractTest} cases with nats.js (npm {@code nats} 2.x: its
 * JetStream, KV and object-store APIs): {@code src/test/node/jscontract.js}, run by node with the
 * npm project of ringbus-server's client tests ({@code ringbus-server/src/test/node}, which
 * bin/test installs with {@code npm ci}) on {@code NODE_PATH}, so that one lockfile pins the
 * client for every module.
 *
 * <p>Skipped only when node or that {@code node_modules} is missing.
 */
class NodeJetStreamContractTest extends JetStreamClientContractTest {
    private static Path nodeModules() {
        return module().resolveSibling("ringbus-server").resolve("src/test/node/node_modules");
    }

    @Override
    void buildProgram() throws Exception {
        assumeTrue(nodeRuns(), "node is not installed");
        assumeTrue(Files.isDirectory(nodeModules().resolve("nats")),
                "no " + nodeModules() + ": run npm ci --prefix ringbus-server/src/test/node (bin/test does)");
    }

    @Override
    List<String> command(String url) {
        return List.of("node", module().resolve("src/test/node/jscontract.js").toString(), url);
    }

    @Override
    Map<String, String> environment() {
        return Map.of("NODE_PATH", nodeModules().toString());
    }

    @Override
    List<String> cases() {
        List<String> cases = new ArrayList<>(CASES);
        cases.addAll(OBJECT_STORE_CASES);
        return cases;
    }

    private static boolean nodeRuns() throws InterruptedException {
        try {
            Process node = new ProcessBuilder("node", "--version").redirectErrorStream(true).start();
            node.getInputStream().readAllBytes();
            return node.waitFor(30, TimeUnit.SECONDS) && node.exitValue() == 0;
        } catch (IOException notInstalled) {
            return false;
        }
    }
}
