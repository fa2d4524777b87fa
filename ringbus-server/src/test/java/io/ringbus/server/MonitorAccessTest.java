package io.ringbus.server;

import io.ringbus.core.Scope;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.ConnectException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Collections;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Who can reach the monitoring port, where it listens, and what /metrics serves. */
@Timeout(30)
class MonitorAccessTest {
    /** A sample line of the Prometheus text format: {@code name{labels} value [timestamp]}. */
    private static final Pattern SAMPLE = Pattern.compile(
            "[a-zA-Z_:][a-zA-Z0-9_:]*(\\{([a-zA-Z_][a-zA-Z0-9_]*=\"([^\"\\\\]|\\\\.)*\",?)*})? "
                    + "(-?[0-9.]+(E-?[0-9]+)?|NaN|[+-]Inf)( -?[0-9]+)?");

    @AutoClose
    private ServerUnderTest server;

    @Test
    void withCredentialsConfiguredEveryEndpointRequiresOne() {
        server = ServerUnderTest.start(c -> c.monitorPort(0).token("s3cr3t", Scope.PUBLIC)
                .token("r00t", Scope.ROOT).user("alice", "wonderland", Scope.PRIVATE));
        MonitorClient monitor = new MonitorClient(server.monitorPort());
        for (String path : new String[] {"/", "/varz", "/connz", "/subsz", "/metrics", "/dashz"}) {
            HttpResponse<String> anonymous = monitor.get(path);
            assertThat(anonymous.statusCode()).as(path).isEqualTo(401);
            assertThat(anonymous.headers().allValues("www-authenticate"))
                    .anySatisfy(v -> assertThat(v).startsWith("Basic realm="))
                    .anySatisfy(v -> assertThat(v).startsWith("Bearer realm="));
            assertThat(monitor.get(path, "Authorization", "Bearer r00t").statusCode()).as(path).isEqualTo(200);
            // Pattern tags and subjects of every scope: ROOT only.
            boolean rootOnly = path.equals("/") || path.equals("/metrics") || path.equals("/dashz");
            assertThat(monitor.get(path, "Authorization", "Bearer s3cr3t").statusCode()).as(path)
                    .isEqualTo(rootOnly ? 403 : 200);
        }
        assertThat(monitor.get("/healthz").statusCode()).as("/healthz reveals nothing: no credentials").isEqualTo(200);
        assertThat(monitor.get("/varz", "Authorization", "Bearer s3cr3").statusCode()).isEqualTo(401);
        assertThat(monitor.get("/varz", "Authorization", "Bearer s3cr3tt").statusCode()).isEqualTo(401);
        assertThat(monitor.get("/varz", "Authorization", basic("alice", "wonderland")).statusCode()).isEqualTo(200);
        assertThat(monitor.get("/varz", "Authorization", basic("alice", "wrong")).statusCode()).isEqualTo(401);
        assertThat(monitor.get("/varz", "Authorization", basic("bob", "wonderland")).statusCode()).isEqualTo(401);
        assertThat(monitor.get("/varz", "Authorization", "Basic !!notbase64").statusCode()).isEqualTo(401);
        HttpResponse<String> varz = monitor.get("/varz", "Authorization", "Bearer s3cr3t");
        assertThat(varz.body()).contains("\"auth_required\":true").doesNotContain("s3cr3t", "wonderland");
    }

    @Test
    void withoutCredentialsConfiguredNoneIsNeeded() {
        server = ServerUnderTest.start(c -> c.monitorPort(0));
        assertThat(new MonitorClient(server.monitorPort()).get("/varz").statusCode()).isEqualTo(200);
    }

    @Test
    void bindsToLoopbackByDefault() throws Exception {
        assertThat(ServerConfig.defaults().monitorHost()).isEqualTo("127.0.0.1");
        assertThat(ServerConfig.defaults().monitorPort()).isEqualTo(8222);
        assertThat(ServerConfig.defaults().monitorEnabled()).isTrue();
        InetAddress external = Collections.list(NetworkInterface.getNetworkInterfaces()).stream()
                .flatMap(i -> Collections.list(i.getInetAddresses()).stream())
                .filter(a -> a instanceof Inet4Address && !a.isLoopbackAddress()).findFirst().orElse(null);
        assumeTrue(external != null, "this machine has no non-loopback IPv4 address to try");
        server = ServerUnderTest.start(c -> c.monitorPort(0));
        int port = server.monitorPort();
        try (Socket loopback = new Socket()) {
            loopback.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 2_000);
        }
        assertThatThrownBy(() -> {
            try (Socket outside = new Socket()) {
                outside.connect(new InetSocketAddress(external, port), 2_000);
            }
        }).as("connecting on %s:%d", external, port).isInstanceOf(ConnectException.class);
    }

    @Test
    void turnedOffThereIsNoMonitoringPortNorThread() {
        Set<Long> before = monitorThreads();
        server = ServerUnderTest.start(c -> c.monitorPort(ServerConfig.MONITOR_OFF));
        assertThat(server.monitorPort()).isEqualTo(ServerConfig.MONITOR_OFF);
        assertThat(monitorThreads()).isSubsetOf(before);
        assertThat(server.stats().connections()).isZero();
    }

    @Test
    void aTakenMonitoringPortFailsTheStartNamingIt() throws Exception {
        try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            assertThatThrownBy(() -> ServerUnderTest.start(c -> c.monitorPort(taken.getLocalPort())))
                    .isInstanceOf(java.io.UncheckedIOException.class)
                    .hasMessageContaining("127.0.0.1:" + taken.getLocalPort())
                    .hasMessageContaining("--http-port");
        }
    }

    @Test
    void metricsIsPrometheusTextWithJvmMeters() {
        server = ServerUnderTest.start(c -> c.monitorPort(0));
        MonitorClient monitor = new MonitorClient(server.monitorPort());
        HttpResponse<String> scrape = monitor.get("/metrics");
        assertThat(scrape.statusCode()).isEqualTo(200);
        assertThat(scrape.headers().firstValue("content-type")).hasValueSatisfying(
                v -> assertThat(v).startsWith("text/plain; version=0.0.4"));
        assertThat(scrape.body().lines()).contains("# TYPE jvm_memory_used_bytes gauge", "# TYPE process_uptime_seconds gauge");
        assertThat(scrape.body().lines().filter(l -> !l.isEmpty() && !l.startsWith("#")).collect(Collectors.toList()))
                .isNotEmpty()
                .allSatisfy(line -> assertThat(line).matches(SAMPLE));
        assertThat(scrape.body()).containsPattern("(?m)^system_cpu_count [0-9.]+$");

        HttpResponse<String> open = monitor.get("/metrics", "Accept",
                "application/openmetrics-text; version=1.0.0; charset=utf-8");
        assertThat(open.headers().firstValue("content-type")).hasValueSatisfying(
                v -> assertThat(v).startsWith("application/openmetrics-text"));
        assertThat(open.body()).endsWith("# EOF\n");
    }

    private static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    private static Set<Long> monitorThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith("ringbus-monitor"))
                .map(Thread::threadId).collect(Collectors.toSet());
    }
}
