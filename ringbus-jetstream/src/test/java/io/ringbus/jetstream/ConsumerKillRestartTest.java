package io.ringbus.jetstream;

import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.JetStreamSubscription;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.PullSubscribeOptions;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.ringbus.testkit.ChildJvm;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A durable pull consumer across {@code kill -9} of ringbus-server (RingbusServerMain in a JVM of
 * its own, JetStream on by default): messages acknowledged with {@code ackSync} are never delivered
 * again, those delivered and not acknowledged are delivered again (delivery count 2), then the rest.
 */
class ConsumerKillRestartTest {
    private static final Pattern LISTENING = Pattern.compile("listening on 127\\.0\\.0\\.1:(\\d+)");

    @TempDir
    Path store;

    @Test
    void ackedNeverRedeliveredUnackedRedeliveredAfterKill9() throws Exception {
        Process first = start();
        try {
            Connection nats = Nats.connect("nats://127.0.0.1:" + port(first));
            nats.jetStreamManagement().addStream(StreamConfiguration.builder().name("JOBS").subjects("jobs.>")
                    .storageType(StorageType.File).build());
            JetStream js = nats.jetStream();
            for (int i = 1; i <= 10; i++) {
                js.publish("jobs.x", ("m" + i).getBytes(StandardCharsets.UTF_8));
            }
            JetStreamSubscription sub = js.subscribe("jobs.>", PullSubscribeOptions.builder().durable("w").build());
            List<Message> got = sub.fetch(6, Duration.ofSeconds(5));
            assertThat(got).hasSize(6);
            for (Message message : got.subList(0, 4)) {
                message.ackSync(Duration.ofSeconds(5));
            }
            // m5 and m6 are delivered and not acknowledged when the server dies
        } finally {
            first.destroyForcibly(); // SIGKILL
            first.waitFor(30, TimeUnit.SECONDS);
        }
        Process second = start();
        try {
            Connection nats = Nats.connect("nats://127.0.0.1:" + port(second));
            JetStreamSubscription sub = nats.jetStream().subscribe("jobs.>", PullSubscribeOptions.bind("JOBS", "w"));
            List<String> got = new ArrayList<>();
            List<Long> deliveries = new ArrayList<>();
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (got.size() < 6 && System.nanoTime() < deadline) {
                for (Message message : sub.fetch(6 - got.size(), Duration.ofSeconds(1))) {
                    got.add(new String(message.getData(), StandardCharsets.UTF_8));
                    deliveries.add(message.metaData().deliveredCount());
                    message.ackSync(Duration.ofSeconds(5));
                }
            }
            assertThat(got).containsExactly("m5", "m6", "m7", "m8", "m9", "m10");
            assertThat(deliveries).containsExactly(2L, 2L, 1L, 1L, 1L, 1L);
            assertThat(sub.fetch(1, Duration.ofMillis(500))).isEmpty();
            nats.close();
        } finally {
            second.destroyForcibly();
            second.waitFor(30, TimeUnit.SECONDS);
        }
    }

    private Process start() throws IOException {
        return new ProcessBuilder(ChildJvm.java(), "-Xmx128m", "-Dorg.slf4j.simpleLogger.defaultLogLevel=info",
                "-cp", ChildJvm.classPath(), "io.ringbus.server.RingbusServerMain", "--host", "127.0.0.1",
                "--port", "0", "--http-port", "0", "--storage-dir", store.toString())
                .redirectErrorStream(true).start();
    }

    private static int port(Process process) throws Exception {
        CompletableFuture<Integer> port = new CompletableFuture<>();
        List<String> log = new ArrayList<>();
        Thread.ofPlatform().daemon().start(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    log.add(line);
                    Matcher listening = LISTENING.matcher(line);
                    if (listening.find()) {
                        port.complete(Integer.parseInt(listening.group(1)));
                    }
                }
            } catch (IOException ignored) {
                // the process ended
            }
            port.completeExceptionally(new AssertionError("server did not start: " + log));
        });
        return port.get(60, TimeUnit.SECONDS);
    }
}
