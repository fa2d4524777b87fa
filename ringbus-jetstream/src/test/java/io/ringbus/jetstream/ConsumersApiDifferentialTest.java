package io.ringbus.jetstream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.nats.client.Connection;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.Subscription;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;


/**
 * JetStream's consumer requests, in the same order, to nats-server 2.9.10 {@code -js} and to
 * ringbus-server: the API's JSON answers compared field by field (times and the cluster aside), and
 * the messages a pull request gets (status line, headers, subject, payload, the shape of the ack
 * subject) compared one by one.
 */
class ConsumersApiDifferentialTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Subject, then payload. "PUB" publishes with a reply; "NEXT n" sends a pull request and collects n answers. */
    private static final String[][] CASES = {
            {"$JS.API.STREAM.CREATE.ORDERS", "{\"name\":\"ORDERS\",\"subjects\":[\"orders.>\"]}"},
            {"$JS.API.STREAM.CREATE.WQ", "{\"name\":\"WQ\",\"subjects\":[\"wq.>\"],\"retention\":\"workqueue\"}"},
            {"PUB orders.a", "one"},
            {"PUB orders.b", "two"},
            {"PUB orders.a", "three"},
            {"$JS.API.CONSUMER.DURABLE.CREATE.ORDERS.D1", "{\"stream_name\":\"ORDERS\",\"config\":{\"durable_name\":"
                    + "\"D1\",\"ack_policy\":\"explicit\"}}"},
            {"$JS.API.CONSUMER.DURABLE.CREATE.ORDERS.D1", "{\"stream_name\":\"ORDERS\",\"config\":{\"durable_name\":"
                    + "\"D1\",\"ack_policy\":\"explicit\"}}"},
            {"$JS.API.CONSUMER.DURABLE.CREATE.ORDERS.D1", "{\"stream_name\":\"ORDERS\",\"config\":{\"durable_name\":"
                    + "\"D1\",\"ack_policy\":\"none\"}}"},
            {"$JS.API.CONSUMER.DURABLE.CREATE.ORDERS.D1", "{\"stream_name\":\"ORDERS\",\"config\":{\"durable_name\":"
                    + "\"D1\",\"ack_policy\":\"explicit\",\"deliver_policy\":\"new\"}}"},
            {"$JS.API.CONSUMER.DURABLE.CREATE.ORDERS.D1", "{\"stream_name\":\"ORDERS\",\"config\":{\"durable_name\":"
                    + "\"D1\",\"ack_policy\":\"explicit\",\"deliver_subject\":\"d1.push\"}}"},
            {"$JS.API.CONSUMER.DURABLE.CREATE.ORDERS.D1", "{\"stream_name\":\"ORDERS\",\"config\":{\"durable_name\":"
                    + "\"D1\",\"ack_policy\":\"explicit\",\"ack_wait\":5000000000,\"max_deliver\":7,"
                    + "\"description\":\"updated\"}}"},
            {"$JS.API.CONSUMER.DURABLE.CREATE.ORDERS.D2", "{\"stream_name\":\"ORDERS\",\"config\":{\"durable_name\":"
                    + "\"X\",\"ack_policy\":\"explicit\"}}"},
            {"$JS.API.CONSUMER.DURABLE.CREATE.ORDERS.D2", "{\"stream_name\":\"ORDERS\",\"config\":{}}"},
            {"$JS.API.CONSUMER.DURABLE.CREATE.ORDERS.D2", "{\"stream_name\":\"OTHER\",\"config\":{\"durable_name\":"
                    + "\"D2\"}}"},
            {"$JS.API.CONSUMER.DURABLE.CREATE.NOPE.D2", "{\"stream_name\":\"NOPE\",\"config\":{\"durable_name\":"
                    + "\"D2\"}}"},
            {"$JS.API.CONSUMER.DURABLE.CREATE.ORDERS.D2", "{bad"},
            {"$JS.API.CONSUMER.CREATE.ORDERS", "{\"stream_name\":\"ORDERS\",\"config\":{\"durable_name\":\"E\"}}"},
            {"$JS.API.CONSUMER.CREATE.ORDERS.N1", "{\"stream_name\":\"ORDERS\",\"config\":{\"ack_policy\":\"explicit\","
                    + "\"filter_subject\":\"orders.a\",\"deliver_policy\":\"last_per_subject\"}}"},
            {"$JS.API.CONSUMER.CREATE.ORDERS.N2.orders.b", "{\"stream_name\":\"ORDERS\",\"config\":{\"ack_policy\":"
                    + "\"all\",\"filter_subject\":\"orders.a\"}}"},
            {"$JS.API.CONSUMER.CREATE.ORDERS.N3", "{\"stream_name\":\"ORDERS\",\"config\":{\"filter_subject\":\"x.y\"}}"},
            {"$JS.API.CONSUMER.CREATE.ORDERS.N3", "{\"stream_name\":\"ORDERS\",\"config\":{\"deliver_policy\":"
                    + "\"by_start_sequence\"}}"},
            {"$JS.API.CONSUMER.CREATE.ORDERS.N3", "{\"stream_name\":\"ORDERS\",\"config\":{\"deliver_policy\":\"new\","
                    + "\"opt_start_seq\":3}}"},
            {"$JS.API.CONSUMER.CREATE.ORDERS.N3", "{\"stream_name\":\"ORDERS\",\"config\":{\"idle_heartbeat\":"
                    + "1000000000}}"},
            {"$JS.API.CONSUMER.CREATE.ORDERS.N3", "{\"stream_name\":\"ORDERS\",\"config\":{\"deliver_subject\":"
                    + "\"push.x\",\"flow_control\":true}}"},
            {"$JS.API.CONSUMER.CREATE.ORDERS.N3", "{\"stream_name\":\"ORDERS\",\"config\":{\"deliver_subject\":"
                    + "\"push.*\"}}"},
            {"$JS.API.CONSUMER.CREATE.ORDERS.N3", "{\"stream_name\":\"ORDERS\",\"config\":{\"deliver_subject\":"
                    + "\"orders.loop\"}}"},
            {"$JS.API.CONSUMER.CREATE.ORDERS.N3", "{\"stream_name\":\"ORDERS\",\"config\":{\"deliver_subject\":"
                    + "\"push.x\",\"idle_heartbeat\":50000000}}"},
            {"$JS.API.CONSUMER.CREATE.ORDERS.N3", "{\"stream_name\":\"ORDERS\",\"config\":{\"max_deliver\":2,"
                    + "\"backoff\":[1000000000,2000000000],\"ack_policy\":\"explicit\"}}"},
            {"$JS.API.CONSUMER.CREATE.ORDERS.P1", "{\"stream_name\":\"ORDERS\",\"config\":{\"deliver_subject\":"
                    + "\"push.p1\",\"ack_policy\":\"none\",\"deliver_policy\":\"by_start_sequence\",\"opt_start_seq\":2,"
                    + "\"idle_heartbeat\":5000000000,\"flow_control\":true}}"},
            {"$JS.API.CONSUMER.CREATE.ORDERS.N3", "{\"stream_name\":\"ORDERS\",\"config\":{\"ack_policy\":"
                    + "\"explicit\"}}"},
            {"$JS.API.CONSUMER.CREATE.WQ.W1", "{\"stream_name\":\"WQ\",\"config\":{\"ack_policy\":\"none\"}}"},
            {"$JS.API.CONSUMER.CREATE.WQ.W1", "{\"stream_name\":\"WQ\",\"config\":{\"ack_policy\":\"explicit\"}}"},
            {"$JS.API.CONSUMER.CREATE.WQ.W2", "{\"stream_name\":\"WQ\",\"config\":{\"ack_policy\":\"explicit\"}}"},
            {"$JS.API.CONSUMER.INFO.ORDERS.D1", ""},
            {"$JS.API.CONSUMER.INFO.ORDERS.NOPE", ""},
            {"$JS.API.CONSUMER.INFO.NOPE.D1", ""},
            {"$JS.API.CONSUMER.NAMES.ORDERS", ""},
            {"$JS.API.CONSUMER.NAMES.NOPE", ""},
            {"NEXT 2 $JS.API.CONSUMER.MSG.NEXT.ORDERS.D1", "{\"batch\":2,\"expires\":500000000}"},
            {"NEXT 2 $JS.API.CONSUMER.MSG.NEXT.ORDERS.D1", "{\"batch\":5,\"no_wait\":true}"},
            {"NEXT 1 $JS.API.CONSUMER.MSG.NEXT.ORDERS.D1", "{\"batch\":1,\"no_wait\":true}"},
            {"NEXT 1 $JS.API.CONSUMER.MSG.NEXT.ORDERS.D1", "{\"batch\":1,\"expires\":200000000}"},
            {"NEXT 1 $JS.API.CONSUMER.MSG.NEXT.ORDERS.P1", ""},
            {"NEXT 1 $JS.API.CONSUMER.MSG.NEXT.ORDERS.N1", "{\"batch\":3,\"no_wait\":true}"},
            {"$JS.API.CONSUMER.CREATE.ORDERS.F1", "{\"stream_name\":\"ORDERS\",\"config\":{\"durable_name\":"
                    + "\"F1\",\"ack_policy\":\"explicit\",\"filter_subject\":\"orders.a\",\"max_batch\":2}}"},
            {"NEXT 1 $JS.API.CONSUMER.MSG.NEXT.ORDERS.F1", "1"},
            {"NEXT 1 $JS.API.CONSUMER.MSG.NEXT.ORDERS.F1", "{\"batch\":3}"},
            {"NEXT 1 $JS.API.CONSUMER.MSG.NEXT.ORDERS.F1", "{\"batch\":1,\"expires\":100000000,"
                    + "\"idle_heartbeat\":200000000}"},
            {"$JS.API.CONSUMER.DURABLE.CREATE.ORDERS.L1", "{\"stream_name\":\"ORDERS\",\"config\":{\"durable_name\":"
                    + "\"L1\",\"deliver_policy\":\"last\",\"ack_policy\":\"none\"}}"},
            {"NEXT 1 $JS.API.CONSUMER.MSG.NEXT.ORDERS.L1", "{\"batch\":5,\"no_wait\":true}"},
            {"$JS.API.CONSUMER.DURABLE.CREATE.ORDERS.T1", "{\"stream_name\":\"ORDERS\",\"config\":{\"durable_name\":"
                    + "\"T1\",\"deliver_policy\":\"by_start_time\",\"opt_start_time\":\"2000-01-01T00:00:00Z\","
                    + "\"ack_policy\":\"explicit\"}}"},
            {"NEXT 3 $JS.API.CONSUMER.MSG.NEXT.ORDERS.T1", "3"},
            {"$JS.API.CONSUMER.INFO.ORDERS.L1", ""},
            {"$JS.API.CONSUMER.DURABLE.CREATE.ORDERS.H1", "{\"stream_name\":\"ORDERS\",\"config\":{\"durable_name\":"
                    + "\"H1\",\"deliver_policy\":\"new\",\"ack_policy\":\"explicit\"}}"},
            {"NEXT 1 $JS.API.CONSUMER.MSG.NEXT.ORDERS.H1", "{\"batch\":1,\"expires\":2000000000,"
                    + "\"idle_heartbeat\":300000000}"},
            {"$JS.API.CONSUMER.DELETE.ORDERS.L1", ""},
            {"$JS.API.CONSUMER.DELETE.ORDERS.T1", ""},
            {"NEXT 1 $JS.API.CONSUMER.MSG.NEXT.ORDERS.N3", "{\"batch\":2,\"max_bytes\":3}"},
            {"NEXT 2 $JS.API.CONSUMER.MSG.NEXT.ORDERS.N3", "{\"batch\":5,\"max_bytes\":20,\"expires\":300000000}"},
            {"$JS.API.CONSUMER.INFO.ORDERS.F1", ""},
            {"$JS.API.CONSUMER.INFO.ORDERS.D1", ""},
            {"$JS.API.CONSUMER.INFO.ORDERS.N1", ""},
            {"$JS.API.CONSUMER.LIST.ORDERS", ""},
            {"$JS.API.CONSUMER.DELETE.ORDERS.D1", ""},
            {"$JS.API.CONSUMER.DELETE.ORDERS.D1", ""},
            {"$JS.API.INFO", ""},
    };

    @TempDir
    Path dir;

    @Test
    void answersEveryConsumerRequestAsNatsServer() throws Exception {
        Differential.assertSameAnswers(dir, CASES, ConsumersApiDifferentialTest::run);
    }

    private static List<String> run(String url) throws Exception {
        List<String> answers = new ArrayList<>();
        Connection connection = Nats.connect(url);
        try {
            for (String[] c : CASES) {
                byte[] body = c[1].getBytes(StandardCharsets.UTF_8);
                if (c[0].startsWith("NEXT ")) {
                    String[] parts = c[0].split(" ");
                    answers.add(pull(connection, parts[2], body, Integer.parseInt(parts[1])));
                    continue;
                }
                String subject = c[0].startsWith("PUB ") ? c[0].substring(4) : c[0];
                Message reply = connection.request(subject, body, Duration.ofSeconds(5));
                answers.add(normalize(new String(reply.getData(), StandardCharsets.UTF_8)));
            }
        } finally {
            connection.close();
        }
        return answers;
    }

    /** @return the pull request's answers: status line, headers, subject, payload and ack-subject shape */
    private static String pull(Connection connection, String subject, byte[] body, int answers) throws Exception {
        String inbox = connection.createInbox();
        Subscription sub = connection.subscribe(inbox);
        connection.publish(subject, inbox, body);
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < answers; i++) {
            Message message = sub.nextMessage(Duration.ofSeconds(2));
            if (message == null) {
                out.append("(none)");
                break;
            }
            out.append(message.isStatusMessage() ? message.getStatus().getCode() + " "
                    + message.getStatus().getMessage() : "msg").append(' ');
            if (message.hasHeaders()) {
                message.getHeaders().entrySet().stream().sorted(java.util.Map.Entry.comparingByKey())
                        .forEach(e -> out.append(e.getKey()).append('=').append(e.getValue()).append(' '));
            }
            out.append(message.isStatusMessage() ? "" : message.getSubject()).append(' ')
                    .append(new String(message.getData(), StandardCharsets.UTF_8)).append(' ');
            String reply = message.getReplyTo();
            if (reply != null && reply.startsWith("$JS.ACK.")) {
                String[] tokens = reply.split("\\.");
                // the ack subject without its timestamp
                tokens[7] = "ts";
                out.append(String.join(".", tokens));
            }
            out.append(" | ");
        }
        sub.unsubscribe();
        return out.toString();
    }

    private static String normalize(String answer) throws Exception {
        JsonNode json = JSON.readTree(answer);
        strip(json);
        return JSON.writeValueAsString(json);
    }

    private static void strip(JsonNode node) {
        if (node instanceof ObjectNode object) {
            object.remove(List.of("created", "first_ts", "last_ts", "time", "num_subjects", "storage_bytes",
                    "cluster", "last_active", "bytes"));
            if (object.has("limits")) {
                ((ObjectNode) object.get("limits")).remove("max_streams");
                object.remove("storage");
            }
        }
        node.forEach(ConsumersApiDifferentialTest::strip);
    }
}
