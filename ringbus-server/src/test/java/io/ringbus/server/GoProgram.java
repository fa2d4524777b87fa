package io.ringbus.server;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * A Go program of this module's {@code src/test/go/<name>}, built with Debian's go and
 * golang-github-nats-io-go-nats-dev in GOPATH mode ({@code GO111MODULE=off}, GOPATH
 * {@code /usr/share/gocode}: nothing is downloaded) into {@code target/go-<name>}, once per JVM
 * ({@link ClientProgram#build}). Found from where this class was loaded, so that it builds from the
 * module's directory (Maven's tests) and from the repository's root ({@code bin/soak}) alike.
 */
final class GoProgram {
    /** Where Debian installs nats.go's source. */
    static final Path NATS_GO = Path.of("/usr/share/gocode/src/github.com/nats-io/nats.go");

    private GoProgram() {
    }

    /** @return what building a Go program lacks (go, nats.go), or {@code null} when nothing */
    static String missing() {
        if (!ClientProgram.onPath("go")) {
            return "go is not installed (Debian: golang-go)";
        }
        if (!Files.isDirectory(NATS_GO)) {
            return NATS_GO + " is missing (Debian: golang-github-nats-io-go-nats-dev)";
        }
        return null;
    }

    /**
     * Builds {@code src/test/go/<name>} unless this JVM already did.
     *
     * @param name the program's directory under {@code src/test/go}
     * @return the executable
     * @throws IllegalStateException when go or nats.go is missing ({@link #missing()})
     * @throws AssertionError        when the build fails (with its output)
     */
    static Path build(String name) throws IOException, InterruptedException {
        String missing = missing();
        if (missing != null) {
            throw new IllegalStateException("cannot build the Go program " + name + ": " + missing);
        }
        Path module = module();
        Path binary = module.resolve("target").resolve("go-" + name);
        ClientProgram.build(List.of("go", "build", "-o", binary.toString(), "./src/test/go/" + name), module,
                Map.of("GO111MODULE", "off", "GOPATH", "/usr/share/gocode",
                        "GOCACHE", module.resolve("target").resolve("go-cache").toString(), "GOFLAGS", ""));
        return binary;
    }

    /** @return ringbus-server's directory: above {@code target/test-classes}, where this class was loaded from */
    private static Path module() {
        try {
            Path classes = Path.of(GoProgram.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            return classes.getParent().getParent();
        } catch (URISyntaxException e) {
            throw new IllegalStateException("cannot locate ringbus-server's test classes", e);
        }
    }
}
