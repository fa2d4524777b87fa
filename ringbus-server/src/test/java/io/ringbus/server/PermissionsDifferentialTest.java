package io.ringbus.server;

import io.ringbus.testkit.LoopbackPorts;
import io.ringbus.core.Scope;
import io.ringbus.testkit.Await;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * ringbus-server enforces per-user permissions as nats-server does: the same users and
 * permissions are configured on a real nats-server ({@code /usr/sbin/nats-server}, on a free
 * port) and on a ringbus-server, the same protocol input goes to both, and the lines each sent
 * back (after INFO) must be equal: the {@code -ERR} texts, the verbose {@code +OK}s, what is
 * delivered and what is not. Skipped without nats-server.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(120)
class PermissionsDifferentialTest {
    private static final Path NATS_SERVER = Path.of("/usr/sbin/nats-server");
    private static final String NATS_CONFIG = """
            authorization {
              users = [
                {user: alice, password: pw, permissions: {
                  publish: {allow: ["orders.>", "_INBOX.>"], deny: ["orders.secret.*"]}
                  subscribe: {allow: ["orders.>", "jobs.* workers"], deny: ["orders.secret.*"]}
                }}
                {user: carol, password: pw, permissions: {allow_responses: true}}
                {user: root, password: pw}
              ]
            }
            """;

    private Process nats;
    private int natsPort;
    private ServerUnderTest ringbus;

    /** One write on connection {@code conn} (opened as {@code user}), then PING; the answer is read up to PONG. */
    private record Step(int conn, String bytes) {
    }

    private record Case(String name, Map<Integer, String> users, boolean verbose, List<Step> steps) {
    }

    private static List<Case> corpus() {
        return List.of(
                new Case("publish-deny-and-not-allowed", Map.of(0, "alice"), false, List.of(
                        new Step(0, "PUB orders.secret.x 1\r\nx\r\nPUB payments 1\r\nx\r\nSUB orders.> 1\r\n"
                                + "PUB orders.new 2\r\nok\r\n"))),
                new Case("publish-deny-verbose", Map.of(0, "alice"), true, List.of(
                        new Step(0, "PUB orders.secret.x 1\r\nx\r\nPUB orders.new 1\r\nx\r\n"))),
                new Case("subscribe-deny-and-not-allowed", Map.of(0, "alice"), false, List.of(
                        new Step(0, "SUB payments 1\r\nSUB orders.secret.x 2\r\nSUB jobs.a others 3\r\n"
                                + "SUB jobs.a workers 4\r\nSUB orders.* 5\r\n"))),
                new Case("subscribe-deny-verbose", Map.of(0, "alice"), true, List.of(
                        new Step(0, "SUB payments 1\r\nSUB orders.x 2\r\n"))),
                new Case("wildcard-subscription-filters-denied-subject", Map.of(0, "alice", 1, "root"), false, List.of(
                        new Step(0, "SUB orders.> 1\r\n"),
                        new Step(1, "PUB orders.secret.x 1\r\na\r\nPUB orders.y 1\r\nb\r\n"),
                        new Step(0, ""))),
                new Case("allow-responses-once", Map.of(0, "carol", 1, "root"), false, List.of(
                        new Step(0, "SUB svc 1\r\n"),
                        new Step(1, "SUB _INBOX.r 9\r\nPUB svc _INBOX.r 1\r\nq\r\n"),
                        new Step(0, ""),
                        new Step(0, "PUB _INBOX.r 1\r\na\r\nPUB _INBOX.r 1\r\nb\r\nPUB svc 1\r\nx\r\nPUB _INBOX.z 1\r\nx\r\n"),
                        new Step(1, ""))),
                // $RB.API.FILTER is a publish like any other (nats-server has no such API, and says the same):
                // refused, and the reply subject gets nothing.
                new Case("api-subject-is-a-publish", Map.of(0, "alice", 1, "root"), false, List.of(
                        new Step(1, "SUB victim.subj 1\r\n"),
                        new Step(0, "PUB $RB.API.FILTER victim.subj 20\r\n{\"subject\":\"orders\"}\r\n"),
                        new Step(1, ""))));
    }

    @BeforeAll
    void startServers(@TempDir Path dir) throws Exception {
        assumeTrue(Files.isExecutable(NATS_SERVER), NATS_SERVER + " is not installed");
        Path config = dir.resolve("nats.conf");
        Files.writeString(config, NATS_CONFIG);
        natsPort = LoopbackPorts.free();
        nats = new ProcessBuilder(NATS_SERVER.toString(), "-a", "127.0.0.1", "-p", String.valueOf(natsPort), "-c",
                config.toString()).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        Await.until("nats-server accepts connections on " + natsPort, () -> {
            try (Socket probe = new Socket()) {
                probe.connect(new InetSocketAddress("127.0.0.1", natsPort), 1_000);
                return true;
            } catch (IOException notYet) {
                return false;
            }
        });
        ringbus = ServerUnderTest.start(c -> c
                .user("alice", "pw", Scope.ROOT)
                .user("carol", "pw", Scope.ROOT)
                .user("root", "pw", Scope.ROOT)
                .permissions("alice", Permissions.builder().publishAllow("orders.>", "_INBOX.>")
                        .publishDeny("orders.secret.*").subscribeAllow("orders.>", "jobs.* workers")
                        .subscribeDeny("orders.secret.*").build())
                .permissions("carol", Permissions.builder().allowResponses(Permissions.Responses.DEFAULT).build()));
    }

    @AfterAll
    void stopServers() throws InterruptedException {
        if (ringbus != null) {
            ringbus.close();
        }
        if (nats != null) {
            nats.destroy();
            nats.waitFor();
        }
    }

    @TestFactory
    Stream<DynamicTest> ringbusEnforcesPermissionsAsNatsServerDoes() {
        return corpus().stream().map(testCase -> DynamicTest.dynamicTest(testCase.name(), () -> {
            List<String> expected = transcript(natsPort, testCase);
            List<String> actual = transcript(ringbus.port(), testCase);
            assertThat(expected).as("nats-server's transcript").isNotEmpty();
            assertThat(actual).as("ringbus-server's answer to %s", testCase.name()).isEqualTo(expected);
        }));
    }

    /** Plays a case; returns each step's answer lines, prefixed with the connection. */
    private static List<String> transcript(int port, Case testCase) throws IOException {
        Map<Integer, Socket> sockets = new TreeMap<>();
        Map<Integer, BufferedReader> readers = new TreeMap<>();
        List<String> lines = new ArrayList<>();
        try {
            for (Map.Entry<Integer, String> user : testCase.users().entrySet()) {
                Socket socket = new Socket("127.0.0.1", port);
                socket.setSoTimeout((int) Duration.ofSeconds(5).toMillis());
                BufferedReader reader = new BufferedReader(new InputStreamReader(socket.getInputStream(),
                        StandardCharsets.ISO_8859_1));
                assertThat(reader.readLine()).startsWith("INFO ");
                sockets.put(user.getKey(), socket);
                readers.put(user.getKey(), reader);
                String connect = "CONNECT {\"verbose\":" + testCase.verbose() + ",\"pedantic\":false,\"user\":\""
                        + user.getValue() + "\",\"pass\":\"pw\"}\r\n";
                answer(socket, readers.get(user.getKey()), connect);
            }
            for (Step step : testCase.steps()) {
                for (String line : answer(sockets.get(step.conn()), readers.get(step.conn()), step.bytes())) {
                    lines.add(step.conn() + ": " + line);
                }
            }
        } finally {
            for (Socket socket : sockets.values()) {
                socket.close();
            }
        }
        return lines;
    }

    /** Writes {@code bytes} and PING; returns the lines up to (without) the PONG. */
    private static List<String> answer(Socket socket, BufferedReader reader, String bytes) throws IOException {
        OutputStream out = socket.getOutputStream();
        out.write((bytes + "PING\r\n").getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
        List<String> lines = new ArrayList<>();
        for (String line = reader.readLine(); !"PONG".equals(line); line = reader.readLine()) {
            if (line == null) {
                lines.add("<closed>");
                break;
            }
            lines.add(line);
        }
        return lines;
    }

}
