package io.ringbus.jetstream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.nats.client.Connection;
import io.nats.client.Message;
import io.nats.client.Nats;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;


/**
 * The same JetStream API requests, in the same order, to nats-server 2.9.10 {@code -js} and to
 * ringbus-server: every answer compared field by field, after removing what differs by nature
 * (times, the store's byte counts, the server's own stream limit) and what ringbus does not
 * compute yet ({@code num_subjects}).
 */
class StreamsApiDifferentialTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Subject, then payload; "PUB" publishes to a stream's subject with a reply (the PubAck). */
    private static final String[][] CASES = {
            {"$JS.API.INFO", ""},
            {"$JS.API.STREAM.NAMES", ""},
            {"$JS.API.STREAM.LIST", ""},
            {"$JS.API.STREAM.CREATE.ORDERS", "{\"name\":\"ORDERS\",\"subjects\":[\"orders.>\"]}"},
            {"$JS.API.STREAM.CREATE.ORDERS", "{\"name\":\"ORDERS\",\"subjects\":[\"orders.>\"]}"},
            {"$JS.API.STREAM.CREATE.ORDERS", "{\"name\":\"ORDERS\",\"subjects\":[\"orders.x\"]}"},
            {"$JS.API.STREAM.CREATE.X", "{\"name\":\"Y\",\"subjects\":[\"y\"]}"},
            {"$JS.API.STREAM.CREATE.O2", "{\"name\":\"O2\",\"subjects\":[\"orders.a\"]}"},
            {"$JS.API.STREAM.CREATE.R3", "{\"name\":\"R3\",\"subjects\":[\"r3\"],\"num_replicas\":3}"},
            {"$JS.API.STREAM.CREATE.R9", "{\"name\":\"R9\",\"subjects\":[\"r9\"],\"num_replicas\":9}"},
            {"$JS.API.STREAM.CREATE.BAD", "{bad json"},
            {"$JS.API.STREAM.CREATE.BAD", ""},
            {"$JS.API.STREAM.CREATE.BAD", "{\"name\":\"BAD\",\"max_msgs\":\"ten\"}"},
            {"$JS.API.STREAM.CREATE.BAD", "{\"name\":\"BAD\",\"retention\":\"sometimes\"}"},
            {"$JS.API.STREAM.CREATE.BAD", "{\"name\":\"BAD\",\"max_age\":1000}"},
            {"$JS.API.STREAM.CREATE.BAD", "{\"name\":\"BAD\",\"duplicate_window\":-1}"},
            {"$JS.API.STREAM.CREATE.BAD", "{\"name\":\"BAD\",\"subjects\":[\"a\",\"a\"]}"},
            {"$JS.API.STREAM.CREATE.BAD", "{\"name\":\"BAD\",\"subjects\":[\"a..b\"]}"},
            {"$JS.API.STREAM.CREATE.BAD", "{\"name\":\"BAD\",\"subjects\":[\"$JS.API.x\"]}"},
            {"$JS.API.STREAM.CREATE.BAD", "{\"name\":\"BAD\",\"sealed\":true}"},
            {"$JS.API.STREAM.CREATE.BAD", "{\"name\":\"BAD\",\"deny_purge\":true,\"allow_rollup_hdrs\":true}"},
            {"$JS.API.STREAM.CREATE.NOSUBJ", "{\"name\":\"NOSUBJ\"}"},
            {"$JS.API.STREAM.CREATE.LIMITS", "{\"name\":\"LIMITS\",\"subjects\":[\"limits.*\"],\"max_msgs\":100,"
                    + "\"max_bytes\":1048576,\"max_age\":3600000000000,\"max_msgs_per_subject\":5,"
                    + "\"duplicate_window\":60000000000,\"retention\":\"workqueue\",\"deny_delete\":true}"},
            {"PUB orders.a", "hello"},
            {"PUB orders.b", "world"},
            {"PUB orders.a", "again"},
            {"$JS.API.STREAM.INFO.ORDERS", ""},
            {"$JS.API.STREAM.INFO.NOPE", ""},
            {"$JS.API.STREAM.NAMES", ""},
            {"$JS.API.STREAM.NAMES", "{\"subject\":\"orders.a\"}"},
            {"$JS.API.STREAM.NAMES", "{\"subject\":\"nothing.here\"}"},
            {"$JS.API.STREAM.NAMES", "{\"offset\":2}"},
            {"$JS.API.STREAM.NAMES", "{\"offset\":\"x\"}"},
            {"$JS.API.STREAM.LIST", ""},
            {"$JS.API.STREAM.LIST", "{\"subject\":\"limits.x\"}"},
            {"$JS.API.STREAM.MSG.GET.ORDERS", "{\"seq\":1}"},
            {"$JS.API.STREAM.MSG.GET.ORDERS", "{\"seq\":9}"},
            {"$JS.API.STREAM.MSG.GET.ORDERS", "{\"last_by_subj\":\"orders.a\"}"},
            {"$JS.API.STREAM.MSG.GET.ORDERS", "{\"last_by_subj\":\"orders.*\"}"},
            {"$JS.API.STREAM.MSG.GET.ORDERS", "{\"last_by_subj\":\"orders.zz\"}"},
            {"$JS.API.STREAM.MSG.GET.ORDERS", "{}"},
            {"$JS.API.STREAM.MSG.GET.ORDERS", ""},
            {"$JS.API.STREAM.MSG.GET.ORDERS", "{\"seq\":1,\"last_by_subj\":\"orders.a\"}"},
            {"$JS.API.STREAM.MSG.GET.NOPE", "{\"seq\":1}"},
            {"$JS.API.STREAM.UPDATE.ORDERS", "{\"name\":\"ORDERS\",\"subjects\":[\"orders.>\"],\"max_msgs\":10}"},
            {"$JS.API.STREAM.UPDATE.ORDERS", "{\"name\":\"ORDERS\",\"subjects\":[\"orders.>\"],\"storage\":\"memory\"}"},
            {"$JS.API.STREAM.UPDATE.ORDERS", "{\"name\":\"ORDERS\",\"subjects\":[\"orders.>\"],"
                    + "\"retention\":\"workqueue\"}"},
            {"$JS.API.STREAM.UPDATE.ORDERS", "{\"name\":\"ORDERS\",\"subjects\":[\"limits.a\"]}"},
            {"$JS.API.STREAM.UPDATE.NOPE", "{\"name\":\"NOPE\"}"},
            {"$JS.API.STREAM.UPDATE.ORDERS", "{\"name\":\"OTHER\"}"},
            {"$JS.API.STREAM.INFO.ORDERS", ""},
            {"$JS.API.STREAM.DELETE.NOSUBJ", ""},
            {"$JS.API.STREAM.DELETE.NOSUBJ", ""},
            {"$JS.API.STREAM.INFO.NOSUBJ", ""},
            {"$JS.API.STREAM.CREATE.KV", "{\"name\":\"KV\",\"subjects\":[\"kv.>\"],\"allow_direct\":true}"},
            {"$JS.API.STREAM.CREATE.DENY", "{\"name\":\"DENY\",\"subjects\":[\"deny\"],\"deny_delete\":true,"
                    + "\"deny_purge\":true}"},
            {"PUB deny", "x"},
            {"PUB kv.a", "a1"},
            {"PUB kv.b", "b1"},
            {"PUB kv.a", "a2"},
            {"PUB kv.c", "c1"},
            {"PUB kv.a", "a3"},
            {"$JS.API.DIRECT.GET.KV", "{\"seq\":1}"},
            {"$JS.API.DIRECT.GET.KV", "{\"last_by_subj\":\"kv.a\"}"},
            {"$JS.API.DIRECT.GET.KV", "{\"last_by_subj\":\"kv.*\"}"},
            {"$JS.API.DIRECT.GET.KV.kv.b", ""},
            {"$JS.API.DIRECT.GET.KV.kv.zz", ""},
            {"$JS.API.DIRECT.GET.KV.kv.b", "{\"seq\":1}"},
            {"$JS.API.DIRECT.GET.KV", "{\"seq\":99}"},
            {"$JS.API.DIRECT.GET.KV", ""},
            {"$JS.API.DIRECT.GET.KV", "{}"},
            {"$JS.API.DIRECT.GET.KV", "{bad"},
            {"$JS.API.DIRECT.GET.KV", "{\"seq\":1,\"last_by_subj\":\"kv.a\"}"},
            {"$JS.API.DIRECT.GET.KV", "{\"seq\":2,\"next_by_subj\":\"kv.a\"}"},
            {"$JS.API.DIRECT.GET.KV", "{\"next_by_subj\":\"kv.*\"}"},
            {"$JS.API.DIRECT.GET.KV", "{\"seq\":6,\"next_by_subj\":\"kv.a\"}"},
            {"$JS.API.DIRECT.GET.KV", "{\"last_by_subj\":\"kv.a\",\"next_by_subj\":\"kv.a\"}"},
            {"$JS.API.STREAM.MSG.GET.KV", "{\"seq\":3,\"next_by_subj\":\"kv.c\"}"},
            {"$JS.API.STREAM.MSG.GET.KV", "{\"next_by_subj\":\"kv.zz\"}"},
            {"$JS.API.STREAM.MSG.GET.KV", "{\"seq\":5,\"next_by_subj\":\"kv.b\"}"},
            {"$JS.API.STREAM.MSG.DELETE.KV", "{\"seq\":3}"},
            {"$JS.API.STREAM.MSG.DELETE.KV", "{\"seq\":3}"},
            {"$JS.API.STREAM.MSG.DELETE.KV", "{\"seq\":2,\"no_erase\":true}"},
            {"$JS.API.STREAM.MSG.DELETE.KV", "{\"seq\":99,\"no_erase\":true}"},
            {"$JS.API.STREAM.MSG.DELETE.KV", ""},
            {"$JS.API.STREAM.MSG.DELETE.KV", "{bad"},
            {"$JS.API.STREAM.MSG.DELETE.NOPE", "{\"seq\":1}"},
            {"$JS.API.STREAM.MSG.DELETE.DENY", "{\"seq\":1}"},
            {"$JS.API.STREAM.MSG.GET.KV", "{\"seq\":3}"},
            {"$JS.API.STREAM.MSG.GET.KV", "{\"last_by_subj\":\"kv.b\"}"},
            {"$JS.API.STREAM.INFO.KV", ""},
            {"$JS.API.STREAM.PURGE.KV", "{\"seq\":2,\"keep\":1}"},
            {"$JS.API.STREAM.PURGE.KV", "{bad"},
            {"$JS.API.STREAM.PURGE.NOPE", ""},
            {"$JS.API.STREAM.PURGE.DENY", ""},
            {"$JS.API.STREAM.PURGE.KV", "{\"filter\":\"kv.a\",\"keep\":1}"},
            {"$JS.API.STREAM.INFO.KV", ""},
            {"$JS.API.STREAM.PURGE.KV", "{\"filter\":\"kv.nothing\"}"},
            {"$JS.API.STREAM.PURGE.KV", "{\"seq\":5}"},
            {"$JS.API.STREAM.INFO.KV", ""},
            {"PUB kv.d", "d1"},
            {"$JS.API.STREAM.PURGE.KV", ""},
            {"$JS.API.STREAM.INFO.KV", ""},
            {"$JS.API.STREAM.MSG.GET.KV", "{\"last_by_subj\":\"kv.d\"}"},
            {"$JS.API.DIRECT.GET.KV.kv.d", ""},
            {"PUB kv.e", "e1"},
            {"$JS.API.STREAM.INFO.KV", ""},
            {"$JS.API.STREAM.PURGE.KV", "{\"keep\":5}"},
            {"$JS.API.INFO", ""},
    };

    @TempDir
    Path dir;

    @Test
    void answersEveryStreamRequestAsNatsServer() throws Exception {
        Differential.assertSameAnswers(dir, CASES, StreamsApiDifferentialTest::run);
    }

    /** @return each case's answer, normalized */
    static List<String> run(String url) throws Exception {
        List<String> answers = new ArrayList<>();
        Connection connection = Nats.connect(url);
        try {
            for (String[] c : CASES) {
                String subject = c[0].startsWith("PUB ") ? c[0].substring(4) : c[0];
                Message reply = connection.request(subject, c[1].getBytes(StandardCharsets.UTF_8),
                        Duration.ofSeconds(5));
                answers.add(reply.hasHeaders() || reply.isStatusMessage() ? direct(reply)
                        : normalize(new String(reply.getData(), StandardCharsets.UTF_8)));
            }
        } finally {
            connection.close();
        }
        return answers;
    }

    /** A direct get's answer: its status or headers (the time stamp's presence only) and its data. */
    static String direct(Message reply) {
        StringBuilder text = new StringBuilder();
        if (reply.isStatusMessage()) {
            text.append(reply.getStatus().getCode()).append(' ').append(reply.getStatus().getMessage());
        }
        if (reply.getHeaders() != null) {
            reply.getHeaders().entrySet().stream().sorted(java.util.Map.Entry.comparingByKey()).forEach(e -> text
                    .append(e.getKey()).append('=').append(e.getKey().equals("Nats-Time-Stamp") ? "(time)"
                            : e.getValue()).append(';'));
        }
        return text.append(" data=").append(new String(reply.getData(), StandardCharsets.UTF_8)).toString();
    }

    static String normalize(String answer) throws Exception {
        JsonNode json = JSON.readTree(answer);
        strip(json);
        return JSON.writeValueAsString(json);
    }

    private static void strip(JsonNode node) {
        if (node instanceof ObjectNode object) {
            object.remove(List.of("created", "first_ts", "last_ts", "time", "storage_bytes"));
            if (object.has("state") || object.has("messages") && object.has("bytes")) {
                object.remove("bytes");
            }
            if (object.has("limits")) {
                ((ObjectNode) object.get("limits")).remove("max_streams");
                object.remove("storage");
            }
        }
        node.forEach(StreamsApiDifferentialTest::strip);
    }
}
