package io.ringbus.jetstream;

import io.nats.client.Connection;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsMessage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * What a stream admits, against nats-server 2.9.10 {@code -js}: publish expectations
 * ({@code Nats-Expected-Stream}, {@code -Last-Sequence}, {@code -Last-Subject-Sequence},
 * {@code -Last-Msg-Id}), {@code Nats-Rollup}, {@code max_msg_size}, discard new (messages, bytes, per
 * subject), sealing, and streams of several subjects: every PubAck and API answer compared.
 *
 * <p>Not compared: {@code max_bytes} under discard new, which nats-server 2.9.10 does not enforce
 * (it drops the oldest, as discard old; later versions refuse): ringbus refuses with
 * "maximum bytes exceeded" ({@code StreamAdmissionTest} in ringbus-core), and an invalid
 * {@code Nats-Rollup} value, which nats-server leaves unanswered and ringbus refuses.
 */
class PublishRulesDifferentialTest {
    /** Subject, headers ("Name: value|Name: value"), payload; API subjects are requests as they are. */
    private static final String[][] CASES = {
            {"$JS.API.STREAM.CREATE.BAD", "", "{\"name\":\"BAD\",\"subjects\":[\"bad.>\",\"bad.x\"]}"},
            {"$JS.API.STREAM.CREATE.BAD", "", "{\"name\":\"BAD\",\"subjects\":[\"b\"],\"discard_new_per_subject\":true,"
                    + "\"discard\":\"new\"}"},
            {"$JS.API.STREAM.CREATE.RULES", "", "{\"name\":\"RULES\",\"subjects\":[\"rules.a.>\",\"rules.b.*\"],"
                    + "\"allow_rollup_hdrs\":true,\"max_msg_size\":16,\"discard\":\"new\",\"max_msgs\":9}"},
            {"$JS.API.STREAM.CREATE.OVER", "", "{\"name\":\"OVER\",\"subjects\":[\"x\",\"rules.b.c\"]}"},
            {"rules.a.x", "Nats-Expected-Stream: OTHER", "1"},
            {"rules.a.x", "Nats-Expected-Stream: RULES", "2"},
            {"rules.a.x", "Nats-Expected-Last-Sequence: 0", "3"},
            {"rules.a.x", "Nats-Expected-Last-Sequence: 1", "4"},
            {"rules.a.x", "Nats-Expected-Last-Sequence: abc", "5"},
            {"rules.b.y", "Nats-Expected-Last-Subject-Sequence: 0", "6"},
            {"rules.b.y", "Nats-Expected-Last-Subject-Sequence: 0", "7"},
            {"rules.b.y", "Nats-Expected-Last-Subject-Sequence: 3", "8"},
            {"rules.a.y", "Nats-Msg-Id: m1", "9"},
            {"rules.a.y", "Nats-Expected-Last-Msg-Id: m0", "10"},
            {"rules.a.y", "Nats-Expected-Last-Msg-Id: m1|Nats-Msg-Id: m2", "11"},
            {"rules.a.y", "Nats-Msg-Id: m2|Nats-Expected-Last-Sequence: 1", "12"},
            {"rules.a.z", "", "seventeen bytes.."},
            {"rules.a.z", "Nats-Padding: 1234567", "sixteen!"},
            {"rules.a.x", "", "13"},
            {"rules.a.x", "Nats-Rollup: sub", "14"},
            {"$JS.API.STREAM.INFO.RULES", "", ""},
            {"$JS.API.STREAM.MSG.GET.RULES", "", "{\"last_by_subj\":\"rules.b.y\"}"},
            {"$JS.API.STREAM.NAMES", "", "{\"subject\":\"rules.b.q\"}"},
            {"rules.b.w", "", "15"},
            {"rules.b.w", "", "16"},
            {"rules.b.w", "", "17"},
            {"rules.b.w", "", "18"},
            {"rules.b.w", "", "19"},
            {"rules.b.w", "Nats-Rollup: all", "20"},
            {"$JS.API.STREAM.INFO.RULES", "", ""},
            {"$JS.API.STREAM.CREATE.NOROLL", "", "{\"name\":\"NOROLL\",\"subjects\":[\"noroll\"]}"},
            {"noroll", "Nats-Rollup: sub", "1"},
            {"$JS.API.STREAM.CREATE.PER", "", "{\"name\":\"PER\",\"subjects\":[\"per.*\"],\"discard\":\"new\","
                    + "\"max_msgs_per_subject\":2,\"discard_new_per_subject\":true}"},
            {"per.a", "", "1"},
            {"per.a", "", "2"},
            {"per.a", "", "3"},
            {"per.b", "", "4"},
            {"$JS.API.STREAM.CREATE.HIST", "", "{\"name\":\"HIST\",\"subjects\":[\"hist.*\"],\"discard\":\"new\","
                    + "\"max_msgs_per_subject\":2,\"max_msgs\":3}"},
            {"hist.a", "", "1"},
            {"hist.a", "", "2"},
            {"hist.a", "", "3"},
            {"hist.b", "", "4"},
            {"hist.c", "", "5"},
            {"hist.a", "", "6"},
            {"$JS.API.STREAM.INFO.HIST", "", ""},
            {"$JS.API.STREAM.UPDATE.PER", "", "{\"name\":\"PER\",\"subjects\":[\"per.*\"],\"discard\":\"new\","
                    + "\"max_msgs_per_subject\":2,\"discard_new_per_subject\":true,\"max_consumers\":5}"},
            {"$JS.API.STREAM.UPDATE.PER", "", "{\"name\":\"PER\",\"subjects\":[\"per.*\",\"per2\"],"
                    + "\"discard\":\"new\",\"max_msgs_per_subject\":2,\"discard_new_per_subject\":true,"
                    + "\"sealed\":true,\"max_age\":60000000000}"},
            {"per.c", "", "5"},
            {"per2", "", "6"},
            {"$JS.API.STREAM.PURGE.PER", "", ""},
            {"$JS.API.STREAM.MSG.DELETE.PER", "", "{\"seq\":1}"},
            {"$JS.API.STREAM.UPDATE.PER", "", "{\"name\":\"PER\",\"subjects\":[\"per.*\"]}"},
            {"$JS.API.STREAM.INFO.PER", "", ""},
            {"$JS.API.STREAM.CREATE.MEM", "", "{\"name\":\"MEM\",\"subjects\":[\"mem.*\"],\"storage\":\"memory\","
                    + "\"max_msgs_per_subject\":1,\"allow_rollup_hdrs\":true}"},
            {"mem.a", "", "1"},
            {"mem.a", "", "2"},
            {"mem.b", "Nats-Rollup: sub", "3"},
            {"$JS.API.STREAM.INFO.MEM", "", ""},
            {"$JS.API.STREAM.UPDATE.MEM", "", "{\"name\":\"MEM\",\"subjects\":[\"mem.*\"]}"},
    };

    @TempDir
    Path dir;

    @Test
    void admitsAndRefusesAsNatsServer() throws Exception {
        Differential.assertSameAnswers(dir, CASES, PublishRulesDifferentialTest::run);
    }

    /** @return each case's answer, normalized */
    static List<String> run(String url) throws Exception {
        List<String> answers = new ArrayList<>();
        Connection connection = Nats.connect(url);
        try {
            for (String[] c : CASES) {
                Headers headers = new Headers();
                if (!c[1].isEmpty()) {
                    for (String line : c[1].split("\\|")) {
                        int colon = line.indexOf(':');
                        headers.add(line.substring(0, colon), line.substring(colon + 1).trim());
                    }
                }
                Message reply = connection.request(NatsMessage.builder().subject(c[0]).headers(headers)
                        .data(c[2].getBytes(StandardCharsets.UTF_8)).build(), Duration.ofSeconds(5));
                answers.add(reply.hasHeaders() || reply.isStatusMessage() ? StreamsApiDifferentialTest.direct(reply)
                        : StreamsApiDifferentialTest.normalize(new String(reply.getData(), StandardCharsets.UTF_8)));
            }
        } finally {
            connection.close();
        }
        return answers;
    }
}
