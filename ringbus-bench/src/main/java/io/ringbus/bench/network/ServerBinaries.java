package io.ringbus.bench.network;

import java.io.File;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Where the programs of the {@code network} scenario are.
 *
 * @param java       the {@code java} launcher of the running JVM (also runs ringbus-server)
 * @param ringbusJar {@code ringbus-server.jar}, or {@code null} when not needed
 * @param natsServer the {@code nats-server} binary, or {@code null} when not needed
 */
public record ServerBinaries(Path java, Path ringbusJar, Path natsServer) {
    /** Where Debian's nats-server package installs the binary. */
    static final Path DEBIAN_NATS_SERVER = Path.of("/usr/sbin/nats-server");

    /**
     * Finds what the given servers need.
     *
     * @param servers    the servers that will run
     * @param ringbusJar {@code --server-jar}, or {@code null} to look beside this benchmark's jar
     *                   ({@code ../../ringbus-jetstream/target/ringbus-server.jar}) and in
     *                   {@code ringbus-jetstream/target/} of the working directory
     * @param natsServer {@code --nats-server}, or {@code null} to look on the PATH and in /usr/sbin
     * @return the locations
     * @throws IllegalArgumentException saying what is missing and how to get it
     */
    public static ServerBinaries locate(Set<ServerKind> servers, Path ringbusJar, Path natsServer) {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Path jar = null;
        Path nats = null;
        if (servers.contains(ServerKind.RINGBUS)) {
            jar = ringbusJar != null ? ringbusJar : firstFile(ringbusJarCandidates());
            if (jar == null || !Files.isRegularFile(jar)) {
                throw new IllegalArgumentException("ringbus-server.jar not found (looked at "
                        + (ringbusJar != null ? ringbusJar : ringbusJarCandidates())
                        + "): build it with ./mvnw -B -pl ringbus-bench -am package -DskipTests, or pass --server-jar");
            }
        }
        if (servers.contains(ServerKind.NATS)) {
            nats = natsServer != null ? natsServer : firstFile(natsServerCandidates());
            if (nats == null || !Files.isExecutable(nats)) {
                throw new IllegalArgumentException("nats-server not found (looked at "
                        + (natsServer != null ? natsServer : natsServerCandidates())
                        + "): run bin/bench-deps to install Debian's nats-server package, or pass --nats-server");
            }
        }
        return new ServerBinaries(java, jar, nats);
    }

    private static List<Path> ringbusJarCandidates() {
        List<Path> candidates = new ArrayList<>();
        try {
            // target/ringbus-bench.jar or target/classes, two levels below the project root.
            Path self = Path.of(ServerBinaries.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            Path root = self.toAbsolutePath().getParent().getParent().getParent();
            if (root != null) {
                candidates.add(root.resolve("ringbus-jetstream/target/ringbus-server.jar"));
            }
        } catch (URISyntaxException | RuntimeException e) {
            // No code source (unusual class loader): the working directory is still tried.
        }
        candidates.add(Path.of("ringbus-jetstream/target/ringbus-server.jar").toAbsolutePath());
        return candidates;
    }

    private static List<Path> natsServerCandidates() {
        List<Path> candidates = new ArrayList<>();
        String path = System.getenv("PATH");
        if (path != null) {
            for (String dir : path.split(File.pathSeparator)) {
                if (!dir.isEmpty()) {
                    candidates.add(Path.of(dir, "nats-server"));
                }
            }
        }
        candidates.add(DEBIAN_NATS_SERVER);
        return candidates;
    }

    private static Path firstFile(List<Path> candidates) {
        for (Path p : candidates) {
            if (Files.isRegularFile(p)) {
                return p;
            }
        }
        return null;
    }
}
