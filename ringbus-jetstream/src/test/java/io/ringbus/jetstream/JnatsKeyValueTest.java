package io.ringbus.jetstream;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.KeyValue;
import io.nats.client.KeyValueManagement;
import io.nats.client.Nats;
import io.nats.client.ObjectStore;
import io.nats.client.api.KeyValueConfiguration;
import io.nats.client.api.KeyValueEntry;
import io.nats.client.api.KeyValueOperation;
import io.nats.client.api.KeyValueWatcher;
import io.nats.client.api.ObjectInfo;
import io.nats.client.api.ObjectStoreConfiguration;
import io.nats.client.api.StorageType;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * jnats' own KeyValue and ObjectStore, unchanged, against ringbus-server and, as the reference,
 * nats-server 2.9.10 {@code -js}: the same calls, the same results. KV rides on roll-ups
 * ({@code Nats-Rollup} for purge), discard new, per-subject history and
 * {@code Nats-Expected-Last-Subject-Sequence} (create, update); the object store on a stream with two
 * subjects ({@code $O.<bucket>.C.>}, {@code $O.<bucket>.M.>}) and a roll-up per object's metadata.
 */
class JnatsKeyValueTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"ringbus", "nats-server"})
    void keyValueAsTheClientUsesIt(String server) throws Exception {
        withClient(server, nats -> {
            KeyValueManagement kvm = nats.keyValueManagement();
            kvm.create(KeyValueConfiguration.builder().name("profiles").maxHistoryPerKey(3)
                    .storageType(StorageType.File).build());
            KeyValue kv = nats.keyValue("profiles");

            long first = kv.put("alice", "v1".getBytes(StandardCharsets.UTF_8));
            long second = kv.put("alice", "v2".getBytes(StandardCharsets.UTF_8));
            assertThat(second).isGreaterThan(first);
            assertThat(kv.get("alice").getValueAsString()).isEqualTo("v2");
            assertThat(kv.get("alice").getRevision()).isEqualTo(second);
            assertThat(kv.get("nobody")).isNull();

            assertThatThrownBy(() -> kv.create("alice", new byte[] {1})).as("create of an existing key")
                    .isInstanceOf(JetStreamApiException.class).hasMessageContaining("10071");
            long bob = kv.create("bob", "b1".getBytes(StandardCharsets.UTF_8));
            assertThatThrownBy(() -> kv.update("bob", new byte[] {2}, bob + 100)).as("update at a wrong revision")
                    .isInstanceOf(JetStreamApiException.class).hasMessageContaining("wrong last sequence: " + bob);
            long bob2 = kv.update("bob", "b2".getBytes(StandardCharsets.UTF_8), bob);
            assertThat(kv.get("bob").getRevision()).isEqualTo(bob2);

            kv.put("alice", "v3".getBytes(StandardCharsets.UTF_8));
            kv.put("alice", "v4".getBytes(StandardCharsets.UTF_8));
            List<String> history = new ArrayList<>();
            for (KeyValueEntry entry : kv.history("alice")) {
                history.add(entry.getValueAsString());
            }
            assertThat(history).as("history keeps 3 per key").containsExactly("v2", "v3", "v4");

            kv.delete("bob");
            assertThat(kv.get("bob")).as("deleted").isNull();
            assertThat(kv.keys()).containsExactly("alice");
            long recreated = kv.create("bob", "again".getBytes(StandardCharsets.UTF_8));
            assertThat(kv.get("bob").getRevision()).as("create after delete").isEqualTo(recreated);

            kv.purge("alice");
            assertThat(kv.get("alice")).isNull();
            List<KeyValueOperation> aliceOps = new ArrayList<>();
            for (KeyValueEntry entry : kv.history("alice")) {
                aliceOps.add(entry.getOperation());
            }
            assertThat(aliceOps).as("a purge rolls the key up to its marker").containsExactly(KeyValueOperation.PURGE);

            List<String> seen = new ArrayList<>();
            CountDownLatch initial = new CountDownLatch(1);
            CountDownLatch update = new CountDownLatch(1);
            kv.watchAll(new KeyValueWatcher() {
                @Override
                public void watch(KeyValueEntry entry) {
                    synchronized (seen) {
                        seen.add(entry.getKey() + "=" + entry.getOperation()
                                + (entry.getValue() == null ? "" : ":" + entry.getValueAsString()));
                    }
                    if (entry.getKey().equals("carol")) {
                        update.countDown();
                    }
                }

                @Override
                public void endOfData() {
                    initial.countDown();
                }
            });
            assertThat(initial.await(10, TimeUnit.SECONDS)).isTrue();
            kv.put("carol", "c1".getBytes(StandardCharsets.UTF_8));
            assertThat(update.await(10, TimeUnit.SECONDS)).isTrue();
            synchronized (seen) {
                // Each key's latest, in stream order: bob was created again before alice's purge.
                assertThat(seen).containsExactly("bob=PUT:again", "alice=PURGE", "carol=PUT:c1");
            }
            assertThat(kvm.getStatus("profiles").getEntryCount()).isEqualTo(kvm.getStatus("profiles")
                    .getBackingStreamInfo().getStreamState().getMsgCount());
            kvm.delete("profiles");
            assertThat(kvm.getBucketNames()).isEmpty();
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"ringbus", "nats-server"})
    void objectStorePutsAndGetsChunkedObjects(String server) throws Exception {
        withClient(server, nats -> {
            nats.objectStoreManagement().create(ObjectStoreConfiguration.builder("files")
                    .storageType(StorageType.File).build());
            ObjectStore files = nats.objectStore("files");
            byte[] big = new byte[300 * 1024 + 17]; // 3 chunks of jnats' 128 KiB and a tail
            new Random(7).nextBytes(big);
            ObjectInfo put = files.put("big.bin", new ByteArrayInputStream(big));
            assertThat(put.getChunks()).isEqualTo(3);
            files.put("small.txt", new ByteArrayInputStream("hello".getBytes(StandardCharsets.UTF_8)));

            ByteArrayOutputStream out = new ByteArrayOutputStream();
            files.get("big.bin", out);
            assertThat(out.toByteArray()).isEqualTo(big);
            assertThat(files.getList()).extracting(ObjectInfo::getObjectName)
                    .containsExactlyInAnyOrder("big.bin", "small.txt");

            byte[] replaced = "replaced".getBytes(StandardCharsets.UTF_8);
            files.put("big.bin", new ByteArrayInputStream(replaced));
            out.reset();
            files.get("big.bin", out);
            assertThat(out.toByteArray()).isEqualTo(replaced);

            files.delete("small.txt");
            assertThat(files.getList()).extracting(ObjectInfo::getObjectName).containsExactly("big.bin");
            io.nats.client.api.StreamState state = files.getStatus().getBackingStreamInfo().getStreamState();
            // As nats-server counts them: 9 published, the replaced object's chunks and the deleted
            // object's chunk purged by roll-ups and jnats' purges; 4 subjects still hold a message.
            assertThat(state.getLastSequence()).isEqualTo(9);
            assertThat(state.getMsgCount()).isEqualTo(6);
            assertThat(state.getDeletedCount()).isEqualTo(3);
            assertThat(state.getSubjectCount()).isEqualTo(4);
        });
    }

    /** What a test does with its connection. */
    private interface ClientWork {
        void run(Connection nats) throws Exception;
    }

    private void withClient(String server, ClientWork work) throws Exception {
        try (AutoCloseable running = BothServers.start(server, dir)) {
            Connection nats = Nats.connect(BothServers.url(running));
            try {
                work.run(nats);
            } finally {
                nats.close();
            }
        }
    }
}
