package io.ringbus.jetstream;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.api.StreamConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code jetstream.max_subjects}: the subjects of all streams together are bounded, since every
 * overlap check and the broker's lookup of a published subject's stream cost in proportion to them.
 * Before, one 1 MB configuration of 60,000 subjects held the API's one thread for minutes (an O(n²)
 * overlap check) and every other client's API request timed out (issue 26's hostile
 * {@code stream-subjects}; nats-server, without a bound, took more than 10 s too).
 */
@SuppressWarnings("try") // jnats' Connection.close() may throw InterruptedException
class StreamSubjectsLimitTest {
    @TempDir
    Path store;

    private static StreamConfiguration stream(String name, int subjects) {
        return StreamConfiguration.builder().name(name).subjects(IntStream.range(0, subjects)
                .mapToObj(i -> name.toLowerCase() + "." + i).toList()).build();
    }

    @Test
    void allStreamsTogetherHoldAtMostMaxSubjects() throws Exception {
        try (JetStreamServer server = JetStreamServer.start(store,
                b -> b.extensionSetting("jetstream.max_subjects", "100"));
             Connection nats = Nats.connect(server.url())) {
            JetStreamManagement jsm = nats.jetStreamManagement();
            jsm.addStream(stream("A", 60));
            assertThatThrownBy(() -> jsm.addStream(stream("B", 50)))
                    .isInstanceOf(JetStreamApiException.class).hasMessageContaining("10052")
                    .hasMessageContaining("too many subjects: 50 requested, 110 in all streams, at most 100 "
                            + "(jetstream.max_subjects)");
            assertThat(jsm.updateStream(stream("A", 99)).getConfiguration().getSubjects())
                    .as("a stream's own subjects are replaced, not counted twice").hasSize(99);
            assertThat(jsm.addStream(stream("C", 1)).getConfiguration().getSubjects()).hasSize(1);
            assertThatThrownBy(() -> jsm.addStream(stream("D", 1))).hasMessageContaining("at most 100");
        }
    }

    @Test
    void aHugeSubjectListIsRefusedAtOnceAndOthersAreServed() throws Exception {
        try (JetStreamServer server = JetStreamServer.start(store);
             Connection attacker = Nats.connect(server.url()); Connection other = Nats.connect(server.url())) {
            assertThatThrownBy(() -> attacker.jetStreamManagement().addStream(stream("HUGE", 60_000)))
                    .isInstanceOf(JetStreamApiException.class)
                    .hasMessageContaining("too many subjects: 60000 requested, 60000 in all streams, at most 1024");
            JetStreamManagement jsm = other.jetStreamManagement();
            assertThat(jsm.addStream(stream("LITERALS", 1_000)).getConfiguration().getSubjects())
                    .as("1,000 literal subjects").hasSize(1_000);
            assertThatThrownBy(() -> jsm.addStream(StreamConfiguration.builder().name("OVERLAP")
                    .subjects("x.b", "y.*", "y.c", "x.>").build()))
                    .hasMessageContaining("subject \"x.b\" overlaps with \"x.>\"");
        }
    }
}
