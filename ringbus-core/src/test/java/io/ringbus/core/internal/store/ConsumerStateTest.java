package io.ringbus.core.internal.store;

import io.ringbus.core.ConsumerConfig;
import io.ringbus.core.FsyncPolicy;
import io.ringbus.core.Storage;
import io.ringbus.core.StoredMessage;
import io.ringbus.core.StoredStream;
import io.ringbus.core.StreamConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class ConsumerStateTest {
    @Test
    void acknowledgedDeliveriesLeaveTheAckDeadlinesAtOnce(@TempDir Path dir) throws Exception {
        try (Storage storage = Storage.local(dir, FsyncPolicy.OS, Duration.ofMillis(100))) {
            StoredStream stream = storage.stream(StreamConfig.of("orders.>"));
            for (int i = 0; i < 50; i++) {
                stream.append("orders.eu", null, new byte[] {(byte) i}, null).join();
            }
            LocalConsumer consumer = (LocalConsumer) stream.consumer(ConsumerConfig.of("c", "orders.>"));
            List<StoredMessage> first = consumer.fetch(30, Duration.ofSeconds(1));
            Thread.sleep(2); // the second batch's ack deadline is later than the first's
            List<StoredMessage> rest = consumer.fetch(30, Duration.ofSeconds(1));
            assertThat(first).hasSize(30);
            assertThat(rest).hasSize(20);
            assertThat(consumer.state().deadlinesHeld()).isEqualTo(50);

            first.forEach(consumer::ack);
            assertThat(consumer.state().deadlinesHeld()).as("the first batch, acknowledged").isEqualTo(20);
            rest.forEach(consumer::ack);
            assertThat(consumer.state().deadlinesHeld()).isZero();
            assertThat(consumer.stats().ackFloor()).isEqualTo(50);
            consumer.close();
        }
    }
}
