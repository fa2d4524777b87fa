package io.ringbus.bench.hostile;

import java.io.IOException;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Attacks that fill the store: file streams up to the store's limit ({@link HostileConfig#STORE_MAX_BYTES}),
 * memory streams up to the memory limit ({@link HostileConfig#MEMORY_MAX_BYTES}). Past the store's
 * limit every stream's publishers are refused, by design, on both servers: the attack notes what a
 * publisher of another stream, a stream create and a purge see then, instead of the JetStream probe.
 */
final class StoreFillAttacks {
    /** A publish near max_payload. */
    private static final int LARGE = ProtocolAttacks.MAX_PAYLOAD - 1024;
    private static final int AHEAD = 8;

    private StoreFillAttacks() {
    }

    /** @return the attacks */
    static List<Attack> all() {
        return List.of(
                new Attack("store-full", "fills a file stream to the store's limit (256 MB) with 1 MB publishes, notes "
                        + "what another stream's publisher, a create and a purge get, purges and fills again",
                        Set.of("PUB", "$JS.API.STREAM.PURGE"), true, false, Attack.NOTHING, StoreFillAttacks::storeFull),
                Attack.jetStream("memory-full", "fills memory streams (storage: memory) with 1 MB publishes until "
                        + "refused (memory limit 64 MB), then 16 MB to a file stream", Set.of("PUB"), Attack.NOTHING,
                        StoreFillAttacks::memoryFull));
    }

    private static String streamConfig(String name, String storage) {
        return "{\"name\":\"" + name + "\",\"subjects\":[\"" + name.toLowerCase(Locale.ROOT) + ".>\"],\"storage\":\""
                + storage + "\"}";
    }

    /**
     * Publishes 1 MB messages until one is refused, {@code most} bytes are stored or the deadline passes.
     *
     * @return {bytes acknowledged, 1 when refused}, and the refusal in {@code refusal[0]}
     */
    private static long[] fill(JsClient js, String subject, long deadline, long most, String[] refusal)
            throws IOException {
        byte[] payload = new byte[LARGE];
        long stored = 0;
        while (!Attack.over(deadline) && stored < most) {
            for (int i = 0; i < AHEAD; i++) {
                js.publishAhead(subject, null, payload);
            }
            int errors = js.awaitAnswers(AHEAD);
            stored += (long) (AHEAD - errors) * LARGE;
            if (errors > 0) {
                refusal[0] = js.publish(subject, null, payload);
                return new long[] {stored, 1};
            }
        }
        return new long[] {stored, 0};
    }

    private static void storeFull(Target target, long deadline) throws Exception {
        try (JsClient js = JsClient.login(target, "alice")) {
            js.request("$JS.API.STREAM.CREATE.FILLS", streamConfig("FILLS", "file"));
            js.request("$JS.API.STREAM.CREATE.OTHER", streamConfig("OTHER", "file"));
            int cycles = 0;
            while (!Attack.over(deadline)) {
                String[] refusal = new String[1];
                long[] filled = fill(js, "fills.x", deadline, Long.MAX_VALUE, refusal);
                if (filled[1] == 0) {
                    target.note(String.format(Locale.ROOT, "%,d MB stored, never refused", filled[0] >> 20));
                    return;
                }
                if (cycles++ == 0) {
                    target.note(String.format(Locale.ROOT, "refused after %,d MB: %s", filled[0] >> 20, refusal[0]));
                    target.note("then another stream's publisher gets: " + js.publish("other.x", null, new byte[16]));
                    target.note("a stream create gets: " + js.request("$JS.API.STREAM.CREATE.NEWONE",
                            streamConfig("NEWONE", "file")));
                    String purged = js.request("$JS.API.STREAM.PURGE.FILLS", "");
                    target.note("a purge gets: " + purged + "; a publish then: " + js.publish("other.x", null,
                            new byte[16]));
                } else {
                    js.request("$JS.API.STREAM.PURGE.FILLS", "");
                }
            }
            target.note(cycles + " fill-and-purge cycles");
        }
    }

    private static void memoryFull(Target target, long deadline) throws Exception {
        try (JsClient js = JsClient.login(target, "alice")) {
            long total = 0;
            String[] refusal = new String[1];
            long memoryDeadline = deadline - 2_000_000_000L; // the last 2 s for the file stream
            for (int n = 0; n < 4 && refusal[0] == null && !Attack.over(memoryDeadline); n++) {
                String name = "MEMFILL" + n;
                String created = js.request("$JS.API.STREAM.CREATE." + name, streamConfig(name, "memory"));
                if (created.contains("\"error\"")) {
                    target.note("memory stream " + name + " refused: " + created);
                    break;
                }
                total += fill(js, name.toLowerCase(Locale.ROOT) + ".x", memoryDeadline, Long.MAX_VALUE, refusal)[0];
            }
            target.note(String.format(Locale.ROOT, "memory streams took %,d MB%s", total >> 20,
                    refusal[0] == null ? ", never refused" : ", then refused: " + refusal[0]));
            js.request("$JS.API.STREAM.CREATE.FILEFILL", streamConfig("FILEFILL", "file"));
            String[] fileRefusal = new String[1];
            long[] file = fill(js, "filefill.x", System.nanoTime() + 2_000_000_000L, 16L << 20, fileRefusal);
            target.note(String.format(Locale.ROOT, "a file stream then took %,d MB%s", file[0] >> 20,
                    fileRefusal[0] == null ? "" : ", refused: " + fileRefusal[0]));
        }
    }
}
