package io.ringbus.jetstream;

import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.api.MessageInfo;
import io.ringbus.testkit.ChildJvm;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The quick starts of {@code docs/quickstart.md}: ringbus-server started with the configuration
 * file that page shows ({@code docs/quickstart/ringbus.properties}; on a free port, its store in a
 * temporary directory, as command-line options override the file), and each client's program of
 * {@code docs/quickstart/} run against it as its page says: jnats by Java's source launcher, nats.go
 * from Debian built in GOPATH mode, nats.js from ringbus-server's npm project, nats.c from Debian
 * with gcc. Each program must print exactly the output its page shows (the URL and the stored
 * sequence aside), and the message it stored must be in the stream {@code ORDERS} at the sequence
 * its PubAck gave. Each page must show exactly the program that is run. nats.py is not installable
 * here: its program is only compiled.
 *
 * <p>A client that is not installed skips its own test (bin/test installs them all).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class QuickStartsTest {
    private static final Path DOCS = JetStreamClientContractTest.module().toAbsolutePath().getParent().resolve("docs");
    private static final Path QUICKSTART = DOCS.resolve("quickstart");
    private static final Pattern STORED = Pattern.compile("stored in stream ORDERS seq (\\d+)");
    private static final String DEFAULT_URL = "nats://127.0.0.1:4222";

    @TempDir
    static Path dir;

    private ChildServer server;
    private Connection nats;

    @BeforeAll
    void startServer() throws Exception {
        server = ChildServer.start(List.of("--config", QUICKSTART.resolve("ringbus.properties").toString(),
                "--host", "127.0.0.1", "--port", "0", "--no-monitor", "--storage-dir", dir.resolve("data").toString()));
        nats = Nats.connect(server.url());
    }

    @AfterAll
    void stopServer() throws InterruptedException {
        if (nats != null) {
            nats.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @Test
    void eachPageShowsTheFileThatRuns() throws IOException {
        Path index = DOCS.resolve("quickstart.md");
        assertThat(block(index, "properties")).as("%s shows ringbus.properties", index)
                .isEqualTo(Files.readString(QUICKSTART.resolve("ringbus.properties")));
        String output = block(index, "text");
        for (String[] page : new String[][] {
            {"java", "java", "java/QuickStart.java"}, {"go", "go", "go/main.go"}, {"js", "js", "js/quickstart.mjs"},
            {"c", "c", "c/quickstart.c"}, {"python", "python", "python/quickstart.py"}}) {
            Path doc = QUICKSTART.resolve(page[0] + ".md");
            assertThat(block(doc, page[1])).as("%s shows %s", doc, page[2])
                    .isEqualTo(Files.readString(QUICKSTART.resolve(page[2])));
            assertThat(block(doc, "text")).as("%s shows the output of %s", doc, index).isEqualTo(output);
            assertThat(Files.readString(index)).as("%s links %s", index, doc).contains("(quickstart/" + page[0] + ".md)");
        }
    }

    @Test
    void java() throws Exception {
        String jnats = Arrays.stream(ChildJvm.classPath().split(File.pathSeparator))
                .filter(entry -> Path.of(entry).getFileName().toString().matches("jnats-[0-9.]+\\.jar")).findFirst()
                .orElseThrow(() -> new AssertionError("no jnats jar on the class path"));
        runs("java", List.of(ChildJvm.java(), "-cp", jnats, QUICKSTART.resolve("java/QuickStart.java").toString()));
    }

    @Test
    void go() throws Exception {
        Path binary = GoProgram.build("quickstart", DOCS.getParent(), "./docs/quickstart/go");
        runs("go", List.of(binary.toString()));
    }

    @Test
    void javaScript() throws Exception {
        Path nodeModules = DOCS.resolveSibling("ringbus-server").resolve("src/test/node/node_modules");
        assumeTrue(Files.isDirectory(nodeModules.resolve("nats")),
                "no " + nodeModules + ": run npm ci --prefix ringbus-server/src/test/node (bin/test does)");
        // An ES module finds "nats" in a node_modules beside it (NODE_PATH is for require only): the
        // program is copied, unchanged, next to a link to ringbus-server's npm project.
        Path project = Files.createDirectories(dir.resolve("js"));
        Path program = Files.copy(QUICKSTART.resolve("js/quickstart.mjs"), project.resolve("quickstart.mjs"));
        Files.createSymbolicLink(project.resolve("node_modules"), nodeModules);
        runs("js", List.of("node", program.toString()));
    }

    @Test
    void c() throws Exception {
        assumeTrue(Files.isRegularFile(Path.of("/usr/include/nats/nats.h")), "no nats.h (Debian: libnats-dev)");
        Path binary = JetStreamClientContractTest.module().resolve("target").resolve("c-quickstart");
        String output = exec(List.of("gcc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-o", binary.toString(),
                QUICKSTART.resolve("c/quickstart.c").toString(), "-lnats"), Map.of(), "gcc");
        assertThat(output).as("gcc's warnings").isEmpty();
        runs("c", List.of(binary.toString()));
    }

    /** Not run: nats.py is not installable here (no PyPI, no Debian package). Compiled only. */
    @Test
    void pythonCompiles() throws Exception {
        exec(List.of("python3", "-c", "import py_compile, sys; py_compile.compile(sys.argv[1], cfile=sys.argv[2],"
                + " doraise=True)", QUICKSTART.resolve("python/quickstart.py").toString(),
                dir.resolve("quickstart.pyc").toString()), Map.of(), "py_compile");
    }

    /**
     * Runs a quick start against the server; asserts it printed its page's output and that the
     * message it stored is in ORDERS at the sequence it printed.
     */
    private void runs(String language, List<String> command) throws Exception {
        String output = exec(command, Map.of("NATS_URL", server.url()), language);
        Matcher stored = STORED.matcher(output);
        assertThat(stored.find()).as("%s printed a stored sequence: %s", language, output).isTrue();
        long sequence = Long.parseLong(stored.group(1));
        String shown = output.replace(server.url(), DEFAULT_URL).replace(stored.group(), "stored in stream ORDERS seq 1");
        assertThat(shown).as("%s's output, as its page shows it", language)
                .isEqualTo(block(QUICKSTART.resolve(language + ".md"), "text"));
        MessageInfo message = nats.jetStreamManagement().getMessage("ORDERS", sequence);
        assertThat(message.getSubject()).isEqualTo("orders.new");
        assertThat(new String(message.getData(), StandardCharsets.UTF_8)).as("stored by %s", language)
                .isEqualTo("order from " + language);
    }

    /** Runs a command to its end (at most 90 s) and returns its output, failing on a non-zero exit. */
    private String exec(List<String> command, Map<String, String> environment, String what) throws Exception {
        Path log = Files.createTempFile(dir, what, ".out");
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().putAll(environment);
        Process process;
        try {
            process = builder.start();
        } catch (IOException notInstalled) {
            assumeTrue(false, command.getFirst() + " is not installed: " + notInstalled.getMessage());
            throw notInstalled;
        }
        boolean ended = process.waitFor(90, TimeUnit.SECONDS);
        if (!ended) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        String output = Files.readString(log);
        assertThat(ended).as("%s ended within 90 s: %s", what, output).isTrue();
        assertThat(process.exitValue()).as("%s's exit status: %s\nserver: %s", what, output, server.log()).isZero();
        return output;
    }

    /** The one fenced block of {@code page} opened with {@code ```language}, with its last newline. */
    static String block(Path page, String language) throws IOException {
        List<String> blocks = new ArrayList<>();
        String fence = "```" + language + "\n";
        String text = Files.readString(page);
        for (int start = text.indexOf(fence); start >= 0; start = text.indexOf(fence, start + 1)) {
            if (start > 0 && text.charAt(start - 1) != '\n') {
                continue;
            }
            int end = text.indexOf("\n```\n", start + fence.length() - 1);
            assertThat(end).as("%s: the %s block is closed", page, language).isPositive();
            blocks.add(text.substring(start + fence.length(), end + 1));
        }
        assertThat(blocks).as("%s: ```%s blocks", page, language).hasSize(1);
        return blocks.getFirst();
    }
}
