package io.ringbus.bench.storage;

import io.ringbus.bench.GoProgram;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * jsload, the Go program of {@code ringbus-bench/src/main/go/jsload} (nats.go driving JetStream),
 * built by {@link GoProgram} when the scenario starts, and run once per measurement as a child
 * process whose one JSON line is read back.
 */
final class JsLoad {
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
        return new JsLoad(GoProgram.build("jsload", explicit, workDir));
    }

    /** @return what building jsload lacks (Go, nats.go), or {@code null} when nothing */
    static String missing() {
        return GoProgram.missing();
    }

    /** @return nats.go's version from its source, or {@code null} */
    static String natsGoVersion() {
        return GoProgram.natsGoVersion();
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
        return GoProgram.run(binary, args, limit, log, JsLoadResult.class);
    }
}
