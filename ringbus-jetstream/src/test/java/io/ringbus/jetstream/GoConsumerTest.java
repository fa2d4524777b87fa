package io.ringbus.jetstream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * nats.go's own consumers, unchanged, against ringbus-server: {@code src/test/go/jsconsumers} (built
 * by {@link GoProgram}: Debian's go and nats.go in GOPATH mode, nothing downloaded) pulls
 * with {@code Fetch}, acks with {@code Ack} and {@code AckSync}, reads {@code ConsumerInfo}, and
 * reads the same messages through a durable push subscription and an ordered consumer.
 */
class GoConsumerTest {
    @TempDir
    Path store;

    @Test
    void natsGoPullsAndPushes() throws Exception {
        Path binary = GoProgram.build("jsconsumers");
        try (JetStreamServer server = JetStreamServer.start(store)) {
            Process go = new ProcessBuilder(binary.toString(), server.url()).redirectErrorStream(true).start();
            boolean ended = go.waitFor(60, TimeUnit.SECONDS);
            String output = new String(go.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!ended) {
                go.destroyForcibly();
            }
            assertThat(output.lines().toList()).as(output).containsExactly("pull m1 1", "pull m2 2", "pull m3 3",
                    "pull m4 4", "pull m5 5", "info delivered 5 pending 0", "push m1 go.x", "push m2 go.x",
                    "push m3 go.x", "push m4 go.x", "push m5 go.x", "ordered m1", "ordered m2", "ordered m3",
                    "ordered m4", "ordered m5", "done");
        }
    }
}
