package io.ringbus.testsuite.e2e;

import io.nats.client.Connection;
import io.nats.client.ErrorListener;
import io.nats.client.Nats;
import io.nats.client.Options;
import java.io.IOException;
import java.time.Duration;

/**
 * A service's NATS connection: the first connect is tried until the transport answers (it may be
 * down, killed by the test), and the connection then reconnects forever, every 100 ms.
 */
final class NatsConnect {
    private NatsConnect() {
    }

    /**
     * Connects, retrying every 200 ms while the transport is down.
     *
     * @param url  the transport's URL
     * @param name the connection's name
     * @return the open connection
     * @throws InterruptedException when interrupted while waiting
     */
    static Connection open(String url, String name) throws InterruptedException {
        Options options = new Options.Builder().server(url).connectionName(name).maxReconnects(-1)
                .reconnectWait(Duration.ofMillis(100)).connectionTimeout(Duration.ofSeconds(2))
                .errorListener(new ErrorListener() { }).build();
        while (true) {
            try {
                return Nats.connect(options);
            } catch (IOException down) {
                Thread.sleep(200);
            }
        }
    }
}
