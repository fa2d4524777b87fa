package io.ringbus.jetstream;

import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.PurgeOptions;
import io.nats.client.api.MessageInfo;
import io.nats.client.api.PurgeResponse;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.nats.client.api.StreamInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * jnats' own purge, deleteMessage and getMessage (direct get on a stream that allows it), unchanged,
 * against ringbus-server; what was removed stays removed after a restart on the same store.
 */
class JnatsStreamMessagesTest {
    @TempDir
    Path store;

    @Test
    void purgesDeletesAndReadsDirectlyAndRemovalsSurviveARestart() throws Exception {
        try (JetStreamServer server = JetStreamServer.start(store)) {
            Connection nats = Nats.connect(server.url());
            try {
                JetStreamManagement jsm = nats.jetStreamManagement();
                jsm.addStream(StreamConfiguration.builder().name("KV").subjects("kv.>").storageType(StorageType.File)
                        .allowDirect(true).build());
                jsm.addStream(StreamConfiguration.builder().name("LOCKED").subjects("locked")
                        .storageType(StorageType.File).denyDelete(true).denyPurge(true).build());
                JetStream js = nats.jetStream();
                for (String subject : new String[] {"kv.a", "kv.b", "kv.a", "kv.c", "kv.a", "kv.b"}) {
                    js.publish(subject, subject.getBytes(StandardCharsets.UTF_8));
                }
                js.publish("locked", new byte[] {1});

                MessageInfo direct = jsm.getMessage("KV", 2); // jnats asks DIRECT.GET: allow_direct is set
                assertThat(direct.getSubject()).isEqualTo("kv.b");
                assertThat(direct.getSeq()).isEqualTo(2);
                assertThat(jsm.getLastMessage("KV", "kv.a").getSeq()).isEqualTo(5);

                assertThat(jsm.deleteMessage("KV", 5)).isTrue(); // erase
                assertThat(jsm.getLastMessage("KV", "kv.a").getSeq()).as("the one before").isEqualTo(3);
                assertThat(jsm.deleteMessage("KV", 1, false)).isTrue(); // no_erase
                assertThatThrownBy(() -> jsm.deleteMessage("KV", 1)).isInstanceOf(JetStreamApiException.class)
                        .hasMessageContaining("10043");
                assertThatThrownBy(() -> jsm.getMessage("KV", 5)).isInstanceOf(JetStreamApiException.class);
                StreamInfo info = jsm.getStreamInfo("KV");
                assertThat(info.getStreamState().getMsgCount()).isEqualTo(4);
                assertThat(info.getStreamState().getDeletedCount()).isEqualTo(1);
                assertThat(info.getStreamState().getSubjectCount()).isEqualTo(3);

                PurgeResponse byFilter = jsm.purgeStream("KV", PurgeOptions.builder().subject("kv.b").keep(1).build());
                assertThat(byFilter.getPurged()).isEqualTo(1);
                assertThatThrownBy(() -> jsm.getMessage("KV", 2)).isInstanceOf(JetStreamApiException.class);

                assertThatThrownBy(() -> jsm.deleteMessage("LOCKED", 1)).isInstanceOf(JetStreamApiException.class)
                        .hasMessageContaining("message delete not permitted");
                assertThatThrownBy(() -> jsm.purgeStream("LOCKED")).isInstanceOf(JetStreamApiException.class)
                        .hasMessageContaining("stream purge not permitted");
            } finally {
                nats.close();
            }
        }
        try (JetStreamServer restarted = JetStreamServer.start(store)) {
            Connection nats = Nats.connect(restarted.url());
            try {
                JetStreamManagement jsm = nats.jetStreamManagement();
                assertThatThrownBy(() -> jsm.getMessage("KV", 5)).as("deleted before the restart")
                        .isInstanceOf(JetStreamApiException.class);
                assertThatThrownBy(() -> jsm.getMessage("KV", 2)).as("purged before the restart")
                        .isInstanceOf(JetStreamApiException.class);
                assertThat(jsm.getLastMessage("KV", "kv.a").getSeq()).isEqualTo(3);
                assertThat(jsm.getStreamInfo("KV").getStreamState().getMsgCount()).isEqualTo(3);
                assertThat(jsm.purgeStream("KV").getPurged()).isEqualTo(3);
                assertThat(nats.jetStream().publish("kv.z", new byte[] {1}).getSeqno()).isEqualTo(7);
                assertThat(jsm.getStreamInfo("KV").getStreamState().getFirstSequence()).isEqualTo(7);
            } finally {
                nats.close();
            }
        }
    }
}
