package io.ringbus.jetstream;

import io.ringbus.testkit.ReferenceNatsServer;
import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.nio.file.Path;

/**
 * The two servers a client test runs against by name: {@code ringbus} (ringbus-server with JetStream,
 * in process) and {@code nats-server} (2.9.10 {@code -js}, the reference; the test is skipped where it
 * is not installed).
 */
final class BothServers {
    private BothServers() {
    }

    /** @return the running server named {@code server}, its store under {@code dir} */
    static AutoCloseable start(String server, Path dir) throws IOException {
        if (server.equals("ringbus")) {
            return JetStreamServer.start(dir.resolve("ringbus"));
        }
        Assumptions.assumeTrue(ReferenceNatsServer.installed(), "nats-server 2.9.10 is not installed");
        return ReferenceNatsServer.startJetStream(dir.resolve("nats"), "");
    }

    /** @return the NATS URL of a server {@link #start} returned */
    static String url(AutoCloseable running) {
        return running instanceof JetStreamServer server ? server.url()
                : "nats://127.0.0.1:" + ((ReferenceNatsServer) running).port();
    }
}
