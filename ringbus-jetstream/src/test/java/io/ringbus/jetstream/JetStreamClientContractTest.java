package io.ringbus.jetstream;

import io.ringbus.testkit.ReferenceNatsServer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * One contract of JetStream cases, run by a real client's own program, unchanged, against
 * nats-server 2.9.10 {@code -js} (the reference) and against ringbus-server: streams (account
 * info, add, info, update, list, delete, PubAck, duplicate message ids, get by sequence and last
 * by subject, direct get, purge), consumers (pull fetch and ack, redelivery after a nak, push,
 * ordered, a durable's ack floor and pending count), KV and, where the client has one, the
 * object store. The program prints {@code "<case> ok"} or {@code "<case> fail <reason>"} per
 * case and {@code "done"}; every case must pass on both servers, except on ringbus those in
 * {@link #NOT_YET_ON_RINGBUS}.
 *
 * <p>Each subclass is one client: {@link NodeJetStreamContractTest} (nats.js),
 * {@link CJetStreamContractTest} (nats.c) and {@link GoJetStreamContractTest} (nats.go).
 */
abstract class JetStreamClientContractTest {
    /**
     * The cases that ringbus does not pass yet, each for a feature that is on its way: several
     * subjects per stream, and what KV and the object store create their streams with (discard
     * new, rollup headers) and publish with (expected last subject sequence, rollups). Not
     * asserted on ringbus either way; the reference must still pass them. Empty it as the
     * features land: then every case must pass on ringbus too.
     */
    static final Set<String> NOT_YET_ON_RINGBUS = Set.of();

    /** The cases every client runs, in order. */
    static final List<String> CASES = List.of("account_info", "stream_add", "stream_info", "stream_update",
            "stream_multiple_subjects", "stream_list", "stream_delete", "publish_puback", "publish_msg_id_duplicate",
            "get_msg_by_seq", "get_last_msg_by_subject", "direct_get", "purge", "pull_fetch_ack",
            "pull_nak_redelivery", "push_consumer", "ordered_consumer", "durable_info_after_acks",
            "kv_create_bucket", "kv_put_get", "kv_create_exists", "kv_update_revision", "kv_delete", "kv_purge",
            "kv_history", "kv_keys", "kv_watch");

    /** The object-store cases, for clients that have one. */
    static final List<String> OBJECT_STORE_CASES = List.of("os_put_multi_chunk", "os_get", "os_list", "os_delete");

    /** A case's line: its name, then "ok" or "fail" and the reason. */
    private static final Pattern RESULT = Pattern.compile("([a-z_]+) (ok|fail .*)");

    /** Bound on one run of the program against one server (each case bounds its own waits). */
    private static final Duration RUN_TIMEOUT = Duration.ofSeconds(90);

    @TempDir
    Path dir;

    /** The module's directory (surefire runs in it; an IDE may run in the project's). */
    static Path module() {
        Path here = Path.of("").toAbsolutePath();
        return Files.isDirectory(here.resolve("src/test/java/io/ringbus/jetstream")) ? here
                : here.resolve("ringbus-jetstream");
    }

    /** Skips the test (assumption) where the client is not installed; builds its program. */
    abstract void buildProgram() throws Exception;

    /** @return the command line that runs every case against {@code url} */
    abstract List<String> command(String url);

    /** @return the environment the program needs, added to ours */
    Map<String, String> environment() {
        return Map.of();
    }

    /** @return the cases this client's program runs, in order */
    abstract List<String> cases();

    @BeforeEach
    void build() throws Exception {
        buildProgram();
    }

    @Test
    void everyCasePassesOnNatsServer() throws Exception {
        assumeTrue(ReferenceNatsServer.installed(), "nats-server is not installed");
        try (ReferenceNatsServer nats = ReferenceNatsServer.startJetStream(dir.resolve("nats"), "")) {
            Map<String, String> results = run("nats://127.0.0.1:" + nats.port());
            assertThat(failed(results, Set.of())).as("cases failed on nats-server 2.9.10").isEmpty();
        }
    }

    @Test
    void everyCasePassesOnRingbus() throws Exception {
        try (JetStreamServer server = JetStreamServer.start(dir.resolve("ringbus"))) {
            Map<String, String> results = run(server.url());
            assertThat(failed(results, NOT_YET_ON_RINGBUS)).as("cases failed on ringbus-server").isEmpty();
            List<String> passingNow = NOT_YET_ON_RINGBUS.stream().filter(c -> "ok".equals(results.get(c))).sorted()
                    .toList();
            if (!passingNow.isEmpty()) {
                System.out.println(getClass().getSimpleName() + ": these cases pass on ringbus now, take them out of"
                        + " NOT_YET_ON_RINGBUS: " + passingNow);
            }
        }
    }

    /** @return "case: reason" of every failed case not in {@code excused} */
    private static List<String> failed(Map<String, String> results, Set<String> excused) {
        List<String> failed = new ArrayList<>();
        results.forEach((name, result) -> {
            if (!result.equals("ok") && !excused.contains(name)) {
                failed.add(name + ": " + result);
            }
        });
        return failed;
    }

    /** Runs the program against {@code url}; returns each case's result ("ok" or "fail ..."), in order. */
    private Map<String, String> run(String url) throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder(command(url)).directory(module().toFile())
                .redirectErrorStream(true);
        builder.environment().putAll(environment());
        Process process = builder.start();
        process.getOutputStream().close();
        List<String> lines = new ArrayList<>();
        CompletableFuture<Void> reader = CompletableFuture.runAsync(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    synchronized (lines) {
                        lines.add(line);
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        boolean ended = process.waitFor(RUN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        if (!ended) {
            process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        }
        reader.join();
        String output = String.join("\n", lines);
        assertThat(ended).as("%s ended within %s; output:%n%s", command(url), RUN_TIMEOUT, output).isTrue();
        assertThat(process.exitValue()).as("exit code; output:%n%s", output).isZero();
        assertThat(lines).as(output).contains("done");
        Map<String, String> results = new LinkedHashMap<>();
        for (String line : lines) {
            Matcher result = RESULT.matcher(line);
            if (result.matches()) { // what else the client writes (a warning on stderr) is only shown
                results.put(result.group(1), result.group(2));
            }
        }
        assertThat(results.keySet()).as(output).containsExactlyElementsOf(cases());
        return results;
    }
}
