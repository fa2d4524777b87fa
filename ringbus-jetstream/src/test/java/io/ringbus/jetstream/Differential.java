package io.ringbus.jetstream;

import io.ringbus.testkit.ReferenceNatsServer;
import org.assertj.core.api.SoftAssertions;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The differential tests' one comparison: the same cases sent to a fresh nats-server 2.9.10
 * {@code -js} and to a fresh ringbus-server, each answer (already normalized by the runner) equal.
 */
final class Differential {
    /** Sends every case to one server at a URL and returns the answers, one per case. */
    interface Runner {
        List<String> run(String url) throws Exception;
    }

    private Differential() {
    }

    /**
     * @param dir    an empty directory for both servers' stores
     * @param cases  the cases as {@code {subject, body}}, for the failure messages
     * @param runner what sends them
     */
    static void assertSameAnswers(Path dir, String[][] cases, Runner runner) throws Exception {
        assumeTrue(ReferenceNatsServer.installed(), "nats-server is not installed");
        List<String> reference;
        try (ReferenceNatsServer nats = ReferenceNatsServer.startJetStream(dir.resolve("nats"), "")) {
            reference = runner.run("nats://127.0.0.1:" + nats.port());
        }
        List<String> ringbus;
        try (JetStreamServer server = JetStreamServer.start(dir.resolve("ringbus"))) {
            ringbus = runner.run(server.url());
        }
        SoftAssertions softly = new SoftAssertions();
        for (int i = 0; i < cases.length; i++) {
            softly.assertThat(ringbus.get(i)).as("%s %s", cases[i][0], cases[i][1]).isEqualTo(reference.get(i));
        }
        softly.assertAll();
    }
}
