package io.ringbus.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import io.nats.client.impl.NatsMessage;
import io.ringbus.core.Headers;
import io.ringbus.core.Message;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** What an inbox reads of each transport's message: the headers the outbox's sinks set. */
class InboxMessageTest {
    private static final byte[] PAYLOAD = "{}".getBytes(StandardCharsets.UTF_8);

    @Test
    void readsTheEventIdAndKeyABrokerSinkSets() {
        OutboxEvent event = new OutboxEvent(7, "svc-7", "orders.created", "o-1", PAYLOAD, Headers.EMPTY, 0,
                java.time.Instant.now());
        InboxMessage message = InboxMessage.of(Message.of("orders.created", null, event.headersWithEventId(), PAYLOAD));

        assertThat(message.eventId()).isEqualTo("svc-7");
        assertThat(message.key()).isEqualTo("o-1");
        assertThat(message.subject()).isEqualTo("orders.created");
        assertThat(message.refusal()).isNull();
        assertThat(InboxMessage.of(Message.of("s", null, null, "text")).payload())
                .isEqualTo("text".getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void readsRingbusEventIdFirstThenNatsMsgIdFromANatsMessage() {
        io.nats.client.impl.Headers both = new io.nats.client.impl.Headers()
                .put(OutboxEvent.EVENT_ID_HEADER, "svc-7").put("Nats-Msg-Id", "other").put(OutboxEvent.KEY_HEADER, "o-1");
        InboxMessage fromOutbox = InboxMessage.of(NatsMessage.builder().subject("s").headers(both).data(PAYLOAD).build());
        assertThat(fromOutbox.eventId()).isEqualTo("svc-7");
        assertThat(fromOutbox.key()).isEqualTo("o-1");

        io.nats.client.impl.Headers msgIdOnly = new io.nats.client.impl.Headers().put("Nats-Msg-Id", "m-1");
        assertThat(InboxMessage.of(NatsMessage.builder().subject("s").headers(msgIdOnly).data(PAYLOAD).build())
                .eventId()).isEqualTo("m-1");
    }

    @Test
    void aMessageWithoutHeadersHasNoEventIdAndIsRefused() {
        InboxMessage bare = InboxMessage.of(NatsMessage.builder().subject("s").data(PAYLOAD).build());
        assertThat(bare.eventId()).isNull();
        assertThat(bare.refusal()).startsWith("no event id");
        assertThat(InboxMessage.of(Message.of("s", null, null, PAYLOAD)).refusal()).startsWith("no event id");
        assertThat(InboxMessage.of("a\nb", null).refusal()).isEqualTo("event id with a control character: eventId=a?b");
        assertThat(InboxMessage.of("a", "k".repeat(513)).refusal()).startsWith("key longer than 512 characters");
    }
}
