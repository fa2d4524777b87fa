package io.ringbus.server;

import io.ringbus.core.ExecutionMode;
import io.ringbus.core.SubscribeOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * ringbus-server against a second real client in another language: the nats.js client
 * (npm {@code nats}) runs {@code src/test/node/client-test.js} in a node process, doing pub/sub
 * with wildcards, queue groups, headers, request/reply with node and in-process responders,
 * no-responders and echo off, while in-process subscribers and responders take part.
 *
 * <p>Needs {@code node} and {@code npm ci --prefix ringbus-server/src/test/node} (bin/test does
 * both); skipped only when either is missing.
 */
@Timeout(90)
class NodeClientTest {
    private static final Path PROJECT = Path.of("src", "test", "node").toAbsolutePath();
    private static final long PROCESS_TIMEOUT_SECONDS = 60;

    private ServerUnderTest server;

    @AfterEach
    void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void nodeNatsClientDoesPubSubAndRequestReplyWithNodeAndInProcessPeers() throws Exception {
        assumeNodeClient();

        server = ServerUnderTest.start();
        SubscribeOptions worker = SubscribeOptions.defaults().mode(ExecutionMode.WORKER);
        server.broker.subscribe("pub.java.svc", m -> server.broker.publish(m.replyTo(),
                "java:" + new String(m.payload(byte[].class), StandardCharsets.UTF_8)), worker);
        server.broker.subscribe("pub.java.emit", m -> {
            int count = Integer.parseInt(new String(m.payload(byte[].class), StandardCharsets.UTF_8));
            for (int i = 0; i < count; i++) {
                server.broker.publish("pub.java.to.node", "j" + i);
            }
            server.broker.publish(m.replyTo(), "sent");
        }, worker);
        Queue<Object> fromNode = new ConcurrentLinkedQueue<>();
        server.broker.subscribe("pub.node.to.java", m -> fromNode.add(m.payload()));

        ProcessResult result = run(List.of("node", PROJECT.resolve("client-test.js").toString(),
                Integer.toString(server.port())));

        assertThat(result.exitCode()).as("node exit code; output:%n%s", result.output()).isZero();
        assertThat(result.output().lines()).as(result.output())
                .anySatisfy(line -> assertThat(line).startsWith("RESULT ok checks="))
                .contains("check queue group", "check headers", "check request java responder 4",
                        "check in-process to node", "check no responders", "check no echo");
        assertThat(fromNode).hasSize(10).allSatisfy(p -> assertThat(p).isInstanceOf(byte[].class));
        assertThat(fromNode).extracting(p -> new String((byte[]) p, StandardCharsets.UTF_8))
                .containsExactly("n0", "n1", "n2", "n3", "n4", "n5", "n6", "n7", "n8", "n9");
        assertThat(server.stats().protocolErrors()).isZero();
        assertThat(server.stats().permissionViolations()).isZero();
    }

    /** Skips the calling test (assumption) without node or the npm nats package; bin/test installs both. */
    static void assumeNodeClient() {
        assumeTrue(nodeVersion() != null, "node is not installed");
        assumeTrue(Files.isDirectory(PROJECT.resolve("node_modules").resolve("nats")),
                "no node_modules in " + PROJECT + ": run npm ci --prefix ringbus-server/src/test/node");
    }

    /** @return the command line that runs {@code src/test/node/clienttest.js}'s {@code caseName} against {@code url} */
    static List<String> nodeCommand(String url, String caseName) {
        return List.of("node", PROJECT.resolve("clienttest.js").toString(), url, caseName);
    }

    private record ProcessResult(int exitCode, String output) {
    }

    private static ProcessResult run(List<String> command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).directory(PROJECT.toFile()).redirectErrorStream(true).start();
        CompletableFuture<String> output = CompletableFuture.supplyAsync(() -> {
            try {
                return new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                return "(output unreadable: " + e + ")";
            }
        });
        if (!process.waitFor(PROCESS_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            throw new AssertionError(command + " did not finish within " + PROCESS_TIMEOUT_SECONDS + " s; output:\n"
                    + output.getNow("(none yet)"));
        }
        return new ProcessResult(process.exitValue(), output.join());
    }

    /** @return {@code node --version}, or {@code null} when node cannot be run */
    private static String nodeVersion() {
        try {
            ProcessResult result = run(List.of("node", "--version"));
            return result.exitCode() == 0 ? result.output().trim() : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }
}
