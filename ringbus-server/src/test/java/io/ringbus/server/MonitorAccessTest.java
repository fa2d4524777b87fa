package io.ringbus.server;

import io.ringbus.core.Scope;
import org.bouncycastle.crypto.generators.OpenBSDBCrypt;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Collections;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Who can reach the monitoring port, where it listens, and what /metrics serves; bcrypt
 * credentials are checked off the monitor's loop, so /healthz never waits for them.
 */
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
    void bcryptChecksLeaveTheMonitorLoopAndHealthzNeverWaitsForThem() throws Exception {
        byte[] salt = new byte[16];
        new SecureRandom().nextBytes(salt);
        String hash = OpenBSDBCrypt.generate("2b", "wonderland".toCharArray(), salt, 11);
        server = ServerUnderTest.start(c -> c.monitorPort(0).token("r00t", Scope.ROOT).user("alice", hash, Scope.ROOT)
                .authCheckThreads(1));
        MonitorClient monitor = new MonitorClient(server.monitorPort());
        assertThat(monitor.get("/healthz").statusCode()).isEqualTo(200); // the HTTP client is ready
        int pipelined = 8;
        try (Socket guesser = new Socket(InetAddress.getLoopbackAddress(), server.monitorPort())) {
            guesser.setSoTimeout(15_000);
            StringBuilder requests = new StringBuilder();
            for (int i = 0; i < pipelined; i++) { // each a new password: checked one after another
                requests.append("GET /varz HTTP/1.1\r\nHost: x\r\nAuthorization: ")
                        .append(basic("alice", "guess-" + i)).append("\r\n\r\n");
            }
            guesser.getOutputStream().write(requests.toString().getBytes(StandardCharsets.US_ASCII));
            guesser.getOutputStream().flush();

            assertThat(monitor.get("/healthz").statusCode()).isEqualTo(200);
            // Before the pool, the monitor's one loop checked all of them before it read /healthz.
            byte[] answered = guesser.getInputStream().readNBytes(guesser.getInputStream().available());
            assertThat(statusLines(new String(answered, StandardCharsets.US_ASCII)))
                    .as("answers to the guesses when /healthz answered").isLessThan(pipelined);

            String all = new String(readResponses(guesser, pipelined, answered), StandardCharsets.US_ASCII);
            assertThat(statusLines(all)).isEqualTo(pipelined);
            assertThat(all).doesNotContain("200 OK").contains("401 Unauthorized");
        }
        long runBefore = checksRun(monitor);
        try (Socket repeater = new Socket(InetAddress.getLoopbackAddress(), server.monitorPort())) {
            repeater.setSoTimeout(15_000);
            String request = "GET /varz HTTP/1.1\r\nHost: x\r\nAuthorization: " + basic("alice", "same-guess")
                    + "\r\n\r\n";
            repeater.getOutputStream().write(request.repeat(40).getBytes(StandardCharsets.US_ASCII));
            repeater.getOutputStream().flush();
            String answers = new String(readResponses(repeater, 40, new byte[0]), StandardCharsets.US_ASCII);
            assertThat(statusLines(answers)).isEqualTo(40);
            assertThat(answers).doesNotContain("200 OK");
        }
        assertThat(checksRun(monitor) - runBefore).as("40 pipelined requests with one credential: one check")
                .isEqualTo(1);
        assertThat(monitor.get("/varz", "Authorization", basic("alice", "wonderland")).statusCode()).isEqualTo(200);
    }

    private static long checksRun(MonitorClient monitor) {
        return MonitorClient.number(MonitorClient.field(MonitorClient.field(
                monitor.json("/varz", "Authorization", "Bearer r00t"), "ringbus"), "auth_checks"), "run");
    }

    private static int statusLines(String responses) {
        return responses.split("HTTP/1\\.1 ", -1).length - 1;
    }

    /** Reads until {@code count} responses (each with a Content-Length body), {@code start} included, have arrived. */
    private static byte[] readResponses(Socket socket, int count, byte[] start) throws IOException {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        all.write(start);
        InputStream in = socket.getInputStream();
        byte[] buffer = new byte[8192];
        while (statusLines(all.toString(StandardCharsets.US_ASCII)) < count || !complete(all.toString(
                StandardCharsets.US_ASCII))) {
            int n = in.read(buffer);
            if (n < 0) {
                break;
            }
            all.write(buffer, 0, n);
        }
        return all.toByteArray();
    }

    /** @return whether the last response's body has arrived in full */
    private static boolean complete(String responses) {
        int last = responses.lastIndexOf("HTTP/1.1 ");
        int headersEnd = responses.indexOf("\r\n\r\n", last);
        if (last < 0 || headersEnd < 0) {
            return false;
        }
        Matcher length = Pattern.compile("(?i)content-length: (\\d+)").matcher(
                responses.substring(last, headersEnd));
        return length.find() && responses.length() - headersEnd - 4 >= Integer.parseInt(length.group(1));
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
