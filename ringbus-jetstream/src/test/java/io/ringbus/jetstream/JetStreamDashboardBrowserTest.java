package io.ringbus.jetstream;

import io.nats.client.Connection;
import io.nats.client.Nats;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * JetStream's streams and consumers cards on the dashboard, in a real headless browser (the
 * server's {@code src/test/node/dashboard-test.js}, Debian's chromium, playwright-core): a stream
 * and a durable consumer made with jnats, then messages published into the stream while the page
 * is open; the page must show the stream with its subjects and a message count above zero, and
 * the consumer with what it has pending. The screenshot is kept:
 * {@code ringbus-jetstream/target/dashboard-jetstream.png}.
 *
 * <p>Needs node, {@code npm ci --prefix ringbus-server/src/test/node} and /usr/bin/chromium
 * (bin/test installs all three); skipped only when one is missing.
 */
@Timeout(120)
@SuppressWarnings("try") // jnats' Connection.close() may throw InterruptedException
class JetStreamDashboardBrowserTest {
    private static final Path NODE_PROJECT = Path.of("..", "ringbus-server", "src", "test", "node").toAbsolutePath()
            .normalize();
    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path SCREENSHOT = Path.of("target", "dashboard-jetstream.png").toAbsolutePath();

    @TempDir
    Path store;

    @Test
    void dashboardShowsTheStreamsAndConsumersCards() throws Exception {
        assumeTrue(Files.isExecutable(CHROMIUM), CHROMIUM + " is not installed (bin/test installs it)");
        assumeTrue(Files.isDirectory(NODE_PROJECT.resolve("node_modules").resolve("playwright-core")),
                "no node_modules in " + NODE_PROJECT + ": run npm ci --prefix ringbus-server/src/test/node");
        assumeTrue(canRun("node", "--version"), "node is not installed");
        AtomicBoolean trafficOn = new AtomicBoolean(true);
        try (JetStreamServer server = JetStreamServer.startMonitored(store, b -> b);
             Connection nats = Nats.connect(server.url())) {
            JszTest.ordersWithAConsumer(nats);
            Files.createDirectories(SCREENSHOT.getParent());
            Files.deleteIfExists(SCREENSHOT);
            Process node = new ProcessBuilder("node", NODE_PROJECT.resolve("dashboard-test.js").toString(),
                    "http://127.0.0.1:" + server.monitorPort() + "/", SCREENSHOT.toString(),
                    "JetStream streams", "ORDERS", "orders.>", "JetStream consumers", "dur")
                    .directory(NODE_PROJECT.toFile()).redirectErrorStream(true).start();
            StringBuilder output = new StringBuilder();
            CompletableFuture<Void> traffic = new CompletableFuture<>();
            try (BufferedReader lines = new BufferedReader(new InputStreamReader(node.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String line;
                while ((line = lines.readLine()) != null) {
                    output.append(line).append('\n');
                    if (line.startsWith("READY ") && !traffic.isDone()) {
                        Thread.ofPlatform().daemon().name("dashboard-traffic")
                                .start(() -> publish(server.url(), trafficOn, traffic));
                    }
                }
            }
            if (!node.waitFor(60, TimeUnit.SECONDS)) {
                node.destroyForcibly();
                throw new AssertionError("dashboard-test.js did not finish; output:\n" + output);
            }
            trafficOn.set(false);
            traffic.get(10, TimeUnit.SECONDS);

            assertThat(node.exitValue()).as("node exit code; output:%n%s", output).isZero();
            String streams = line(output, "card JetStream streams");
            assertThat(streams).contains("stream|subjects|messages|bytes|first seq|last seq|consumers")
                    .contains("EMPTY|empty|0|0|0|0|0");
            String orders = streams.substring(streams.indexOf("ORDERS|orders.>|"));
            long messages = Long.parseLong(orders.split("\\|")[2].replace(",", ""));
            assertThat(messages).as(streams).isGreaterThan(2);
            assertThat(orders.split("\\|")[6].trim().split(" ")[0]).as("consumers of ORDERS").isEqualTo("1");
            assertThat(line(output, "card JetStream consumers")).contains("ORDERS|dur|");
            assertThat(Files.size(SCREENSHOT)).isGreaterThan(10_000);
        } finally {
            trafficOn.set(false);
        }
    }

    /** Publishes into the stream (the durable path) every 50 ms until the browser is done. */
    private static void publish(String url, AtomicBoolean on, CompletableFuture<Void> done) {
        try (Connection publisher = Nats.connect(url)) {
            byte[] payload = new byte[64];
            while (on.get()) {
                for (int i = 0; i < 20; i++) {
                    publisher.publish("orders.dash", payload);
                }
                publisher.flush(Duration.ofSeconds(5));
                LockSupport.parkNanos(50_000_000);
            }
            done.complete(null);
        } catch (Exception e) {
            done.completeExceptionally(e);
        }
    }

    private static String line(StringBuilder output, String prefix) {
        return output.toString().lines().filter(l -> l.startsWith(prefix)).findFirst()
                .orElseThrow(() -> new AssertionError("no '" + prefix + "' line in:\n" + output));
    }

    private static boolean canRun(String... command) {
        try {
            Process process = new ProcessBuilder(List.of(command)).redirectErrorStream(true).start();
            process.getInputStream().readAllBytes();
            return process.waitFor(10, TimeUnit.SECONDS) && process.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
