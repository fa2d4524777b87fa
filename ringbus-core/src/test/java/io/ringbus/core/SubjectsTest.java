package io.ringbus.core;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/** The NATS subject grammar and wildcard matching, as seen through the broker. */
@Timeout(30)
class SubjectsTest {

    private static Broker newBroker() {
        return Broker.builder().name("subjects").ringSize(64).build();
    }

    /** Malformed as a subject and as a pattern; every one printable, so the message can name it. */
    static Stream<String> malformed() {
        return Stream.of("a..b", ".a", "a.", ".", "..", "a b", " a", "a ", "a. .b");
    }

    static Stream<String> wildcardSubjects() {
        return Stream.of("a.*", "a.>", "*", ">", "*.b", "a.*.c");
    }

    @ParameterizedTest
    @MethodSource("malformed")
    void publishRejectsMalformedSubjectNamingIt(String subject) {
        try (Broker broker = newBroker()) {
            assertThatThrownBy(() -> broker.publish(subject, "x"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(subject);
            assertThatThrownBy(() -> broker.tryPublish(subject, "x"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(subject);
            assertThatThrownBy(() -> broker.request(subject, "x", Duration.ofSeconds(1)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(subject);
            assertThat(broker.stats().published()).isZero();
        }
    }

    @ParameterizedTest
    @MethodSource("malformed")
    void subscribeRejectsMalformedPatternNamingIt(String pattern) {
        try (Broker broker = newBroker()) {
            assertThatThrownBy(() -> broker.subscribe(pattern, message -> { }))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(pattern);
            assertThat(broker.stats().subscriptions()).isEmpty();
        }
    }

    @ParameterizedTest
    @MethodSource("malformed")
    void registerSubjectAndScopeOfRejectMalformedSubjectNamingIt(String subject) {
        try (Broker broker = newBroker()) {
            assertThatThrownBy(() -> broker.registerSubject(subject, Scope.PUBLIC))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(subject);
            assertThatThrownBy(() -> broker.scopeOf(subject))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(subject);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"a\tb", "a\nb", "a\rb", "a\u0000b", "a\u007fb", "\t"})
    void controlCharactersAreRejected(String subject) {
        try (Broker broker = newBroker()) {
            assertThatThrownBy(() -> broker.publish(subject, "x")).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> broker.subscribe(subject, message -> { }))
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void nullAndEmptySubjectsAreRejectedWithIllegalArgument() {
        try (Broker broker = newBroker()) {
            assertThatThrownBy(() -> broker.publish(null, "x"))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("null");
            assertThatThrownBy(() -> broker.publish("", "x")).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> broker.tryPublish(null, "x")).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> broker.subscribe(null, message -> { }))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("null");
            assertThatThrownBy(() -> broker.subscribe("", message -> { })).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> broker.request(null, "x", Duration.ofSeconds(1)))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> broker.scopeOf(null)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> broker.scopeOf("")).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @ParameterizedTest
    @MethodSource("wildcardSubjects")
    void publishingToWildcardIsRejectedNamingTheSubject(String subject) {
        try (Broker broker = newBroker()) {
            RecordingHandler all = new RecordingHandler();
            broker.subscribe(">", all);
            assertThatThrownBy(() -> broker.publish(subject, "x"))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(subject);
            assertThatThrownBy(() -> broker.tryPublish(subject, "x"))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(subject);
            assertThatThrownBy(() -> broker.request(subject, "x", Duration.ofSeconds(1)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(subject);
            assertThatThrownBy(() -> broker.scopeOf(subject))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(subject);
            assertThat(broker.stats().published()).isZero();
            broker.publish("fence", "fence");
            all.awaitPayload("fence");
            assertThat(all.payloads()).containsExactly("fence");
        }
    }

    @ParameterizedTest
    @MethodSource("wildcardSubjects")
    void replyToWithWildcardIsRejected(String replyTo) {
        try (Broker broker = newBroker()) {
            assertThatThrownBy(() -> broker.publish("a", replyTo, null, "x"))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(replyTo);
            assertThatThrownBy(() -> broker.publish("a", "a..b", null, "x"))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("a..b");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"a.>.b", ">.a", ">.>", "a.>.*"})
    void fullWildcardOnlyAsLastToken(String pattern) {
        try (Broker broker = newBroker()) {
            assertThatThrownBy(() -> broker.subscribe(pattern, message -> { }))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(pattern);
            assertThatThrownBy(() -> broker.registerSubject(pattern, Scope.PUBLIC))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(pattern);
        }
    }

    static Stream<Arguments> matching() {
        return Stream.of(
                arguments("a.b", "a.b", true),
                arguments("a.b", "a.B", false),
                arguments("a.b", "A.b", false),
                arguments("a.b", "a.b.c", false),
                arguments("a.b", "a", false),
                arguments("a.*", "a.b", true),
                arguments("a.*", "a", false),
                arguments("a.*", "a.b.c", false),
                arguments("*.b", "a.b", true),
                arguments("*.b", "a.b.c", false),
                arguments("*.b", "b", false),
                arguments("*.b", "a.c", false),
                arguments("a.*.c", "a.b.c", true),
                arguments("a.*.c", "a.x.c", true),
                arguments("a.*.c", "a.b.d", false),
                arguments("a.*.c", "a.c", false),
                arguments("a.*.c", "a.b.x.c", false),
                arguments("a.>", "a.b", true),
                arguments("a.>", "a.b.c.d", true),
                arguments("a.>", "a", false),
                arguments("a.>", "b.c", false),
                arguments("a.>", "ab.c", false),
                arguments("a.b.>", "a.b", false),
                arguments("a.b.>", "a.b.c", true),
                arguments("a.*.>", "a.b", false),
                arguments("a.*.>", "a.b.c", true),
                arguments(">", "a", true),
                arguments(">", "a.b.c", true),
                arguments("*", "a", true),
                arguments("*", "a.b", false),
                arguments("*.*", "a.b", true),
                arguments("*.*", "a", false),
                arguments("*.*", "a.b.c", false),
                arguments("*.>", "a.b", true),
                arguments("*.>", "a", false),
                // Wildcards are whole tokens only: these are literals.
                arguments("a*", "a*", true),
                arguments("a*", "ab", false),
                arguments("a>", "a>", true),
                arguments("a>", "a.b", false),
                arguments("*a", "ba", false),
                arguments("a.b*", "a.bc", false),
                arguments("a.b*", "a.b*", true));
    }

    @ParameterizedTest(name = "pattern {0}, subject {1}: {2}")
    @MethodSource("matching")
    void patternMatchesSubjectsAsNatsDoes(String pattern, String subject, boolean matches) {
        // The fence is a subject the pattern surely matches, published after the probe by the same
        // thread: once the subscriber has it, it has had the probe too, if it ever will.
        String fence = fenceFor(pattern);
        try (Broker broker = newBroker()) {
            RecordingHandler handler = new RecordingHandler();
            broker.subscribe(pattern, handler);
            broker.publish(subject, "probe");
            broker.publish(fence, "fence");
            handler.awaitPayload("fence");
            if (matches) {
                assertThat(handler.payloads()).containsExactly("probe", "fence");
                assertThat(handler.messages().get(0).subject()).isEqualTo(subject);
            } else {
                assertThat(handler.payloads()).containsExactly("fence");
            }
        }
    }

    /** A literal subject that {@code pattern} matches: each wildcard token becomes "fence". */
    static String fenceFor(String pattern) {
        String[] tokens = pattern.split("\\.");
        for (int i = 0; i < tokens.length; i++) {
            if (tokens[i].equals("*") || tokens[i].equals(">")) {
                tokens[i] = "fence";
            }
        }
        return String.join(".", tokens);
    }

    @Test
    void messageMatchingSeveralPatternsReachesEachSubscriptionOnce() {
        try (Broker broker = newBroker()) {
            String[] patterns = {">", "a.>", "a.*", "*.b", "*.*", "a.b", "a.b"};
            RecordingHandler[] handlers = new RecordingHandler[patterns.length];
            for (int i = 0; i < patterns.length; i++) {
                handlers[i] = new RecordingHandler();
                broker.subscribe(patterns[i], handlers[i]);
            }
            broker.publish("a.b", "probe");
            broker.publish("a.b", "fence");
            for (RecordingHandler handler : handlers) {
                handler.awaitPayload("fence");
                assertThat(handler.payloads()).containsExactly("probe", "fence");
            }
            assertThat(broker.stats().delivered()).isEqualTo(2L * patterns.length);
        }
    }
}
