package io.ringbus.server;

import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.ringbus.core.ExecutionMode;
import io.ringbus.core.SubscribeOptions;
import io.ringbus.server.monitor.BlockedHandlerLog;
import io.ringbus.server.monitor.MonitorSources;
import io.ringbus.server.monitor.OutboxBacklog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

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
 * The dashboard in a real headless browser: Debian's chromium driven by playwright-core
 * ({@code src/test/node/dashboard-test.js}) opens the page of a server with monitoring on a free
 * port; once the page shows its first numbers, jnats traffic starts, and the page must show the
 * totals, the rate and the connections change without a reload. The screenshot is kept as a test
 * artifact: {@code ringbus-server/target/dashboard.png}.
 *
 * <p>Needs node, {@code npm ci --prefix ringbus-server/src/test/node} and /usr/bin/chromium
 * (bin/test installs all three); skipped only when one is missing.
 */
@Timeout(90)
class DashboardBrowserTest {
    private static final Path PROJECT = Path.of("src", "test", "node").toAbsolutePath();
    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path SCREENSHOT = Path.of("target", "dashboard.png").toAbsolutePath();
    private static final long PROCESS_TIMEOUT_SECONDS = 60;

    private final AtomicBoolean trafficOn = new AtomicBoolean(true);
    private ServerUnderTest server;

    @AfterEach
    void stop() {
        trafficOn.set(false);
        if (server != null) {
            server.close();
        }
    }

    @Test
    void dashboardShowsLiveNumbersThatChangeWhenTrafficFlows() throws Exception {
        assumeTrue(Files.isExecutable(CHROMIUM), CHROMIUM + " is not installed (bin/test installs it)");
        assumeTrue(Files.isDirectory(PROJECT.resolve("node_modules").resolve("playwright-core")),
                "no node_modules in " + PROJECT + ": run npm ci --prefix ringbus-server/src/test/node");
        assumeTrue(canRun("node", "--version"), "node is not installed");

        BlockedHandlerLog blocked = new BlockedHandlerLog(20);
        MonitorSources sources = MonitorSources.builder().blockedHandlers(blocked)
                .outboxBacklog(() -> new OutboxBacklog("orders-relay", 12, 0, 3, 4_321)).build();
        server = ServerUnderTest.start(b -> b.blockedHandlerListener(blocked), c -> c.monitorPort(0), sources);
        server.broker.subscribe("pub.dash.>", m -> { }, SubscribeOptions.defaults().mode(ExecutionMode.WORKER));
        Files.deleteIfExists(SCREENSHOT);
        Files.createDirectories(SCREENSHOT.getParent());

        Process node = new ProcessBuilder("node", PROJECT.resolve("dashboard-test.js").toString(),
                "http://127.0.0.1:" + server.monitorPort() + "/", SCREENSHOT.toString())
                .directory(PROJECT.toFile()).redirectErrorStream(true).start();
        StringBuilder output = new StringBuilder();
        CompletableFuture<Void> traffic = new CompletableFuture<>();
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(node.getInputStream(),
                StandardCharsets.UTF_8))) {
            String line;
            while ((line = lines.readLine()) != null) {
                output.append(line).append('\n');
                if (line.startsWith("READY ") && !traffic.isDone()) {
                    Thread.ofPlatform().daemon().name("dashboard-traffic").start(() -> publish(traffic));
                }
            }
        }
        if (!node.waitFor(PROCESS_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            node.destroyForcibly();
            throw new AssertionError("dashboard-test.js did not finish; output:\n" + output);
        }
        trafficOn.set(false);
        traffic.get(10, TimeUnit.SECONDS);

        assertThat(node.exitValue()).as("node exit code; output:%n%s", output).isZero();
        String result = output.toString().lines().filter(l -> l.startsWith("RESULT ok")).findFirst()
                .orElseThrow(() -> new AssertionError("no RESULT ok line in:\n" + output));
        long before = number(result, "before=");
        long after = number(result, "after=");
        assertThat(after).as(result).isGreaterThan(before);
        assertThat(number(result, "rate=")).as(result).isPositive();
        assertThat(output.toString()).contains("outbox 'relayorders-relaypending12");
        byte[] png = Files.readAllBytes(SCREENSHOT);
        assertThat(png.length).isGreaterThan(10_000);
        assertThat(new String(png, 1, 3, StandardCharsets.US_ASCII)).isEqualTo("PNG");
    }

    /** Publishes a burst every 50 ms until the browser is done, from a jnats client that also subscribes. */
    private void publish(CompletableFuture<Void> done) {
        try {
            Connection publisher = Nats.connect(Options.builder().server(server.url()).connectionName("dash-pub")
                    .connectionTimeout(Duration.ofSeconds(5)).build());
            try {
                // Its own messages come back (echo): the page shows messages out too.
                publisher.createDispatcher(m -> { }).subscribe("pub.dash.>");
                byte[] payload = new byte[64];
                while (trafficOn.get()) {
                    for (int i = 0; i < 50; i++) {
                        publisher.publish("pub.dash.orders", payload);
                    }
                    publisher.flush(Duration.ofSeconds(5));
                    LockSupport.parkNanos(50_000_000);
                }
            } finally {
                publisher.close();
            }
            done.complete(null);
        } catch (Exception e) {
            done.completeExceptionally(e);
        }
    }

    private static long number(String line, String key) {
        int at = line.indexOf(key) + key.length();
        int end = at;
        while (end < line.length() && Character.isDigit(line.charAt(end))) {
            end++;
        }
        return Long.parseLong(line.substring(at, end));
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
