package io.ringbus.outbox;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/**
 * A PostgreSQL cluster of a test's own, which the test may stop and start: {@code initdb} into a
 * temporary directory, {@code pg_ctl} on a free loopback port, trust auth, database
 * {@code postgres}. Run as user {@code postgres} when this JVM is root (PostgreSQL refuses root).
 * {@link #close()} stops it and deletes the directory; a shutdown hook does the same if the JVM
 * exits first.
 */
final class PrivatePostgres implements AutoCloseable {
    private static final long COMMAND_TIMEOUT_SECONDS = 60;

    private final Path bin;
    private final Path base;
    private final Path data;
    private final int port;
    private final String walLevel;
    private final Thread cleanup = new Thread(this::destroy, "private-postgres-cleanup");
    private boolean running;

    private PrivatePostgres(Path bin, Path base, int port, String walLevel) {
        this.walLevel = walLevel;
        this.bin = bin;
        this.base = base;
        this.data = base.resolve("data");
        this.port = port;
    }

    /**
     * Creates and starts a cluster; skips the test when no PostgreSQL binaries are installed.
     *
     * @return the running cluster
     */
    static PrivatePostgres start() throws IOException, InterruptedException {
        return start("logical");
    }

    /**
     * Creates and starts a cluster with the given {@code wal_level}.
     *
     * @param walLevel {@code logical} (what {@link #start()} uses, so WAL relays can stream) or
     *                 {@code replica}
     * @return the running cluster
     */
    static PrivatePostgres start(String walLevel) throws IOException, InterruptedException {
        Optional<Path> bin = binaries();
        Assumptions.assumeTrue(bin.isPresent(), "no /usr/lib/postgresql/*/bin/initdb");
        Path base = Files.createTempDirectory("ringbus-pg-");
        if (isRoot()) {
            UserPrincipal postgres = base.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("postgres");
            Files.setOwner(base, postgres);
        }
        PrivatePostgres cluster = new PrivatePostgres(bin.get(), base, freePort(), walLevel);
        Runtime.getRuntime().addShutdownHook(cluster.cleanup);
        try {
            cluster.run("initdb", "-D", cluster.data.toString(), "-U", "postgres", "-A", "trust", "-N",
                    "--no-instructions");
            cluster.startServer();
        } catch (IOException | RuntimeException | Error e) {
            cluster.close();
            throw e;
        }
        return cluster;
    }

    /** @return a JDBC URL of the database {@code postgres}, user {@code postgres} */
    String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/postgres?user=postgres";
    }

    /** Starts the stopped server on the same port and data; returns once it accepts connections. */
    void startServer() throws IOException, InterruptedException {
        run("pg_ctl", "-D", data.toString(), "-l", base.resolve("server.log").toString(), "-w", "-t", "30",
                "-o", "-p " + port + " -k " + base + " -c listen_addresses=127.0.0.1 -c fsync=off -c wal_level=" + walLevel, "start");
        running = true;
    }

    /** Stops the server as an operator would for a restart: fast mode, open transactions roll back. */
    void stopServer() throws IOException, InterruptedException {
        running = false;
        run("pg_ctl", "-D", data.toString(), "-m", "fast", "-w", "-t", "30", "stop");
    }

    @Override
    public void close() {
        destroy();
        try {
            Runtime.getRuntime().removeShutdownHook(cleanup);
        } catch (IllegalStateException e) {
            // the JVM is shutting down: the hook runs destroy() again, which is harmless
        }
    }

    private synchronized void destroy() {
        try {
            if (running) {
                running = false;
                run("pg_ctl", "-D", data.toString(), "-m", "immediate", "-w", "stop");
            }
        } catch (IOException e) {
            System.err.println("private PostgreSQL did not stop: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            deleteTree(base);
        }
    }

    private void run(String program, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        if (isRoot()) {
            command.addAll(List.of("runuser", "-u", "postgres", "--"));
        }
        command.add(bin.resolve(program).toString());
        command.addAll(List.of(args));
        // Output to a file, not a pipe: the server pg_ctl starts would hold a pipe open.
        Path output = Files.createTempFile("ringbus-pg-command", ".log");
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
            if (!process.waitFor(COMMAND_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IOException(String.join(" ", command) + " did not finish in " + COMMAND_TIMEOUT_SECONDS + " s");
            }
            if (process.exitValue() != 0) {
                throw new IOException(String.join(" ", command) + " exited with " + process.exitValue() + ":\n"
                        + Files.readString(output) + serverLog());
            }
        } finally {
            Files.deleteIfExists(output);
        }
    }

    private String serverLog() {
        Path log = base.resolve("server.log");
        try {
            return Files.exists(log) ? "\nserver log:\n" + Files.readString(log) : "";
        } catch (IOException e) {
            return "\n(server log unreadable: " + e + ")";
        }
    }

    private static Optional<Path> binaries() throws IOException {
        Path root = Path.of("/usr/lib/postgresql");
        if (!Files.isDirectory(root)) {
            return Optional.empty();
        }
        try (Stream<Path> versions = Files.list(root)) {
            return versions.map(v -> v.resolve("bin")).filter(b -> Files.isExecutable(b.resolve("initdb")))
                    .max(Comparator.comparing(b -> versionOf(b.getParent())));
        }
    }

    private static int versionOf(Path folder) {
        try {
            return Integer.parseInt(folder.getFileName().toString());
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static boolean isRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    private static void deleteTree(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException | UncheckedIOException e) {
            System.err.println("could not delete " + root + ": " + e);
        }
    }
}
