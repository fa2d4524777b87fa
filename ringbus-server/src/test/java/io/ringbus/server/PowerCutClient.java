package io.ringbus.server;

import java.io.IOException;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The client library a power-cut run publishes with, over the network like any user's client:
 * jnats ({@link JnatsCutPublisher}, in this JVM) or nats.go ({@link GoCutPublisher}, a process per
 * publisher).
 */
enum PowerCutClient {
    /** jnats, the Java client. */
    JNATS("jnats"),
    /** nats.go, Debian's golang-github-nats-io-go-nats-dev. */
    NATS_GO("nats.go");

    /** The Go program under {@code src/test/go} (built once per JVM). */
    private static final String GO_PROGRAM = "powercutpub";

    private final String label;

    PowerCutClient(String label) {
        this.label = label;
    }

    /** @return its name in tables and on the command line ({@code jnats}, {@code nats.go}) */
    String label() {
        return label;
    }

    /**
     * @param label {@code jnats} or {@code nats.go}
     * @return the client
     * @throws IllegalArgumentException naming the value otherwise
     */
    static PowerCutClient of(String label) {
        return Arrays.stream(values()).filter(c -> c.label.equals(label.trim().toLowerCase(Locale.ROOT))).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("not a power-cut client (jnats, nats.go): '" + label
                        + "'"));
    }

    /**
     * @return what this client lacks on this machine (go or nats.go for {@link #NATS_GO}), or
     *         {@code null} when nothing
     */
    String missing() {
        return this == NATS_GO ? GoProgram.missing() : null;
    }

    /**
     * Starts one publisher for one server life.
     *
     * @param publisher its number
     * @param port      the server's client port
     * @param settings  the run's window and payload size
     * @param ledger    where sends and acknowledgements are recorded
     * @param acks      counts this life's acknowledgements
     * @return it, publishing
     * @throws IOException when the Go program cannot be built
     */
    PowerCutPublisher start(int publisher, int port, PowerCutRun.Settings settings, PowerCutLedger ledger,
                            AtomicLong acks) throws IOException, InterruptedException {
        return switch (this) {
            case JNATS -> JnatsCutPublisher.start(publisher, port, settings.window(), settings.payloadBytes(), ledger,
                    acks);
            case NATS_GO -> GoCutPublisher.start(GoProgram.build(GO_PROGRAM), publisher, port, settings.window(),
                    settings.payloadBytes(), ledger, acks);
        };
    }
}
