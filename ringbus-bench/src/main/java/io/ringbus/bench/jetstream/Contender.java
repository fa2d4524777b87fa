package io.ringbus.bench.jetstream;

import io.ringbus.bench.network.ServerKind;
import io.ringbus.core.FsyncPolicy;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One server of the comparison as it is started: nats-server 2.9 {@code -js} with its file store
 * at its default (policy {@value #NATS_POLICY}), or ringbus-server with JetStream and one fsync
 * policy, each otherwise at its defaults, listening on 127.0.0.1 with its store in a scratch
 * directory. Immutable.
 *
 * @param kind   which server
 * @param policy ringbus-server's {@code --fsync}, {@code null} for nats-server
 */
record Contender(ServerKind kind, FsyncPolicy policy) {
    /** The policy column of nats-server's rows. */
    static final String NATS_POLICY = "default";
    /** How nats-server 2.9.10's file store forces, as the results say it. */
    static final String NATS_SYNC = "nats-server 2.9 has no sync option (2.10 added sync_interval): its file store"
            + " acknowledges once written to the page cache and fsyncs every 2 minutes";
    /** ringbus-server's main class, for a start from this JVM's class path. */
    static final String RINGBUS_MAIN = "io.ringbus.server.RingbusServerMain";
    /** ringbus-server's heap, as {@code bin/run}. */
    static final String RINGBUS_HEAP = "-Xmx2g";

    /**
     * @throws IllegalArgumentException when ringbus-server has no policy or nats-server has one
     */
    Contender {
        if ((kind == ServerKind.RINGBUS) != (policy != null)) {
            throw new IllegalArgumentException("ringbus-server takes an fsync policy, nats-server none: kind=" + kind
                    + ", policy=" + policy);
        }
    }

    /** @return nats-server at its default */
    static Contender nats() {
        return new Contender(ServerKind.NATS, null);
    }

    /**
     * @param policy its {@code --fsync}
     * @return ringbus-server with that policy
     */
    static Contender ringbus(FsyncPolicy policy) {
        return new Contender(ServerKind.RINGBUS, policy);
    }

    /** @return {@code nats-server} or {@code ringbus-server} */
    String server() {
        return kind.label();
    }

    /** @return {@code always}, {@code interval}, {@code os} or {@value #NATS_POLICY} */
    String policyName() {
        return policy == null ? NATS_POLICY : policy.name().toLowerCase(Locale.ROOT);
    }

    /** @return whether this is the reference */
    boolean isNats() {
        return kind == ServerKind.NATS;
    }

    /**
     * The command line.
     *
     * @param binaries    java with ringbus-server.jar ({@code null} for this JVM's class path), and nats-server
     * @param port        the client port on 127.0.0.1
     * @param monitorPort the HTTP monitoring port on 127.0.0.1 (both servers serve one by default)
     * @param store       the store's directory, empty
     * @return the command
     */
    List<String> command(Binaries binaries, int port, int monitorPort, Path store) {
        List<String> command = new ArrayList<>();
        String p = Integer.toString(port);
        String m = Integer.toString(monitorPort);
        if (isNats()) {
            command.addAll(List.of(binaries.natsServer().toString(), "-a", "127.0.0.1", "-p", p, "-m", m, "-js", "-sd",
                    store.toString()));
            return command;
        }
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add(RINGBUS_HEAP);
        command.addAll(ServerKind.RUN_JVM_OPTIONS);
        command.addAll(binaries.ringbusJvmArgs());
        if (binaries.ringbusJar() != null) {
            command.addAll(List.of("-jar", binaries.ringbusJar().toString()));
        } else {
            command.addAll(List.of("-cp", System.getProperty("java.class.path"), RINGBUS_MAIN));
        }
        command.addAll(List.of("--host", "127.0.0.1", "--port", p, "--http-port", m, "--storage-dir", store.toString(),
                "--fsync", policyName()));
        return command;
    }

    /**
     * @param natsServer the nats-server binary
     * @param ringbusJar ringbus-server.jar, or {@code null} to start it from this JVM's class path
     * @param ringbusJvmArgs extra JVM options for ringbus-server (a flight recording, say)
     */
    record Binaries(Path natsServer, Path ringbusJar, List<String> ringbusJvmArgs) {
        /** Copies the options. */
        Binaries {
            ringbusJvmArgs = List.copyOf(ringbusJvmArgs);
        }
    }
}
