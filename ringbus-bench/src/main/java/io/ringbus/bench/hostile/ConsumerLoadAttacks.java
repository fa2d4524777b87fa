package io.ringbus.bench.hostile;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Attacks through many consumers: an interest stream with hundreds of filtered consumers that
 * never acknowledge under a publish flood, {@code /jsz?consumers=true} and consumer lists over
 * hundreds of filtered consumers of a large stream, and {@code headers_only} pulls of 1 MB
 * messages. Both servers get the same bytes; a JetStream user of another stream is measured.
 */
final class ConsumerLoadAttacks {
    /** Filtered consumers the attacks create. */
    static final int CONSUMERS = 500;
    /** Messages of the stream /jsz's consumers read. */
    static final int JSZ_MESSAGES = 50_000;
    private static final int AHEAD = 64;

    private ConsumerLoadAttacks() {
    }

    /** @return the attacks */
    static List<Attack> all() {
        return List.of(
                Attack.jetStream("interest-consumers", "an interest stream with 500 filtered durable consumers that never"
                        + " acknowledge, flooded with publishes while their infos are asked", Set.of("PUB",
                        "$JS.API.CONSUMER.INFO"), ConsumerLoadAttacks::interestConsumers, ConsumerLoadAttacks::interestFlood),
                Attack.jetStream("jsz-consumers", "500 filtered consumers on a stream of 50,000 messages: /jsz?consumers"
                        + "=true&config=true, consumer lists and filtered ephemerals created in a loop",
                        Set.of("GET /jsz", "$JS.API.CONSUMER.LIST", "$JS.API.CONSUMER.CREATE"),
                        ConsumerLoadAttacks::jszConsumers, ConsumerLoadAttacks::jszFlood),
                Attack.jetStream("headers-only", "headers_only consumers created in a loop, each pulling 100 messages of"
                        + " 1 MB", Set.of("$JS.API.CONSUMER.MSG.NEXT"), ConsumerLoadAttacks::largeMessages,
                        ConsumerLoadAttacks::headersOnly));
    }

    private static void request(JsClient js, String subject, String body) throws IOException {
        String answer = js.request(subject, body);
        if (answer.contains("\"error\"")) {
            throw new IOException(subject + ": " + answer);
        }
    }

    private static void consumers(JsClient js, String stream, String prefix) throws IOException {
        for (int k = 0; k < CONSUMERS; k++) {
            request(js, "$JS.API.CONSUMER.DURABLE.CREATE." + stream + ".c" + k, "{\"stream_name\":\"" + stream
                    + "\",\"config\":{\"durable_name\":\"c" + k + "\",\"ack_policy\":\"explicit\",\"filter_subject\":\""
                    + prefix + "." + k % 50 + "\"}}");
        }
    }

    private static void interestConsumers(Target target, long deadline) throws Exception {
        try (JsClient js = JsClient.login(target, "alice")) {
            request(js, "$JS.API.STREAM.CREATE.INTEREST",
                    "{\"name\":\"INTEREST\",\"subjects\":[\"interest.>\"],\"retention\":\"interest\"}");
            consumers(js, "INTEREST", "interest");
        }
    }

    private static void interestFlood(Target target, long deadline) throws Exception {
        long sent = 0;
        long errors = 0;
        long start = System.nanoTime();
        byte[] payload = new byte[256];
        try (JsClient js = JsClient.login(target, "alice")) {
            while (!Attack.over(deadline)) {
                for (int i = 0; i < AHEAD; i++, sent++) {
                    js.publishAhead("interest." + sent % 50, null, payload);
                }
                errors += js.awaitAnswers(AHEAD);
                js.request("$JS.API.CONSUMER.INFO.INTEREST.c" + sent % CONSUMERS, "");
            }
            String info = js.request("$JS.API.STREAM.INFO.INTEREST", "");
            target.note(String.format(Locale.ROOT, "%,d publishes in %.1f s, %d errors; INTEREST holds %,d messages",
                    sent, (System.nanoTime() - start) / 1e9, errors, JsClient.number(info, "messages")));
        }
    }

    private static void jszConsumers(Target target, long deadline) throws Exception {
        try (JsClient js = JsClient.login(target, "alice")) {
            request(js, "$JS.API.STREAM.CREATE.JSZ", "{\"name\":\"JSZ\",\"subjects\":[\"jsz.>\"]}");
            js.fill(n -> "jsz." + n % 50, JSZ_MESSAGES, new byte[128]);
            long start = System.nanoTime();
            consumers(js, "JSZ", "jsz");
            target.note(String.format(Locale.ROOT, "%d filtered consumers created on %,d messages in %.1f s", CONSUMERS,
                    JSZ_MESSAGES, (System.nanoTime() - start) / 1e9));
        }
    }

    private static void jszFlood(Target target, long deadline) throws Exception {
        AtomicLong pages = new AtomicLong();
        AtomicLong slowest = new AtomicLong();
        AtomicLong largest = new AtomicLong();
        Thread monitor = Thread.ofPlatform().name("hostile-jsz").start(() -> {
            while (!Attack.over(deadline)) {
                long start = System.nanoTime();
                try {
                    HttpResponse<String> page = target.monitorBody("/jsz?consumers=true&config=true&limit=1000000");
                    largest.accumulateAndGet(page.body().length(), Math::max);
                    pages.incrementAndGet();
                } catch (IOException e) {
                    target.note("/jsz failed: " + e);
                } catch (InterruptedException e) {
                    return;
                }
                slowest.accumulateAndGet(System.nanoTime() - start, Math::max);
            }
        });
        long created = 0;
        long lists = 0;
        try (JsClient js = JsClient.login(target, "alice")) {
            while (!Attack.over(deadline)) {
                js.request("$JS.API.CONSUMER.LIST.JSZ", "{\"offset\":" + (lists++ % 2) * 256 + "}");
                String answer = js.request("$JS.API.CONSUMER.CREATE.JSZ", "{\"stream_name\":\"JSZ\",\"config\":{"
                        + "\"ack_policy\":\"none\",\"filter_subject\":\"jsz." + created % 50 + "\"}}");
                String name = JsClient.text(answer, "name");
                if (name != null) {
                    created++;
                    js.request("$JS.API.CONSUMER.DELETE.JSZ." + name, "");
                }
            }
        } finally {
            monitor.join();
        }
        target.note(String.format(Locale.ROOT, "%d /jsz pages (largest %,d B, slowest %.0f ms), %d consumer lists, %d "
                + "filtered ephemerals created and deleted", pages.get(), largest.get(), slowest.get() / 1e6, lists,
                created));
    }

    private static void largeMessages(Target target, long deadline) throws Exception {
        try (JsClient js = JsClient.login(target, "alice")) {
            request(js, "$JS.API.STREAM.CREATE.HO", "{\"name\":\"HO\",\"subjects\":[\"ho.>\"]}");
            js.fill(n -> "ho.big", 100, new byte[ProtocolAttacks.MAX_PAYLOAD - 1024]);
        }
    }

    private static void headersOnly(Target target, long deadline) throws Exception {
        long consumers = 0;
        long delivered = 0;
        long bytes = 0;
        try (JsClient js = JsClient.login(target, "alice")) {
            while (!Attack.over(deadline)) {
                String answer = js.request("$JS.API.CONSUMER.CREATE.HO", "{\"stream_name\":\"HO\",\"config\":{"
                        + "\"ack_policy\":\"none\",\"headers_only\":true,\"max_batch\":100}}");
                String name = JsClient.text(answer, "name");
                if (name == null) {
                    throw new IOException("headers_only consumer not created: " + answer);
                }
                consumers++;
                long[] pulled = js.pullBatch("HO", name, 100, 2_000_000_000L);
                delivered += pulled[0];
                bytes += pulled[1];
                js.request("$JS.API.CONSUMER.DELETE.HO." + name, "");
            }
        }
        target.note(String.format(Locale.ROOT, "%d headers_only consumers, %,d deliveries of %,d B in all", consumers,
                delivered, bytes));
    }
}
