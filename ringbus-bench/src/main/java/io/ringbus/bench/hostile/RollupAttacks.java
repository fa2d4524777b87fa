package io.ringbus.bench.hostile;

import java.io.IOException;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Attacks with {@code Nats-Rollup} (each roll-up purges under the stream's append lock): floods
 * of subject and stream roll-ups on streams already holding many messages, and the object store's
 * own pattern (meta roll-ups and filtered purges beside a large object's chunks). Both servers get
 * the same bytes; a JetStream user of another stream is measured meanwhile.
 */
final class RollupAttacks {
    /** Messages the roll-up streams hold before the flood. */
    static final int FILL = 200_000;
    /** The object's chunks, as the clients cut them (128 KiB). */
    static final int CHUNK = 128 * 1024;
    /** Chunks of the large object: 40 MiB. */
    static final int CHUNKS = 320;
    private static final String SUB = "NATS/1.0\r\nNats-Rollup: sub\r\n\r\n";
    private static final String ALL = "NATS/1.0\r\nNats-Rollup: all\r\n\r\n";
    /** Small objects put and deleted at most (their chunks' bytes: 50 MiB, under the store's limit). */
    private static final int SMALL_OBJECTS = 100;
    /** Roll-ups sent ahead of their PubAcks. */
    private static final int AHEAD = 16;

    private RollupAttacks() {
    }

    /** @return the attacks */
    static List<Attack> all() {
        return List.of(
                Attack.jetStream("rollup-sub", "on a stream of 200,000 messages, a flood of publishes with "
                        + "Nats-Rollup: sub to 64 subjects (each purges its subject's older messages)", Set.of("HPUB"),
                        RollupAttacks::fillRoll, RollupAttacks::rollupSub),
                Attack.jetStream("rollup-all", "on a stream of 200,000 messages, publishes of which one in 16 has "
                        + "Nats-Rollup: all (each purges the stream)", Set.of("HPUB"), RollupAttacks::fillRollAll,
                        RollupAttacks::rollupAll),
                Attack.jetStream("object-store", "an object store bucket with a 40 MB object (320 chunks): its meta "
                        + "replaced (Nats-Rollup: sub) in a loop, 100 small objects put and deleted (filtered purges)",
                        Set.of("HPUB", "$JS.API.STREAM.PURGE"), RollupAttacks::bigObject, RollupAttacks::objectChurn));
    }

    private static void create(JsClient js, String name, String config) throws IOException {
        String answer = js.request("$JS.API.STREAM.CREATE." + name, config);
        if (answer.contains("\"error\"")) {
            throw new IOException("stream " + name + " not created: " + answer);
        }
    }

    private static void fillRoll(Target target, long deadline) throws Exception {
        try (JsClient js = JsClient.login(target, "alice")) {
            create(js, "ROLL", "{\"name\":\"ROLL\",\"subjects\":[\"roll.>\"],\"allow_rollup_hdrs\":true}");
            long stored = js.fill(n -> "roll.fill." + n % 20_000, FILL, new byte[128]);
            target.note("ROLL filled with " + stored + " messages of 128 B");
        }
    }

    private static void fillRollAll(Target target, long deadline) throws Exception {
        try (JsClient js = JsClient.login(target, "alice")) {
            create(js, "ROLLALL", "{\"name\":\"ROLLALL\",\"subjects\":[\"rollall.>\"],\"allow_rollup_hdrs\":true}");
            js.fill(n -> "rollall.fill." + n % 20_000, FILL, new byte[128]);
        }
    }

    private static void rollupSub(Target target, long deadline) throws Exception {
        rollups(target, deadline, "ROLL", i -> "roll.key." + i % 64, i -> SUB);
    }

    private static void rollupAll(Target target, long deadline) throws Exception {
        rollups(target, deadline, "ROLLALL", i -> "rollall.key." + i % 64, i -> i % 16 == 15 ? ALL : null);
    }

    private static void rollups(Target target, long deadline, String stream, java.util.function.LongFunction<String> subject,
                                java.util.function.LongFunction<String> headers) throws Exception {
        long start = System.nanoTime();
        long sent = 0;
        long errors = 0;
        byte[] payload = new byte[64];
        try (JsClient js = JsClient.login(target, "alice")) {
            while (!Attack.over(deadline)) {
                for (int i = 0; i < AHEAD; i++, sent++) {
                    js.publishAhead(subject.apply(sent), headers.apply(sent), payload);
                }
                errors += js.awaitAnswers(AHEAD);
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            String info = js.request("$JS.API.STREAM.INFO." + stream, "");
            target.note(String.format(Locale.ROOT, "%,d publishes acknowledged in %.1f s (%,.0f/s), %d errors; %s "
                    + "holds %,d messages", sent, seconds, sent / seconds, errors, stream, JsClient.number(info, "messages")));
        }
    }

    private static String objectStream() {
        return "{\"name\":\"OBJ_hostile\",\"subjects\":[\"$O.hostile.C.>\",\"$O.hostile.M.>\"],\"storage\":\"file\","
                + "\"discard\":\"new\",\"allow_rollup_hdrs\":true,\"allow_direct\":true}";
    }

    private static String meta(String name, String nuid, long size, int chunks, boolean deleted) {
        return "{\"name\":\"" + name + "\",\"bucket\":\"hostile\",\"nuid\":\"" + nuid + "\",\"size\":" + size
                + ",\"chunks\":" + chunks + ",\"digest\":\"SHA-256=47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU=\""
                + (deleted ? ",\"deleted\":true" : "") + "}";
    }

    private static String metaSubject(String name) {
        return "$O.hostile.M." + Base64.getUrlEncoder().encodeToString(name.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    private static void bigObject(Target target, long deadline) throws Exception {
        try (JsClient js = JsClient.login(target, "alice")) {
            create(js, "OBJ_hostile", objectStream());
            String nuid = "BIGOBJECTNUID000000000";
            long stored = js.fill(n -> "$O.hostile.C." + nuid, CHUNKS, new byte[CHUNK]);
            String ack = js.publish(metaSubject("big"), SUB,
                    JsClient.ascii(meta("big", nuid, (long) CHUNKS * CHUNK, CHUNKS, false)));
            if (stored != CHUNKS || ack.contains("\"error\"")) {
                throw new IOException("object not put: " + stored + " chunks, meta " + ack);
            }
        }
    }

    private static void objectChurn(Target target, long deadline) throws Exception {
        long start = System.nanoTime();
        long metas = 0;
        long objects = 0;
        long errors = 0;
        try (JsClient js = JsClient.login(target, "alice")) {
            byte[] bigMeta = JsClient.ascii(meta("big", "BIGOBJECTNUID000000000", (long) CHUNKS * CHUNK, CHUNKS, false));
            byte[] chunk = new byte[CHUNK];
            while (!Attack.over(deadline)) {
                for (int i = 0; i < 8; i++, metas++) {
                    js.publishAhead(metaSubject("big"), SUB, bigMeta);
                }
                errors += js.awaitAnswers(8);
                if (objects >= SMALL_OBJECTS) {
                    continue;
                }
                String name = "small" + objects;
                String nuid = String.format(Locale.ROOT, "SMALL%017d", objects++);
                for (int c = 0; c < 4; c++) {
                    js.publishAhead("$O.hostile.C." + nuid, null, chunk);
                }
                js.publishAhead(metaSubject(name), SUB, JsClient.ascii(meta(name, nuid, 4L * CHUNK, 4, false)));
                js.publishAhead(metaSubject(name), SUB, JsClient.ascii(meta(name, nuid, 0, 0, true)));
                errors += js.awaitAnswers(6);
                String purged = js.request("$JS.API.STREAM.PURGE.OBJ_hostile", "{\"filter\":\"$O.hostile.C." + nuid + "\"}");
                if (purged.contains("\"error\"")) {
                    errors++;
                }
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            target.note(String.format(Locale.ROOT, "%,d meta roll-ups and %,d small objects put and deleted in %.1f s "
                    + "(%,.0f roll-ups/s), %d errors", metas, objects, seconds, (metas + 2 * objects) / seconds, errors));
        }
    }
}
