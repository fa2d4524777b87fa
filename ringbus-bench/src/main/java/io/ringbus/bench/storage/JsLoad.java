package io.ringbus.bench.storage;

import io.ringbus.bench.ResultsJson;

import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * jsload, the Go program of {@code ringbus-bench/src/main/go/jsload} (nats.go driving JetStream),
 * compiled when the scenario starts with Debian's Go in GOPATH mode against the nats.go of
 * {@code /usr/share/gocode} (nothing is downloaded), and run once per measurement as a child
 * process whose one JSON line is read back.
 */
final class JsLoad {
    /** Where Debian's golang-github-nats-io-go-nats-dev puts nats.go. */
    static final Path SYSTEM_GOPATH = Path.of("/usr/share/gocode");
    private static final Path NATS_GO = SYSTEM_GOPATH.resolve("src/github.com/nats-io/nats.go");
    private static final Pattern VERSION = Pattern.compile("Version\\s*=\\s*\"([^\"]+)\"");

    private final Path binary;

    private JsLoad(Path binary) {
        this.binary = binary;
    }

    /**
     * Builds jsload into {@code workDir}, or takes a binary already built.
     *
     * @param explicit {@code --jsload}, or {@code null} to build it from source
     * @param workDir  where the binary and its GOPATH go
     * @return the program
     * @throws IllegalStateException saying what is missing (Go, nats.go, the source) or why the build failed
     */
    static JsLoad prepare(Path explicit, Path workDir) throws IOException, InterruptedException {
        if (explicit != null) {
            if (!Files.isExecutable(explicit)) {
                throw new IllegalStateException("jsload is not an executable file: jsload=" + explicit);
            }
            return new JsLoad(explicit);
        }
        String missing = missing();
        if (missing != null) {
            throw new IllegalStateException(missing);
        }
        Path go = goBinary();
        Path source = sourceDirectory();
        Path out = workDir.resolve("jsload");
        Path gopath = workDir.resolve("gopath");
        Files.createDirectories(gopath);
        Path log = workDir.resolve("jsload-build.log");
        ProcessBuilder build = new ProcessBuilder(go.toString(), "build", "-o", out.toString(), ".")
                .directory(source.toFile()).redirectErrorStream(true).redirectOutput(log.toFile());
        build.environment().put("GO111MODULE", "off");
        build.environment().put("GOFLAGS", "");
        build.environment().put("GOPATH", gopath + File.pathSeparator + SYSTEM_GOPATH);
        Process process = build.start();
        if (!process.waitFor(180, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException("go build of " + source + " took over 180 s");
        }
        if (process.exitValue() != 0) {
            throw new IllegalStateException("go build of " + source + " failed:\n"
                    + Files.readString(log, StandardCharsets.UTF_8));
        }
        return new JsLoad(out);
    }

    /** @return what building jsload lacks (Go, nats.go), or {@code null} when nothing */
    static String missing() {
        if (goBinary() == null) {
            return "no Go toolchain (go on the PATH or /usr/bin/go): apt-get install golang-go";
        }
        if (!Files.isDirectory(NATS_GO)) {
            return "nats.go is not installed at " + NATS_GO + ": apt-get install golang-github-nats-io-go-nats-dev";
        }
        return null;
    }

    /** @return nats.go's version from its source, or {@code null} */
    static String natsGoVersion() {
        try {
            Matcher m = VERSION.matcher(Files.readString(NATS_GO.resolve("nats.go"), StandardCharsets.UTF_8));
            return m.find() ? m.group(1) : null;
        } catch (IOException e) {
            return null;
        }
    }

    private static Path goBinary() {
        List<Path> candidates = new ArrayList<>();
        String path = System.getenv("PATH");
        if (path != null) {
            for (String dir : path.split(File.pathSeparator)) {
                if (!dir.isEmpty()) {
                    candidates.add(Path.of(dir, "go"));
                }
            }
        }
        candidates.add(Path.of("/usr/bin/go"));
        candidates.add(Path.of("/usr/lib/go/bin/go"));
        for (Path p : candidates) {
            if (Files.isRegularFile(p) && Files.isExecutable(p)) {
                return p;
            }
        }
        return null;
    }

    /** The source: beside this module's target/ (jar or classes), else under the working directory. */
    private static Path sourceDirectory() {
        List<Path> candidates = new ArrayList<>();
        try {
            Path self = Path.of(JsLoad.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            Path module = self.toAbsolutePath().getParent().getParent();
            if (module != null) {
                candidates.add(module.resolve("src/main/go/jsload"));
            }
        } catch (URISyntaxException | RuntimeException e) {
            // No code source (unusual class loader): the working directory is still tried.
        }
        candidates.add(Path.of("ringbus-bench/src/main/go/jsload").toAbsolutePath());
        candidates.add(Path.of("src/main/go/jsload").toAbsolutePath());
        for (Path p : candidates) {
            if (Files.isRegularFile(p.resolve("main.go"))) {
                return p;
            }
        }
        throw new IllegalStateException("jsload's source not found (looked at " + candidates
                + "): run from the project's root, or pass --jsload");
    }

    /**
     * Runs jsload once and waits for it.
     *
     * @param args  its flags
     * @param limit how long it may run before it is killed
     * @param log   file that receives its stderr
     * @return the result it printed
     * @throws IOException when it cannot run, exits non-zero, overruns or prints no result; the
     *                     message holds the end of its stderr
     */
    JsLoadResult run(List<String> args, Duration limit, Path log) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(binary.toString());
        command.addAll(args);
        Path out = Files.createTempFile(log.getParent(), "jsload-", ".json");
        Process process = new ProcessBuilder(command).redirectOutput(out.toFile())
                .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        try {
            if (!process.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IOException("jsload did not finish within " + limit.toSeconds() + "s: "
                        + String.join(" ", command) + "\n" + tail(log));
            }
            String text = Files.readString(out, StandardCharsets.UTF_8).strip();
            if (process.exitValue() != 0 || text.isEmpty()) {
                throw new IOException("jsload exited with code " + process.exitValue() + ": "
                        + String.join(" ", command) + "\n" + tail(log));
            }
            try {
                return ResultsJson.read(text, JsLoadResult.class);
            } catch (IllegalArgumentException e) {
                throw new IOException("jsload printed no result: " + e.getMessage() + "\n" + text, e);
            }
        } finally {
            process.destroyForcibly();
            Files.deleteIfExists(out);
        }
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 5), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }
}
