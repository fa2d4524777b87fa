package io.ringbus.jetstream;

import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.api.MessageInfo;
import io.nats.client.api.PublishAck;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.nats.client.api.StreamInfo;
import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsMessage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * jnats' own JetStream management and publishing, unchanged, against ringbus-server: streams
 * created, updated, read, listed and deleted; messages published with PubAcks and read back; the
 * configuration and messages kept across a restart of the server on the same store.
 */
class JnatsJetStreamManagementTest {
    @TempDir
    Path store;

    @Test
    void managesStreamsAndReadsWhatJetStreamPublished() throws Exception {
        try (JetStreamServer server = JetStreamServer.start(store)) {
            Connection nats = Nats.connect(server.url());
            try {
                JetStreamManagement jsm = nats.jetStreamManagement();
                StreamInfo created = jsm.addStream(StreamConfiguration.builder().name("ORDERS").subjects("orders.>")
                        .storageType(StorageType.File).maxMessagesPerSubject(2).build());
                assertThat(created.getConfiguration().getSubjects()).containsExactly("orders.>");
                assertThat(created.getStreamState().getMsgCount()).isZero();

                JetStream js = nats.jetStream();
                PublishAck first = js.publish("orders.new", "one".getBytes(StandardCharsets.UTF_8));
                assertThat(first.getStream()).isEqualTo("ORDERS");
                assertThat(first.getSeqno()).isEqualTo(1);
                Headers headers = new Headers().add("Nats-Msg-Id", "m-2").add("k", "v");
                PublishAck second = js.publish(NatsMessage.builder().subject("orders.new").headers(headers)
                        .data("two".getBytes(StandardCharsets.UTF_8)).build());
                PublishAck again = js.publish(NatsMessage.builder().subject("orders.new").headers(headers)
                        .data("two".getBytes(StandardCharsets.UTF_8)).build());
                assertThat(again.isDuplicate()).isTrue();
                assertThat(again.getSeqno()).isEqualTo(second.getSeqno());
                js.publish("orders.paid", "three".getBytes(StandardCharsets.UTF_8));

                MessageInfo bySeq = jsm.getMessage("ORDERS", 1);
                assertThat(new String(bySeq.getData(), StandardCharsets.UTF_8)).isEqualTo("one");
                assertThat(bySeq.getSubject()).isEqualTo("orders.new");
                MessageInfo last = jsm.getLastMessage("ORDERS", "orders.new");
                assertThat(last.getSeq()).isEqualTo(2);
                assertThat(last.getHeaders().getFirst("k")).isEqualTo("v");

                StreamInfo updated = jsm.updateStream(StreamConfiguration.builder(created.getConfiguration())
                        .maxMessages(1_000).build());
                assertThat(updated.getConfiguration().getMaxMsgs()).isEqualTo(1_000);
                assertThat(jsm.getStreamInfo("ORDERS").getStreamState().getMsgCount()).isEqualTo(3);
                assertThat(jsm.getStreamNames()).containsExactly("ORDERS");
                assertThat(jsm.getStreams()).hasSize(1);

                assertThatThrownBy(() -> jsm.addStream(StreamConfiguration.builder().name("NOACK").subjects("noack")
                        .storageType(StorageType.File).noAck(true).build())).isInstanceOf(JetStreamApiException.class)
                        .hasMessageContaining("no_ack=true");
            } finally {
                nats.close();
            }
        }
        try (JetStreamServer restarted = JetStreamServer.start(store)) {
            Connection nats = Nats.connect(restarted.url());
            try {
                JetStreamManagement jsm = nats.jetStreamManagement();
                StreamInfo info = jsm.getStreamInfo("ORDERS");
                assertThat(info.getConfiguration().getMaxMsgs()).isEqualTo(1_000);
                assertThat(info.getConfiguration().getMaxMsgsPerSubject()).isEqualTo(2);
                assertThat(info.getStreamState().getLastSequence()).isEqualTo(3);
                assertThat(nats.jetStream().publish("orders.x", new byte[] {1}).getSeqno()).isEqualTo(4);
                assertThat(jsm.deleteStream("ORDERS")).isTrue();
                assertThat(jsm.getStreamNames()).isEmpty();
                assertThatThrownBy(() -> jsm.getStreamInfo("ORDERS")).isInstanceOf(JetStreamApiException.class)
                        .hasMessageContaining("10059");
            } finally {
                nats.close();
            }
        }
        try (JetStreamServer again = JetStreamServer.start(store)) {
            Connection nats = Nats.connect(again.url());
            try {
                assertThat(nats.jetStreamManagement().getStreamNames()).as("deleted stays deleted").isEmpty();
            } finally {
                nats.close();
            }
        }
    }
}
