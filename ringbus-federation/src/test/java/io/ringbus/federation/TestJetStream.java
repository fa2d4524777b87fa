package io.ringbus.federation;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;

import java.io.IOException;
import java.util.concurrent.ThreadLocalRandom;

/** The machine's NATS JetStream the tests use, and names unique to a test. */
final class TestJetStream {
    /** The shared server; {@code RINGBUS_TEST_NATS_URL} overrides it. */
    static final String URL = System.getenv().getOrDefault("RINGBUS_TEST_NATS_URL", "nats://127.0.0.1:4222");

    private TestJetStream() {
    }

    /** @return a token unique to the caller, usable in stream names and subjects */
    static String unique(String prefix) {
        return prefix + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
    }

    /** Deletes a stream if it exists. */
    static void deleteStream(Connection connection, String name) {
        try {
            JetStreamManagement management = connection.jetStreamManagement();
            management.deleteStream(name);
        } catch (JetStreamApiException e) {
            // Never created, or deleted already.
        } catch (IOException e) {
            throw new IllegalStateException("cannot delete stream " + name, e);
        }
    }
}
