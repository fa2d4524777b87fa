package io.ringbus.jetstream.internal.consumer;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ringbus.core.Broker;
import io.ringbus.core.Client;
import io.ringbus.core.Documents;
import io.ringbus.core.Headers;
import io.ringbus.core.Message;
import io.ringbus.core.Scope;
import io.ringbus.core.Storage;
import io.ringbus.core.StreamConfig;
import io.ringbus.server.spi.ApiRequest;
import io.ringbus.server.spi.DeliveredAs;
import io.ringbus.server.spi.Requester;
import io.ringbus.testkit.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A new push consumer is held until its create response is published, and still loses nothing it
 * starts at: nats.js' KV watch (ordered consumer, last_per_subject) on a bucket with history 2,
 * whose client puts and deletes the key as soon as it has the response. Here the API thread is
 * caught between publishing the response and releasing the consumer ({@link ConsumersApi#answered}),
 * as under CPU load: the put and the delete are stored, the limit removes the put the watch starts
 * at, and only then is the consumer released. It must deliver that put, then the next, then the
 * delete (the {@code kv_watch} case of jscontract.js, which failed with "no answer within 5000 ms").
 */
@SuppressWarnings("try")
class HeldConsumerStartTest {
    private static final String STREAM = "KV_w";
    private static final String DELIVER = "_INBOX.watch";

    @TempDir
    Path store;

    @Test
    void aWatchGetsThePutItStartsAtThoughALimitRemovedItBeforeTheConsumerWasReleased() throws Exception {
        try (Broker broker = Broker.builder().defaultScope(Scope.PUBLIC).storage(Storage.local(store)).build();
             Consumers consumers = new Consumers(broker, new MapDocuments())) {
            broker.registerStream(StreamConfig.of("$KV.w.>").withName(STREAM).withMaxMessagesPerSubject(2),
                    Scope.PUBLIC);
            Client client = broker.client(Scope.PUBLIC);
            put(client, "1", null);
            List<String> seen = new CopyOnWriteArrayList<>();
            List<Long> sequences = new CopyOnWriteArrayList<>();
            client.subscribe(DELIVER, message -> {
                seen.add(entry(message));
                sequences.add(Long.parseLong(message.replyTo().split("\\.")[5]));
            });
            ConsumersApi api = new ConsumersApi(consumers);

            ObjectNode created = api.answer(new Request("$JS.API.CONSUMER.CREATE." + STREAM, """
                    {"stream_name":"KV_w","config":{"deliver_subject":"%s","deliver_policy":"last_per_subject",
                    "filter_subject":"$KV.w.a","ack_policy":"none","max_deliver":1,"flow_control":true,
                    "idle_heartbeat":5000000000,"mem_storage":true,"num_replicas":1}}""".formatted(DELIVER)),
                    "$JS.API.CONSUMER.CREATE.KV_w".split("\\.", -1));
            assertThat(created.has("error")).as("%s", created).isFalse();
            assertThat(created.path("num_pending").asLong()).as("the watch starts at a=1").isEqualTo(1);
            // The client has the response; the API thread has not released the consumer yet.
            put(client, "2", null);
            put(client, "", Headers.of("KV-Operation", "DEL"));
            assertThat(broker.streams().getFirst().read(1)).as("history 2: the delete removed a=1").isNull();
            Await.grace();
            assertThat(seen).as("nothing before the create response is out").isEmpty();

            api.answered();

            Await.until("the delete watched", Duration.ofSeconds(10), () -> sequences.contains(3L));
            assertThat(seen).containsExactly("a=1", "a=2", "DEL a=");
            assertThat(sequences).containsExactly(1L, 2L, 3L);
        }
    }

    private static void put(Client client, String value, Headers headers) {
        client.tryPublishWithAck("$KV.w.a", null, headers, value.getBytes(StandardCharsets.UTF_8)).join();
    }

    private static String entry(Message message) {
        DeliveredAs delivered = (DeliveredAs) message.payload();
        String key = delivered.subject().substring("$KV.w.".length());
        String operation = message.headers().first("KV-Operation");
        return (operation == null ? "" : operation + " ") + key + "="
                + new String(delivered.payload(), StandardCharsets.UTF_8);
    }

    /** A request from a client at the public scope that may do anything there. */
    private record Request(String subject, String json) implements ApiRequest, Requester {
        @Override
        public String replyTo() {
            return "_INBOX.reply";
        }

        @Override
        public byte[] headers() {
            return null;
        }

        @Override
        public byte[] payload() {
            return json.getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public Requester requester() {
            return this;
        }

        @Override
        public void reply(byte[] headers, byte[] payload) {
        }

        @Override
        public Scope scope() {
            return Scope.PUBLIC;
        }

        @Override
        public String name() {
            return null;
        }

        @Override
        public long connectionId() {
            return 1;
        }

        @Override
        public boolean mayPublish(String subject) {
            return true;
        }

        @Override
        public boolean maySubscribe(String subject) {
            return true;
        }

        @Override
        public void refuse(String subject) {
        }
    }

    /** Documents in memory. */
    private static final class MapDocuments implements Documents {
        private final Map<String, byte[]> documents = new ConcurrentHashMap<>();

        @Override
        public void write(String name, byte[] content) {
            documents.put(name, content.clone());
        }

        @Override
        public byte[] read(String name) {
            return documents.get(name);
        }

        @Override
        public boolean delete(String name) {
            return documents.remove(name) != null;
        }

        @Override
        public List<String> names() {
            return new ArrayList<>(new java.util.TreeSet<>(documents.keySet()));
        }
    }
}
