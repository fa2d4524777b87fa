package io.ringbus.spring.test.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.ringbus.core.Broker;
import io.ringbus.core.Message;
import io.ringbus.spring.RingbusTemplate;
import io.ringbus.spring.test.MessageRecorder;
import io.ringbus.spring.test.RingbusTest;
import io.ringbus.spring.test.RingbusTestMessages;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

// docs/spring.md "Waiting for messages" mirrors this test; same properties as RingbusSliceTest: one cached context
@RingbusTest(properties = "ringbus.name=slice")
class RingbusTestMessagesTest {

    static final Duration WAIT = Duration.ofSeconds(10);
    static final Duration SHORT = Duration.ofMillis(200);

    @Autowired
    RingbusTestMessages messages;

    @Autowired
    RingbusTemplate template;

    @Autowired
    Broker broker;

    @Test
    void aRecorderReturnsWhatWasPublishedToItsPatternAfterItStartedInOrder() {
        template.publish("recorded.eu.created", "before");
        try (MessageRecorder created = messages.record("recorded.*.created")) {
            template.publish("recorded.eu.created", "o-1");
            template.publish("recorded.eu.cancelled", "not matching");
            template.publish("recorded.us.created", "o-2");

            assertThat(created.awaitMessages(2, WAIT)).extracting(Message::subject, Message::payload)
                    .containsExactly(tuple("recorded.eu.created", "o-1"),
                            tuple("recorded.us.created", "o-2"));
            assertThat(created.awaitMessage(WAIT).payload()).isEqualTo("o-1");
            assertThat(created.awaitMessage(m -> m.subject().startsWith("recorded.us."), WAIT).payload())
                    .isEqualTo("o-2");
        }
        assertThat(broker.hasSubscribers("recorded.eu.created")).as("closed: unsubscribed").isFalse();
    }

    @Test
    void aRecorderWaitsForAMessagePublishedLaterByAnotherThread() throws Exception {
        try (MessageRecorder later = messages.record("recorded.later")) {
            CompletableFuture<Void> publisher = CompletableFuture.runAsync(() -> template.publish("recorded.later", "l-1"),
                    CompletableFuture.delayedExecutor(100, TimeUnit.MILLISECONDS));
            assertThat(later.awaitMessage(WAIT).payload()).isEqualTo("l-1");
            publisher.get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aTimeoutNamesThePatternAndListsWhatArrived() {
        try (MessageRecorder recorder = messages.record("recorded.timeout.>")) {
            assertThatThrownBy(() -> recorder.awaitMessage(SHORT))
                    .isInstanceOf(AssertionError.class)
                    .hasMessage("expected 1 message on 'recorded.timeout.>' within PT0.2S; none arrived");

            template.publish("recorded.timeout.a", "o-1");
            broker.publish("recorded.timeout.b", new byte[] {(byte) 0xff, (byte) 0xfe, 0});
            broker.publish("recorded.timeout.c", "{\"id\":\"o-3\"}".getBytes(StandardCharsets.UTF_8));
            assertThatThrownBy(() -> recorder.awaitMessages(4, SHORT))
                    .isInstanceOf(AssertionError.class)
                    .hasMessage("expected 4 messages on 'recorded.timeout.>' within PT0.2S; 3 arrived: "
                            + "[recorded.timeout.a \"o-1\", recorded.timeout.b <3 bytes>, "
                            + "recorded.timeout.c \"{\"id\":\"o-3\"}\"]");
            assertThatThrownBy(() -> recorder.awaitMessage(m -> "o-9".equals(m.payload()), SHORT))
                    .isInstanceOf(AssertionError.class)
                    .hasMessageStartingWith("expected a message matching the condition on 'recorded.timeout.>'")
                    .hasMessageContaining("3 arrived");
        }
    }

    @Test
    void awaitMessageSubscribesBeforeTheActionRunsAndUnsubscribesAfter() {
        // the action publishes synchronously: only a subscription made before it can see the message
        Message message = messages.awaitMessage("recorded.action", WAIT,
                () -> broker.publish("recorded.action", "a-1"));
        assertThat(message.payload()).isEqualTo("a-1");
        assertThat(broker.hasSubscribers("recorded.action")).isFalse();

        assertThatThrownBy(() -> messages.awaitMessage("recorded.nothing", SHORT, () -> { }))
                .isInstanceOf(AssertionError.class).hasMessageContaining("'recorded.nothing'");
        assertThat(broker.hasSubscribers("recorded.nothing")).as("unsubscribed after a timeout too").isFalse();
    }

    @Test
    void badArgumentsAreRefusedNamingTheValue() {
        assertThatThrownBy(() -> messages.record("recorded..bad")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("recorded..bad");
        try (MessageRecorder recorder = messages.record("recorded.args")) {
            assertThatThrownBy(() -> recorder.awaitMessages(0, SHORT)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("count must be at least 1: count=0");
            assertThatThrownBy(() -> recorder.awaitMessage(Duration.ofSeconds(-1)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("timeout=PT-1S");
        }
    }
}
