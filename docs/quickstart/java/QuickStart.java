// The ringbus quick start with jnats: connect, publish and subscribe, request and reply, and a
// publish that ringbus acknowledges once the message is stored (docs/quickstart/java.md).
import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.Subscription;
import io.nats.client.api.PublishAck;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

public class QuickStart {
    public static void main(String[] args) throws Exception {
        String url = System.getenv().getOrDefault("NATS_URL", "nats://127.0.0.1:4222");
        try (Connection nats = Nats.connect(url)) {
            System.out.println("connected to " + url);

            // Subscribe, then publish: the subscription receives the message.
            Subscription greetings = nats.subscribe("greet.*");
            nats.publish("greet.joe", "hello".getBytes(StandardCharsets.UTF_8));
            Message greeting = greetings.nextMessage(Duration.ofSeconds(2));
            if (greeting == null) {
                throw new IllegalStateException("no message on greet.* within 2 s");
            }
            System.out.println("received " + greeting.getSubject() + ": "
                    + new String(greeting.getData(), StandardCharsets.UTF_8));

            // Request and reply: a responder on "ping" answers every request.
            Dispatcher responder = nats.createDispatcher(request ->
                    nats.publish(request.getReplyTo(), "pong".getBytes(StandardCharsets.UTF_8)));
            responder.subscribe("ping");
            Message reply = nats.request("ping", new byte[0], Duration.ofSeconds(2));
            if (reply == null) {
                throw new IllegalStateException("no reply to ping within 2 s");
            }
            System.out.println("reply " + new String(reply.getData(), StandardCharsets.UTF_8));

            // Durable publish: orders.> is stored (ringbus.properties), and JetStream's publish
            // returns once the message is on disk, with the stream and the message's sequence in it.
            PublishAck ack = nats.jetStream().publish("orders.new",
                    "order from java".getBytes(StandardCharsets.UTF_8));
            System.out.println("stored in stream " + ack.getStream() + " seq " + ack.getSeqno());
        }
    }
}
