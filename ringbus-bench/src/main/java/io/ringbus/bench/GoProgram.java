package io.ringbus.bench;

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
 * The scenarios' Go load programs ({@code ringbus-bench/src/main/go/<name>}, nats.go driving a
 * server), compiled when a scenario starts with Debian's Go in GOPATH mode against the nats.go of
 * {@code /usr/share/gocode}: nothing is downloaded.
 */
public final class GoProgram {
    /** Where Debian's golang-github-nats-io-go-nats-dev puts nats.go. */
    public static final Path SYSTEM_GOPATH = Path.of("/usr/share/gocode");
    private static final Path NATS_GO = SYSTEM_GOPATH.resolve("src/github.com/nats-io/nats.go");
    private static final Pattern VERSION = Pattern.compile("Version\\s*=\\s*\"([^\"]+)\"");
    private static final long BUILD_SECONDS = 180;

    private GoProgram() {
    }

    /**
     * Builds a program into {@code workDir}, or takes a binary already built.
     *
     * @param name     the program: the directory under {@code src/main/go}
     * @param explicit a binary already built (its {@code --<name>} option), or {@code null} to build it
     * @param workDir  where the binary, its GOPATH and its build log go
     * @return the executable
     * @throws IllegalStateException saying what is missing (Go, nats.go, the source) or why the build failed
     */
    public static Path build(String name, Path explicit, Path workDir) throws IOException, InterruptedException {
        if (explicit != null) {
            if (!Files.isExecutable(explicit)) {
                throw new IllegalStateException(name + " is not an executable file: " + name + "=" + explicit);
            }
            return explicit;
        }
        String missing = missing();
        if (missing != null) {
            throw new IllegalStateException(missing);
        }
        Path source = sourceDirectory(name);
        Path out = workDir.resolve(name);
        Path gopath = workDir.resolve("gopath");
        Files.createDirectories(gopath);
        Path log = workDir.resolve(name + "-build.log");
        ProcessBuilder build = new ProcessBuilder(goBinary().toString(), "build", "-o", out.toString(), ".")
                .directory(source.toFile()).redirectErrorStream(true).redirectOutput(log.toFile());
        build.environment().put("GO111MODULE", "off");
        build.environment().put("GOFLAGS", "");
        build.environment().put("GOPATH", gopath + File.pathSeparator + SYSTEM_GOPATH);
        Process process = build.start();
        if (!process.waitFor(BUILD_SECONDS, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException("go build of " + source + " took over " + BUILD_SECONDS + " s");
        }
        if (process.exitValue() != 0) {
            throw new IllegalStateException("go build of " + source + " failed:\n"
                    + Files.readString(log, StandardCharsets.UTF_8));
        }
        return out;
    }

    /** @return what building a program lacks (Go, nats.go), or {@code null} when nothing */
    public static String missing() {
        if (goBinary() == null) {
            return "no Go toolchain (go on the PATH or /usr/bin/go): apt-get install golang-go";
        }
        if (!Files.isDirectory(NATS_GO)) {
            return "nats.go is not installed at " + NATS_GO + ": apt-get install golang-github-nats-io-go-nats-dev";
        }
        return null;
    }

    /** @return nats.go's version from its source, or {@code null} */
    public static String natsGoVersion() {
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
    private static Path sourceDirectory(String name) {
        List<Path> candidates = new ArrayList<>();
        try {
            Path self = Path.of(GoProgram.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            Path module = self.toAbsolutePath().getParent().getParent();
            if (module != null) {
                candidates.add(module.resolve("src/main/go").resolve(name));
            }
        } catch (URISyntaxException | RuntimeException e) {
            // No code source (unusual class loader): the working directory is still tried.
        }
        candidates.add(Path.of("ringbus-bench/src/main/go", name).toAbsolutePath());
        candidates.add(Path.of("src/main/go", name).toAbsolutePath());
        for (Path p : candidates) {
            if (Files.isRegularFile(p.resolve("main.go"))) {
                return p;
            }
        }
        throw new IllegalStateException(name + "'s source not found (looked at " + candidates
                + "): run from the project's root, or pass --" + name);
    }

    /**
     * Runs a program once and waits for it: its flags, its one JSON line on stdout read back as
     * {@code type}, its stderr appended to {@code log}.
     *
     * @param binary the program
     * @param args   its flags
     * @param limit  how long it may run before it is killed
     * @param log    file that receives its stderr
     * @param type   the record its JSON line reads into ({@link ResultsJson})
     * @param <T>    the record type
     * @return the result it printed
     * @throws IOException when it cannot run, exits non-zero, overruns or prints no result; the
     *                     message holds the end of its stderr
     */
    public static <T> T run(Path binary, List<String> args, Duration limit, Path log, Class<T> type)
            throws IOException, InterruptedException {
        String name = binary.getFileName().toString();
        List<String> command = new ArrayList<>();
        command.add(binary.toString());
        command.addAll(args);
        Path out = Files.createTempFile(log.toAbsolutePath().getParent(), name + "-", ".json");
        Process process = new ProcessBuilder(command).redirectOutput(out.toFile())
                .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        try {
            if (!process.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IOException(name + " did not finish within " + limit.toSeconds() + "s: "
                        + String.join(" ", command) + "\n" + tail(log));
            }
            String text = Files.readString(out, StandardCharsets.UTF_8).strip();
            if (process.exitValue() != 0 || text.isEmpty()) {
                throw new IOException(name + " exited with code " + process.exitValue() + ": "
                        + String.join(" ", command) + "\n" + tail(log));
            }
            try {
                return ResultsJson.read(text, type);
            } catch (IllegalArgumentException e) {
                throw new IOException(name + " printed no result: " + e.getMessage() + "\n" + text, e);
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
