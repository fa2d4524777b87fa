package io.ringbus.bench.hostile;

import java.io.IOException;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Attacks on what a stream admits: publish expectations with giant and odd header values, streams
 * under discard new kept full, and stream configurations with tens of thousands of subjects. Both
 * servers get the same bytes; a JetStream user of another stream is measured meanwhile.
 */
final class AdmissionAttacks {
    /** Subjects in one stream configuration: about 1 MB of JSON (max_payload). */
    static final int SUBJECTS = 60_000;
    /** Subjects of the later streams. */
    static final int SMALL_LIST = 200;
    /** A header value near JetStream's 64 KiB header limit. */
    private static final String GIANT = "g".repeat(60_000);
    private static final int AHEAD = 32;

    private AdmissionAttacks() {
    }

    /** @return the attacks */
    static List<Attack> all() {
        return List.of(
                Attack.jetStream("expectations", "publishes whose Nats-Expected-* and Nats-Rollup headers are 60 KB, "
                        + "not numbers, past 2^64, repeated 1,000 times or new subjects at sequence 0", Set.of("HPUB"),
                        AdmissionAttacks::createExpect, AdmissionAttacks::expectations),
                Attack.jetStream("discard-new", "streams under discard new kept full (messages, bytes, per subject), "
                        + "a sealed stream and max_msg_size, flooded with publishes they refuse", Set.of("HPUB", "PUB"),
                        AdmissionAttacks::createFull, AdmissionAttacks::discardNew),
                Attack.jetStream("stream-subjects", "a stream of 60,000 subjects (1 MB configuration), then streams of "
                        + "200 subjects created and updated until refused, then core publishes to 100,000 other subjects",
                        Set.of("$JS.API.STREAM.CREATE", "$JS.API.STREAM.UPDATE", "$JS.API.STREAM.LIST"),
                        Attack.NOTHING, AdmissionAttacks::manySubjects));
    }

    private static void create(JsClient js, String name, String config) throws IOException {
        String answer = js.request("$JS.API.STREAM.CREATE." + name, config);
        if (answer.contains("\"error\"")) {
            throw new IOException("stream " + name + " not created: " + answer);
        }
    }

    private static void createExpect(Target target, long deadline) throws Exception {
        try (JsClient js = JsClient.login(target, "alice")) {
            create(js, "EXPECT", "{\"name\":\"EXPECT\",\"subjects\":[\"expect.>\"]}");
            js.publish("expect.first", "NATS/1.0\r\nNats-Msg-Id: " + GIANT + "\r\n\r\n", new byte[8]);
        }
    }

    /** The n-th hostile header block. */
    private static String expectation(long n) {
        return switch ((int) (n % 9)) {
            case 0 -> "NATS/1.0\r\nNats-Expected-Stream: " + GIANT + "\r\n\r\n";
            case 1 -> "NATS/1.0\r\nNats-Expected-Last-Msg-Id: " + GIANT + "\r\n\r\n";
            case 2 -> "NATS/1.0\r\nNats-Expected-Last-Sequence: 99999999999999999999999999\r\n\r\n";
            case 3 -> "NATS/1.0\r\nNats-Expected-Last-Subject-Sequence: -1\r\n\r\n";
            case 4 -> "NATS/1.0\r\nNats-Expected-Last-Subject-Sequence: 0\r\n\r\n";
            case 5 -> "NATS/1.0\r\nNats-Rollup: " + GIANT + "\r\n\r\n";
            case 6 -> "NATS/1.0\r\n" + "Nats-Expected-Last-Sequence: 1\r\n".repeat(1_000) + "\r\n";
            case 7 -> "NATS/1.0\r\nNats-Expected-Stream:EXPECT\r\nnats-expected-last-sequence:  0x10 \r\n\r\n";
            default -> "NATS/1.0\r\nNats-Expected-Last-Subject-Sequence: \u00e9\u00e9\r\nNats-Expected-Stream\r\n\r\n";
        };
    }

    private static void expectations(Target target, long deadline) throws Exception {
        long sent = 0;
        long errors = 0;
        long start = System.nanoTime();
        try (JsClient js = JsClient.login(target, "alice")) {
            while (!Attack.over(deadline)) {
                for (int i = 0; i < AHEAD; i++, sent++) {
                    // case 4 (sequence 0 of a subject) stores a message on a new subject each time
                    js.publishAhead("expect.s" + sent, expectation(sent), new byte[16]);
                }
                errors += js.awaitAnswers(AHEAD);
            }
            String info = js.request("$JS.API.STREAM.INFO.EXPECT", "");
            target.note(String.format(Locale.ROOT, "%,d publishes in %.1f s, %,d refused; EXPECT holds %,d messages",
                    sent, (System.nanoTime() - start) / 1e9, errors, JsClient.number(info, "messages")));
        }
    }

    private static void createFull(Target target, long deadline) throws Exception {
        try (JsClient js = JsClient.login(target, "alice")) {
            create(js, "FULLMSGS", "{\"name\":\"FULLMSGS\",\"subjects\":[\"fullmsgs.>\"],\"discard\":\"new\","
                    + "\"max_msgs\":1000}");
            create(js, "FULLBYTES", "{\"name\":\"FULLBYTES\",\"subjects\":[\"fullbytes.>\"],\"discard\":\"new\","
                    + "\"max_bytes\":1048576,\"max_msg_size\":8192}");
            create(js, "FULLSUBJ", "{\"name\":\"FULLSUBJ\",\"subjects\":[\"fullsubj.>\"],\"discard\":\"new\","
                    + "\"max_msgs_per_subject\":10,\"discard_new_per_subject\":true}");
            create(js, "SEALED", "{\"name\":\"SEALED\",\"subjects\":[\"sealed.>\"]}");
            js.fill(n -> "fullmsgs.x", 1_000, new byte[16]);
            js.fill(n -> "fullbytes.x", 200, new byte[8_000]);
            js.fill(n -> "fullsubj.s" + n % 100, 1_000, new byte[16]);
            js.fill(n -> "sealed.x", 10, new byte[16]);
            String sealed = js.request("$JS.API.STREAM.UPDATE.SEALED",
                    "{\"name\":\"SEALED\",\"subjects\":[\"sealed.>\"],\"sealed\":true}");
            if (sealed.contains("\"error\"")) {
                throw new IOException("SEALED not sealed: " + sealed);
            }
        }
    }

    private static void discardNew(Target target, long deadline) throws Exception {
        long sent = 0;
        long errors = 0;
        byte[] small = new byte[16];
        byte[] large = new byte[16_000];
        String[] subjects = {"fullmsgs.x", "fullbytes.x", "fullsubj.s", "sealed.x"};
        try (JsClient js = JsClient.login(target, "alice")) {
            while (!Attack.over(deadline)) {
                for (int i = 0; i < AHEAD; i++, sent++) {
                    int which = (int) (sent % subjects.length);
                    js.publishAhead(subjects[which] + (which == 2 ? sent % 100 : ""),
                            sent % 7 == 0 ? "NATS/1.0\r\nNats-Msg-Id: d" + sent + "\r\n\r\n" : null,
                            which == 1 && sent % 2 == 0 ? large : small);
                }
                errors += js.awaitAnswers(AHEAD);
            }
            target.note(String.format(Locale.ROOT, "%,d publishes, %,d refused (every one should be)", sent, errors));
        }
    }

    private static String subjectsConfig(String name, int first, int count) {
        StringBuilder json = new StringBuilder(count * 16).append("{\"name\":\"").append(name)
                .append("\",\"subjects\":[");
        for (int i = 0; i < count; i++) {
            json.append(i == 0 ? "\"" : ",\"").append(name.toLowerCase(Locale.ROOT)).append('.').append(first + i)
                    .append('"');
        }
        return json.append("]}").toString();
    }

    private static void manySubjects(Target target, long deadline) throws Exception {
        int created = 0;
        long subjects = 0;
        String refusal = null;
        long slowest = 0;
        try (JsClient js = JsClient.login(target, "alice")) {
            // One stream of 60,000 subjects, then streams of 200 (updated to 200 others) until refused.
            for (int n = 0; !Attack.over(deadline) && n < 64; n++) {
                long start = System.nanoTime();
                String name = "SUBJ" + n;
                int count = n == 0 ? SUBJECTS : SMALL_LIST;
                String answer;
                try {
                    answer = js.request("$JS.API.STREAM.CREATE." + name, subjectsConfig(name, 0, count));
                    if (!answer.contains("\"error\"")) {
                        answer = js.request("$JS.API.STREAM.UPDATE." + name, subjectsConfig(name, count, count));
                    }
                } catch (IOException e) {
                    target.note(String.format(Locale.ROOT, "%d streams of %,d subjects in all created (slowest "
                            + "%.0f ms); the next create or update of %,d unanswered: %s", created, subjects,
                            slowest / 1e6, count, e));
                    throw e;
                }
                slowest = Math.max(slowest, System.nanoTime() - start);
                if (answer.contains("\"error\"")) {
                    refusal = String.format(Locale.ROOT, "%,d subjects refused: %s", count,
                            answer.substring(0, Math.min(200, answer.length())));
                    target.note(refusal);
                    if (n > 0) {
                        break;
                    }
                    continue;
                }
                created++;
                subjects += count;
                js.request("$JS.API.STREAM.LIST", "{\"subject\":\"subj1.123\"}");
            }
            long published = 0;
            long start = System.nanoTime();
            Wire wire = js.wire();
            while (!Attack.over(deadline)) {
                StringBuilder batch = new StringBuilder();
                for (int i = 0; i < 500; i++, published++) {
                    batch.append("PUB noise.").append(published % 100_000).append(" 2\r\nhi\r\n");
                }
                wire.send(batch.append("PING\r\n").toString());
                js.request("$JS.API.STREAM.INFO.SUBJ1", "");
            }
            target.note(String.format(Locale.ROOT, "%d streams of %,d subjects in all created (slowest create and "
                    + "update %.0f ms); then %,d core publishes to 100,000 subjects in %.1f s", created, subjects,
                    slowest / 1e6, published, (System.nanoTime() - start) / 1e9));
        }
    }
}
