package io.ringbus.jetstream.internal.consumer;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** An ack subject is read as its tokens split on every dot would be (empty tokens included). */
class AckSubjectTest {
    @Test
    void readsTheTokensSplitWouldGive() {
        String[] subjects = {"$JS.ACK.ORDERS.worker.1.42.7.1700000000000000000.3", "$JS.ACK.S.C.2.-5.1.1.0",
                "$JS.ACK.S.C.1.x.1.1.0", "$JS.ACK.S.C.1.+9.1.1.0", "$JS.ACK.S.C.1..1.1.0", "$JS.ACK.S.C.1.2.1.1",
                "$JS.ACK.S.C.1.2.1.1.0.9", "$JS.FC.S.C.12", "$JS.FC..C.12", "$JS.FCX.S.C.1", "$JS.ACK.S.C",
                "$JS.ACK.S..1.2.3.4.5", "$JS.ACK.S.C.1.99999999999999999999.1.1.0", "a.FC.b.c.d.e.f.g.h.i.j"};
        for (String subject : subjects) {
            String[] tokens = subject.split("\\.", -1);
            AckSubject parsed = AckSubject.parse(subject);
            if (tokens.length < 5) {
                assertThat(parsed).as(subject).isNull();
                continue;
            }
            assertThat(parsed.tokens()).as(subject).isEqualTo(tokens.length);
            assertThat(parsed.flowControl()).as(subject).isEqualTo(tokens[1].equals("FC"));
            assertThat(parsed.stream()).as(subject).isEqualTo(tokens[2]);
            assertThat(parsed.consumer()).as(subject).isEqualTo(tokens[3]);
            Long expected = null;
            if (tokens.length == 9) {
                try {
                    expected = Long.parseLong(tokens[5]);
                } catch (NumberFormatException e) {
                    expected = null;
                }
            }
            assertThat(parsed.numbered()).as(subject).isEqualTo(expected != null);
            if (expected != null) {
                assertThat(parsed.sequence()).as(subject).isEqualTo(expected);
            }
        }
    }
}
