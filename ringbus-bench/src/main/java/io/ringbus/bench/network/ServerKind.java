package io.ringbus.bench.network;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The servers the {@code network} scenario compares, each run as its own process. */
public enum ServerKind {
    /** ringbus-server's standalone launcher, {@code java -Xmx.. -jar ringbus-server.jar}. */
    RINGBUS("ringbus-server", "ringbus"),
    /** The reference NATS server (Debian's {@code nats-server} package). */
    NATS("nats-server", "nats");

    /**
     * The JVM options {@code bin/run} starts ringbus-server with, besides its {@code -Xmx}: a heap
     * that starts small and grows only when collections would take more than a fifth of the time
     * (G1 sizes the young generation to the allocation rate otherwise, and peak RSS follows it);
     * and no WARNING on JDK 24+: native access for Netty's epoll library, {@code sun.misc.Unsafe}
     * memory access for its buffers (an option from JDK 23 on; the child runs this JVM's java).
     * Keep in step with {@code bin/run} and the distribution's launcher.
     */
    public static final List<String> RUN_JVM_OPTIONS = Runtime.version().feature() >= 23
            ? List.of("-Xms32m", "-XX:GCTimeRatio=4", "--enable-native-access=ALL-UNNAMED",
                    "--sun-misc-unsafe-memory-access=allow")
            : List.of("-Xms32m", "-XX:GCTimeRatio=4", "--enable-native-access=ALL-UNNAMED");

    private final String label;
    private final String shortName;

    ServerKind(String label, String shortName) {
        this.label = label;
        this.shortName = shortName;
    }

    /** @return the name in tables and JSON */
    public String label() {
        return label;
    }

    /**
     * @param name {@code ringbus}, {@code nats}, or a {@link #label()}, any case
     * @return the kind
     * @throws IllegalArgumentException naming the value when it is none of them
     */
    public static ServerKind byName(String name) {
        for (ServerKind kind : values()) {
            if (kind.shortName.equalsIgnoreCase(name) || kind.label.equalsIgnoreCase(name)) {
                return kind;
            }
        }
        throw new IllegalArgumentException("unknown server (use ringbus or nats): server='" + name + "'");
    }

    /**
     * Reads a {@code --servers} list.
     *
     * @param names names as {@link #byName(String)} takes them, in run order
     * @return the kinds, each once, in the order first named
     * @throws IllegalArgumentException naming a value that is no server
     */
    public static List<ServerKind> inRunOrder(List<String> names) {
        List<ServerKind> kinds = new ArrayList<>();
        for (String name : names) {
            ServerKind kind = byName(name);
            if (!kinds.contains(kind)) {
                kinds.add(kind);
            }
        }
        return kinds;
    }

    /**
     * The command that starts this server on 127.0.0.1, its monitoring port on a free loopback
     * port (never the default 8222, which another server may hold).
     *
     * @see #command(ServerBinaries, int, int, String, List, Path)
     */
    List<String> command(ServerBinaries binaries, int port, String heap, List<String> jvmArgs, Path config) {
        return command(binaries, port, EphemeralPorts.pick(), heap, jvmArgs, config);
    }

    /**
     * The command that starts this server on 127.0.0.1.
     *
     * @param binaries    where java, the ringbus-server jar and nats-server are
     * @param port        the client port
     * @param monitorPort the HTTP monitoring port ({@code /varz}, {@code /healthz}, ...) on 127.0.0.1
     * @param heap        ringbus-server's {@code -Xmx} value, e.g. {@code 1g}; ignored for nats-server
     * @param jvmArgs     extra JVM options for ringbus-server (e.g. JFR); ignored for nats-server
     * @param config      a configuration file in the server's own format, or {@code null}
     * @return the command line
     */
    public List<String> command(ServerBinaries binaries, int port, int monitorPort, String heap, List<String> jvmArgs,
                         Path config) {
        List<String> command = new ArrayList<>();
        String portText = Integer.toString(port);
        String monitorText = Integer.toString(monitorPort);
        if (this == RINGBUS) {
            command.add(binaries.java().toString());
            command.add("-Xmx" + heap.toLowerCase(Locale.ROOT));
            command.addAll(RUN_JVM_OPTIONS);
            command.addAll(jvmArgs);
            command.addAll(List.of("-jar", binaries.ringbusJar().toString(), "--host", "127.0.0.1", "--port", portText,
                    "--http-port", monitorText));
            if (config != null) {
                command.addAll(List.of("--config", config.toString()));
            }
        } else {
            command.addAll(List.of(binaries.natsServer().toString(), "-a", "127.0.0.1", "-p", portText,
                    "-m", monitorText));
            if (config != null) {
                command.addAll(List.of("-c", config.toString()));
            }
        }
        return command;
    }
}
