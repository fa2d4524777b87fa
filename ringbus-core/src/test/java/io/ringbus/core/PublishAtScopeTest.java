package io.ringbus.core;

import io.ringbus.testkit.Await;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link Broker#publishAtScope}: data of a scope published on a subject of a lower scope (a stream's
 * message on a PUBLIC inbox) reaches only subscribers of the data's scope, with its reply subject,
 * and leaves no reply scope behind for that reply subject.
 */
class PublishAtScopeTest {
    @Test
    void privateDataOnAPublicSubjectReachesOnlyPrivateSubscribers() {
        try (Broker broker = Broker.builder().defaultScope(Scope.PUBLIC).build()) {
            List<Message> seenByPublic = new CopyOnWriteArrayList<>();
            List<Message> seenByPrivate = new CopyOnWriteArrayList<>();
            broker.client(Scope.PUBLIC).subscribe(">", m -> seenByPublic.add(m.copy()));
            broker.client(Scope.PRIVATE).subscribe("_INBOX.>", m -> seenByPrivate.add(m.copy()));

            broker.publishAtScope(Scope.PRIVATE, "_INBOX.abc", "$JS.ACK.S.C.1.1.1.0.0", null, "secret");
            broker.publishAtScope(Scope.PUBLIC, "_INBOX.abc", null, null, "open");
            broker.publish("_INBOX.marker", "after");
            Await.until("the PUBLIC subscriber got the later marker", () -> seenByPublic.stream()
                    .anyMatch(m -> m.subject().equals("_INBOX.marker")));
            Await.until("the PRIVATE subscriber got all three", () -> seenByPrivate.size() == 3);

            assertThat(seenByPublic).extracting(Message::payload).doesNotContain("secret").contains("open");
            assertThat(seenByPrivate.get(0).replyTo()).isEqualTo("$JS.ACK.S.C.1.1.1.0.0");
            // The reply subject was not remembered as a PRIVATE reply: a PUBLIC subscriber still gets it.
            List<Message> acks = new CopyOnWriteArrayList<>();
            broker.client(Scope.PUBLIC).subscribe("acks.>", m -> acks.add(m.copy()));
            broker.publishAtScope(Scope.PRIVATE, "_INBOX.def", "acks.x", null, "secret2");
            broker.client(Scope.PUBLIC).publish("acks.x", "ack");
            Await.until("the PUBLIC subscriber got its own subject", () -> acks.size() == 1);
        }
    }
}
