package io.ringbus.core;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Detached messages and the typed payload accessor. */
class MessageTest {

    @Test
    void detachedMessageKeepsItsFields() {
        Headers headers = Headers.of("k", "v");
        Message message = Message.of("a.b", "reply.to", headers, 42);
        assertThat(message.subject()).isEqualTo("a.b");
        assertThat(message.replyTo()).isEqualTo("reply.to");
        assertThat(message.headers()).isSameAs(headers);
        assertThat(message.payload()).isEqualTo(42);
        assertThat(message.copy()).isEqualTo(message);
    }

    @Test
    void missingHeadersBecomeEmpty() {
        Message message = Message.of("a", null, null, null);
        assertThat(message.headers()).isSameAs(Headers.EMPTY);
        assertThat(message.replyTo()).isNull();
        assertThat(message.payload()).isNull();
        assertThat(message.payload(String.class)).isNull();
    }

    @Test
    void typedPayloadCastsOrNamesBothTypes() {
        Message message = Message.of("orders.new", null, null, 42);
        assertThat(message.payload(Integer.class)).isEqualTo(42);
        assertThat(message.payload(Number.class)).isEqualTo(42);
        assertThatThrownBy(() -> message.payload(String.class))
                .isInstanceOf(ClassCastException.class)
                .hasMessageContaining("orders.new")
                .hasMessageContaining("java.lang.Integer")
                .hasMessageContaining("java.lang.String");
    }
}
