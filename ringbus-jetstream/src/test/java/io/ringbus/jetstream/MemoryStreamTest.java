package io.ringbus.jetstream;

import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.KeyValue;
import io.nats.client.Nats;
import io.nats.client.api.KeyValueConfiguration;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.nats.client.api.StreamInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code storage: memory} through jnats: a memory stream and a memory KV bucket serve as file ones
 * do, count as memory in the account's figures, and after a restart keep their configuration and
 * none of their messages, as nats-server's memory streams.
 */
@SuppressWarnings("try") // jnats' Connection.close() may throw InterruptedException
class MemoryStreamTest {
    @TempDir
    Path store;

    @Test
    void aMemoryStreamServesUntilARestartThenStartsEmpty() throws Exception {
        try (JetStreamServer server = JetStreamServer.start(store); Connection nats = Nats.connect(server.url())) {
            JetStreamManagement jsm = nats.jetStreamManagement();
            jsm.addStream(StreamConfiguration.builder().name("CACHE").subjects("cache.>")
                    .storageType(StorageType.Memory).build());
            nats.keyValueManagement().create(KeyValueConfiguration.builder().name("sessions")
                    .storageType(StorageType.Memory).build());
            for (int i = 0; i < 3; i++) {
                nats.jetStream().publish("cache.x", new byte[100]);
            }
            KeyValue kv = nats.keyValue("sessions");
            kv.put("alice", "on".getBytes(StandardCharsets.UTF_8));
            assertThat(kv.get("alice").getValueAsString()).isEqualTo("on");
            StreamInfo info = jsm.getStreamInfo("CACHE");
            assertThat(info.getConfiguration().getStorageType()).isEqualTo(StorageType.Memory);
            assertThat(info.getStreamState().getMsgCount()).isEqualTo(3);
            assertThat(jsm.getAccountStatistics().getMemory()).as("counted as memory").isPositive();
        }
        try (JetStreamServer restarted = JetStreamServer.start(store); Connection nats = Nats.connect(restarted.url())) {
            JetStreamManagement jsm = nats.jetStreamManagement();
            StreamInfo info = jsm.getStreamInfo("CACHE");
            assertThat(info.getConfiguration().getStorageType()).as("the configuration stays")
                    .isEqualTo(StorageType.Memory);
            assertThat(info.getStreamState().getMsgCount()).as("the messages do not").isZero();
            assertThat(nats.keyValue("sessions").get("alice")).isNull();
            assertThat(nats.jetStream().publish("cache.x", new byte[1]).getSeqno()).isEqualTo(1);
        }
    }
}
