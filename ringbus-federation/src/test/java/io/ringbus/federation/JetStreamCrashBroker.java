package io.ringbus.federation;

import io.ringbus.core.Broker;
import io.ringbus.core.ConsumerStats;
import io.ringbus.core.Durability;
import io.ringbus.core.DurableOptions;
import io.ringbus.core.ExecutionMode;
import io.ringbus.core.Scope;
import io.ringbus.core.StoredMessage;
import io.ringbus.core.SubscribeOptions;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * The process {@link JetStreamCrashTest} kills: a broker whose durable subject {@code crash.>} is
 * stored in JetStream, with the durable subscription {@code billing}. Prints {@code d <key>} in the
 * handler (which then returns: the ack) and, in mode RUN, {@code a <key>} after each publish returned
 * (the PubAck arrived). Mode DRAIN publishes nothing and prints {@code caught-up} once nothing is
 * pending or unacknowledged. Arguments: {@code <nats url> <mode> <round>}.
 */
final class JetStreamCrashBroker {
    private JetStreamCrashBroker() {
    }

    public static void main(String[] args) throws InterruptedException {
        boolean drain = args[1].equals("DRAIN");
        String round = args[2];
        FileOutputStream out = new FileOutputStream(FileDescriptor.out);
        Broker broker = Broker.builder().storage(JetStreamStorage.builder().servers(args[0]).connect()).build();
        broker.registerSubject("crash.>", Scope.PUBLIC, Durability.DURABLE);
        broker.subscribe("crash.>", m -> print(out, "d " + ((StoredMessage) m).payloadAsString()),
                SubscribeOptions.defaults().mode(ExecutionMode.VIRTUAL)
                        // A short ack wait: what a killed process held comes back in seconds.
                        .durable(DurableOptions.named("billing").withAckWait(Duration.ofSeconds(3))));
        print(out, "ready");
        if (drain) {
            // Quiet for longer than the ack wait (3 s): a message a killed process held is delivered
            // again only once its ack wait has passed, and may not show as pending before.
            int quiet = 0;
            while (quiet < 40) {
                Thread.sleep(100);
                ConsumerStats stats = broker.stats().consumers().get(0);
                quiet = stats.pending() == 0 && stats.ackPending() == 0 ? quiet + 1 : 0;
            }
            print(out, "caught-up");
            broker.close();
            return;
        }
        for (int t = 0; t < 2; t++) {
            int thread = t;
            Thread.ofPlatform().start(() -> {
                for (long n = 0; ; n++) {
                    String key = "r" + round + "p" + thread + "-" + n;
                    broker.publish("crash.t" + thread, key);
                    print(out, "a " + key);
                }
            });
        }
    }

    private static void print(FileOutputStream out, String line) {
        byte[] bytes = (line + "\n").getBytes(StandardCharsets.UTF_8);
        try {
            synchronized (out) {
                out.write(bytes);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
