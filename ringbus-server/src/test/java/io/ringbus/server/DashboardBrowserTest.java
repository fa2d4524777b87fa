package io.ringbus.server;

import io.nats.client.Connection;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsMessage;
import io.ringbus.core.ExecutionMode;
import io.ringbus.core.Scope;
import io.ringbus.core.Storage;
import io.ringbus.core.StoredStream;
import io.ringbus.core.StreamConfig;
import io.ringbus.core.SubscribeOptions;
import io.ringbus.server.monitor.BlockedHandlerLog;
import io.ringbus.server.monitor.MonitorSources;
import io.ringbus.server.monitor.OutboxBacklog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
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
 * totals, the rate and the connections change without a reload, the content filters, the durable
 * subject and its consumer, a watchdog warning; at 1,280 and 1,920 px no card's content is wider
 * than the card; the chart's two series are styled apart (equal rates hide neither); the header
 * names the server once. The screenshot is kept as a test artifact,
 * {@code ringbus-server/target/dashboard.png}.
 *
 * <p>README's screenshot: with {@code -Dringbus.screenshot=docs/dashboard.png} (or the
 * environment variable {@code RINGBUS_SCREENSHOT}; a relative path is taken from the project's
 * root) the test lets the traffic run for {@value #SCREENSHOT_HISTORY_SECONDS} s, so that the
 * chart has a history, and copies the screenshot there:
 * <pre>
 * ./mvnw -B -q -o -pl ringbus-server -am test -Dtest=DashboardBrowserTest -Dsurefire.failIfNoSpecifiedTests=false \
 *     -Djacoco.skip=true -Dringbus.screenshot=docs/dashboard.png
 * </pre>
 *
 * <p>Needs node, {@code npm ci --prefix ringbus-server/src/test/node} and /usr/bin/chromium
 * (bin/test installs all three); skipped only when one is missing.
 */
@Timeout(180)
class DashboardBrowserTest {
    private static final Path PROJECT = Path.of("src", "test", "node").toAbsolutePath();
    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path SCREENSHOT = Path.of("target", "dashboard.png").toAbsolutePath();
    private static final int SCREENSHOT_HISTORY_SECONDS = 45;
    private static final long PROCESS_TIMEOUT_SECONDS = 150;
    private static final byte[] SMALL = new byte[64];

    @TempDir
    Path store;

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
    void dashboardShowsLiveNumbersFiltersDurableSubjectsAndFitsCommonWidths() throws Exception {
        assumeTrue(Files.isExecutable(CHROMIUM), CHROMIUM + " is not installed (bin/test installs it)");
        assumeTrue(Files.isDirectory(PROJECT.resolve("node_modules").resolve("playwright-core")),
                "no node_modules in " + PROJECT + ": run npm ci --prefix ringbus-server/src/test/node");
        assumeTrue(canRun("node", "--version"), "node is not installed");
        Path readmeScreenshot = readmeScreenshot();

        BlockedHandlerLog blocked = new BlockedHandlerLog(20);
        Storage storage = Storage.local(store);
        StoredStream orders = storage.stream(StreamConfig.of("orders.>"));
        MonitorSources sources = MonitorSources.builder().blockedHandlers(blocked)
                .outboxBacklog(() -> new OutboxBacklog("orders-relay", 12, 0, 3, 4_321))
                .storage(storage, List.of(orders)).build();
        // A worker handler past 100 ms is reported: the slow one below shows up as a watchdog warning.
        server = ServerUnderTest.start(b -> b.blockedHandlerListener(blocked).storage(storage)
                .maxWorkerExecuteTime(Duration.ofMillis(100)).watchdogInterval(Duration.ofMillis(20)),
                c -> c.monitorPort(0), sources);
        server.broker.registerStream(StreamConfig.of("orders.>"), Scope.PUBLIC);
        SubscribeOptions worker = SubscribeOptions.defaults().mode(ExecutionMode.WORKER);
        server.broker.subscribe("pub.dash.>", m -> { }, worker);
        server.broker.subscribe("orders.>", m -> { }, worker.durable("billing"));
        server.broker.subscribe("pub.dash.slow", m -> LockSupport.parkNanos(300_000_000L), worker);
        Files.deleteIfExists(SCREENSHOT);
        Files.createDirectories(SCREENSHOT.getParent());

        List<String> command = new ArrayList<>(List.of("node", PROJECT.resolve("dashboard-test.js").toString(),
                "http://127.0.0.1:" + server.monitorPort() + "/", SCREENSHOT.toString(),
                "--expect=#subs-body=region", "--expect=#subs-body=auditors",
                "--expect=#conns-body=billing-worker", "--expect=#streams-body=orders_all",
                "--expect=#consumers-body=billing", "--expect=#watchdog-body=pub.dash.slow",
                "--expect=#federation-body=not federated"));
        if (readmeScreenshot != null) {
            command.add("--history=" + SCREENSHOT_HISTORY_SECONDS);
        }
        Process node = new ProcessBuilder(command).directory(PROJECT.toFile()).redirectErrorStream(true).start();
        StringBuilder output = new StringBuilder();
        CompletableFuture<Void> traffic = new CompletableFuture<>();
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(node.getInputStream(),
                StandardCharsets.UTF_8))) {
            String line;
            while ((line = lines.readLine()) != null) {
                output.append(line).append('\n');
                if (line.startsWith("READY ") && !traffic.isDone()) {
                    server.broker.publish("pub.dash.slow", "slow");
                    Thread.ofPlatform().daemon().name("dashboard-traffic").start(() -> traffic(traffic));
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
        assertThat(output.toString()).contains("outbox 'relayorders-relaypending12", "layout ok at 1280 px",
                "layout ok at 1920 px", "check #streams-body shows 'orders_all'");
        byte[] png = Files.readAllBytes(SCREENSHOT);
        assertThat(png.length).isGreaterThan(10_000);
        assertThat(new String(png, 1, 3, StandardCharsets.US_ASCII)).isEqualTo("PNG");
        if (readmeScreenshot != null) {
            Files.copy(SCREENSHOT, readmeScreenshot, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    /** @return where README's screenshot goes, or {@code null} when not asked for */
    private static Path readmeScreenshot() {
        String target = System.getProperty("ringbus.screenshot", System.getenv("RINGBUS_SCREENSHOT"));
        if (target == null || target.isBlank()) {
            return null;
        }
        // Maven runs the tests in the module's directory; the path is given from the project's root.
        return Path.of("").toAbsolutePath().getParent().resolve(target).normalize();
    }

    /**
     * What the page shows while it is checked: three named jnats connections (a publisher whose
     * rate swells and ebbs, a subscriber with a content filter on the region header, a queue
     * group) and publishes to the durable subject orders.>, every 100 ms until the browser is done.
     */
    @SuppressWarnings("try") // jnats' Connection.close() may throw InterruptedException
    private void traffic(CompletableFuture<Void> done) {
        try (Connection publisher = connect("order-service");
             Connection billing = connect("billing-worker");
             Connection audit = connect("audit-tap")) {
            String euOnly = "{\"subject\":\"pub.dash.orders\",\"headers\":{\"region\":[\"eu\"]}}";
            Message reply = billing.request("$RB.API.FILTER", euOnly.getBytes(StandardCharsets.UTF_8),
                    Duration.ofSeconds(5));
            if (reply == null || new String(reply.getData(), StandardCharsets.UTF_8).contains("error")) {
                throw new IllegalStateException("$RB.API.FILTER refused: " + reply);
            }
            billing.createDispatcher(m -> { }).subscribe("pub.dash.orders");
            audit.createDispatcher(m -> { }).subscribe("pub.dash.>", "auditors");
            billing.flush(Duration.ofSeconds(5));
            audit.flush(Duration.ofSeconds(5));
            long start = System.nanoTime();
            long order = 0;
            while (trafficOn.get()) {
                double seconds = (System.nanoTime() - start) / 1e9;
                int burst = (int) (40 + 30 * Math.sin(seconds / 4));
                for (int i = 0; i < burst; i++) {
                    Headers headers = new Headers().add("region", i % 2 == 0 ? "eu" : "us");
                    publisher.publish(NatsMessage.builder().subject("pub.dash.orders").headers(headers).data(SMALL)
                            .build());
                }
                order++;
                publisher.publish("orders.eu.created", ("{\"order\":" + order + "}").getBytes(StandardCharsets.UTF_8));
                publisher.flush(Duration.ofSeconds(5));
                LockSupport.parkNanos(100_000_000);
            }
            done.complete(null);
        } catch (Exception e) {
            done.completeExceptionally(e);
        }
    }

    private Connection connect(String name) throws IOException, InterruptedException {
        return Nats.connect(Options.builder().server(server.url()).connectionName(name)
                .connectionTimeout(Duration.ofSeconds(5)).build());
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
