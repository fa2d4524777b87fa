package io.ringbus.jetstream;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@link JetStreamClientContractTest} cases with nats.go 1.22 (Debian's
 * golang-github-nats-io-go-nats-dev: its JetStream, KV and object-store APIs):
 * {@code src/test/go/jscontract}, built by {@link GoProgram} in GOPATH mode, nothing downloaded.
 * Besides every client's cases and the object store's, the KV behaviours that are nats.go's own
 * ({@link #GO_KV_CASES}).
 *
 * <p>Skipped only when go or nats.go's sources are missing (bin/test installs both).
 */
class GoJetStreamContractTest extends JetStreamClientContractTest {
    /**
     * What nats.go's KV does on top of the stream API: {@code Create} after a delete or purge
     * (it reads the marker and creates again with the marker's revision expected),
     * {@code PurgeDeletes} (a watch for markers, then a purge per key keeping recent markers),
     * {@code Keys} and {@code MetaOnly} watchers (a headers_only consumer, {@code Nats-Msg-Size}),
     * a watcher with {@code IgnoreDeletes}, and {@code Status} with binding a bucket by name and
     * listing buckets ({@code KeyValueStoreNames}: a stream list filtered on {@code $KV.*.>}).
     */
    static final List<String> GO_KV_CASES = List.of("kv_create_after_delete", "kv_purge_deletes",
            "kv_keys_meta_only", "kv_watch_ignore_deletes", "kv_status");

    private Path binary;

    @Override
    void buildProgram() throws Exception {
        binary = GoProgram.build("jscontract");
    }

    @Override
    List<String> command(String url) {
        return List.of(binary.toString(), url);
    }

    @Override
    List<String> cases() {
        List<String> cases = new ArrayList<>(CASES);
        cases.addAll(OBJECT_STORE_CASES);
        cases.addAll(GO_KV_CASES);
        return cases;
    }
}
