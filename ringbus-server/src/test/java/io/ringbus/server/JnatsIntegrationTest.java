package io.ringbus.server;

import io.ringbus.testkit.Await;
import io.nats.client.AuthenticationException;
import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.JetStreamStatusException;
import io.nats.client.Message;
import io.nats.client.Options;
import io.nats.client.Subscription;
import io.nats.client.api.ServerInfo;
import io.nats.client.impl.NatsMessage;
import io.ringbus.core.Headers;
import io.ringbus.core.Scope;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * ringbus-server against the real jnats client: subjects and wildcards, queue groups, UNSUB
 * with max, headers, echo, request/reply and no-responders, in-process and network clients on
 * the same subjects, scopes and credentials.
 */
@Timeout(30)
@SuppressWarnings("try") // jnats Connection.close() throws InterruptedException; the tests declare it
class JnatsIntegrationTest {
    private static final Duration WAIT = Duration.ofSeconds(10);

    private final RecordingErrorListener listener = new RecordingErrorListener();
    @AutoClose
    private ServerUnderTest server;

    // ------------------------------------------------------------ connecting

    @Test
    void jnatsConnectsAndLearnsTheServersLimitsFromInfo() throws Exception {
        server = ServerUnderTest.start(c -> c.serverName("jnats-test"));
        try (Connection nc = listener.connect(server)) {
            ServerInfo info = nc.getServerInfo();

            assertThat(nc.getStatus()).isEqualTo(Connection.Status.CONNECTED);
            assertThat(info.getServerName()).isEqualTo("jnats-test");
            assertThat(info.getMaxPayload()).isEqualTo(1024);
            assertThat(info.isHeadersSupported()).isTrue();
            assertThat(info.getProtocolVersion()).isEqualTo(1);
            assertThat(info.getPort()).isEqualTo(server.port());
            assertThat(nc.getMaxPayload()).isEqualTo(1024);
            assertThat(server.stats().connections()).isEqualTo(1);
        }
        Await.until("the connection is counted as gone", () -> server.stats().connections() == 0,
                () -> server.stats());
        assertThat(listener.errors).isEmpty();
    }

    // ------------------------------------------------------------ subjects

    @Test
    void exactAndWildcardSubscriptionsReceiveExactlyTheMatchingSubjects() throws Exception {
        server = ServerUnderTest.start();
        try (Connection sub = listener.connect(server); Connection pub = listener.connect(server)) {
            Subscription exact = sub.subscribe("pub.orders.created");
            Subscription star = sub.subscribe("pub.orders.*");
            Subscription tail = sub.subscribe("pub.>");
            Subscription middle = sub.subscribe("pub.*.created");
            sub.flush(WAIT);

            for (String subject : List.of("pub.orders.created", "pub.orders.deleted", "pub.other.x",
                    "pub.orders.created.extra", "pub.users.created")) {
                pub.publish(subject, subject.getBytes(StandardCharsets.UTF_8));
            }
            pub.publish("pub.orders.created", "end".getBytes(StandardCharsets.UTF_8));
            pub.flush(WAIT);

            assertThat(receiveUntilEnd(exact)).containsExactly("pub.orders.created");
            assertThat(receiveUntilEnd(star)).containsExactly("pub.orders.created", "pub.orders.deleted");
            assertThat(receiveUntilEnd(tail)).containsExactly("pub.orders.created", "pub.orders.deleted",
                    "pub.other.x", "pub.orders.created.extra", "pub.users.created");
            assertThat(receiveUntilEnd(middle)).containsExactly("pub.orders.created", "pub.users.created");
        }
        assertThat(listener.errors).isEmpty();
    }

    @Test
    void queueGroupDeliversEachMessageToExactlyOneMember() throws Exception {
        server = ServerUnderTest.start();
        int messages = 300;
        List<Connection> members = new ArrayList<>();
        List<Queue<String>> received = new ArrayList<>();
        Queue<String> plain = new ConcurrentLinkedQueue<>();
        try (Connection pub = listener.connect(server); Connection observer = listener.connect(server)) {
            for (int m = 0; m < 3; m++) {
                Connection member = listener.connect(server);
                members.add(member);
                Queue<String> got = new ConcurrentLinkedQueue<>();
                received.add(got);
                member.createDispatcher(msg -> got.add(text(msg))).subscribe("pub.jobs", "workers");
                member.flush(WAIT);
            }
            observer.createDispatcher(msg -> plain.add(text(msg))).subscribe("pub.jobs");
            observer.flush(WAIT);

            for (int i = 0; i < messages; i++) {
                pub.publish("pub.jobs", Integer.toString(i).getBytes(StandardCharsets.UTF_8));
            }
            pub.flush(WAIT);

            Await.until("the group received " + messages,
                    () -> received.stream().mapToInt(Queue::size).sum() >= messages && plain.size() == messages,
                    () -> received.stream().map(Queue::size).toList() + " plain=" + plain.size());
            Await.grace();

            List<String> all = received.stream().flatMap(Queue::stream).toList();
            Set<String> distinct = new HashSet<>(all);
            assertThat(all).as("no message went to two members").hasSize(messages);
            assertThat(distinct).hasSize(messages);
            assertThat(plain).as("a plain subscriber beside the group gets every message").hasSize(messages);
        } finally {
            for (Connection member : members) {
                member.close();
            }
        }
    }

    @Test
    void unsubscribeWithMaxDeliversExactlyThatManyAndTheServerDropsTheSubscription() throws Exception {
        server = ServerUnderTest.start();
        try (Connection sub = listener.connect(server); Connection pub = listener.connect(server)) {
            Subscription sync = sub.subscribe("pub.limited");
            sync.unsubscribe(5);
            Queue<String> viaDispatcher = new ConcurrentLinkedQueue<>();
            Dispatcher dispatcher = sub.createDispatcher(msg -> viaDispatcher.add(text(msg)));
            Subscription async = dispatcher.subscribe("pub.limited.async", msg -> viaDispatcher.add(text(msg)));
            dispatcher.unsubscribe(async, 3);
            sub.flush(WAIT);

            for (int i = 0; i < 10; i++) {
                pub.publish("pub.limited", ("s" + i).getBytes(StandardCharsets.UTF_8));
                pub.publish("pub.limited.async", ("a" + i).getBytes(StandardCharsets.UTF_8));
            }
            pub.flush(WAIT);

            List<String> got = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                Message msg = sync.nextMessage(WAIT);
                assertThat(msg).as("message %d of 5", i).isNotNull();
                got.add(text(msg));
            }
            assertThat(got).containsExactly("s0", "s1", "s2", "s3", "s4");
            Await.until("the dispatcher got 3", () -> viaDispatcher.size() >= 3);
            // jnats stops at max by itself too: the server's side shows in its subscriptions and counters
            Await.until("the server dropped both subscriptions", () -> !server.broker.hasSubscribers("pub.limited")
                    && !server.broker.hasSubscribers("pub.limited.async"));
            Await.grace();
            assertThat(viaDispatcher).containsExactly("a0", "a1", "a2");
            assertThat(server.stats().messagesOut()).as("MSGs the server wrote").isEqualTo(8);
        }
    }

    // ------------------------------------------------------------ headers and echo

    @Test
    void headersRoundTripBetweenJnatsAndInProcessClients() throws Exception {
        server = ServerUnderTest.start();
        Queue<io.ringbus.core.Message> inProcess = new ConcurrentLinkedQueue<>();
        server.broker.subscribe("pub.headers", m -> inProcess.add(m.copy()));
        try (Connection sub = listener.connect(server); Connection pub = listener.connect(server)) {
            Subscription subscription = sub.subscribe("pub.headers");
            sub.flush(WAIT);

            io.nats.client.impl.Headers headers = new io.nats.client.impl.Headers()
                    .add("X-Trace", "abc-123")
                    .add("X-Multi", "one", "two");
            pub.publish(NatsMessage.builder().subject("pub.headers").headers(headers)
                    .data("body".getBytes(StandardCharsets.UTF_8)).build());
            pub.flush(WAIT);

            Message fromJnats = subscription.nextMessage(WAIT);
            assertThat(fromJnats).isNotNull();
            assertThat(fromJnats.hasHeaders()).isTrue();
            assertThat(fromJnats.getHeaders().getFirst("X-Trace")).isEqualTo("abc-123");
            assertThat(fromJnats.getHeaders().get("X-Multi")).containsExactly("one", "two");
            assertThat(text(fromJnats)).isEqualTo("body");

            Await.until("the in-process subscriber got it", () -> !inProcess.isEmpty());
            io.ringbus.core.Message seen = inProcess.peek();
            assertThat(seen.headers().first("X-Trace")).isEqualTo("abc-123");
            assertThat(seen.headers().all("X-Multi")).containsExactly("one", "two");
            assertThat(seen.payload()).isEqualTo("body".getBytes(StandardCharsets.UTF_8));

            server.broker.publish("pub.headers", null, Headers.of("X-From", "java", "X-From", "ringbus"), "hi");
            Message fromBroker = subscription.nextMessage(WAIT);
            assertThat(fromBroker).isNotNull();
            assertThat(fromBroker.getHeaders().get("X-From")).containsExactly("java", "ringbus");
            assertThat(text(fromBroker)).isEqualTo("hi");
        }
        assertThat(listener.errors).isEmpty();
    }

    @Test
    void noEchoConnectionDoesNotReceiveItsOwnPublishesButOthersDo() throws Exception {
        server = ServerUnderTest.start();
        try (Connection quiet = listener.connect(server, Options.Builder::noEcho);
             Connection echoing = listener.connect(server)) {
            Subscription quietSub = quiet.subscribe("pub.echo");
            Subscription echoingSub = echoing.subscribe("pub.echo");
            quiet.flush(WAIT);
            echoing.flush(WAIT);

            for (int i = 0; i < 3; i++) {
                quiet.publish("pub.echo", ("quiet" + i).getBytes(StandardCharsets.UTF_8));
            }
            quiet.flush(WAIT); // the server has taken all three before the next publish
            echoing.publish("pub.echo", "end".getBytes(StandardCharsets.UTF_8));
            echoing.flush(WAIT);

            assertThat(receiveUntilEnd(quietSub)).as("own messages come before the end, if at all").isEmpty();
            assertThat(receiveTexts(echoingSub, 4)).containsExactly("quiet0", "quiet1", "quiet2", "end");
        }
    }

    // ------------------------------------------------------------ request / reply

    @Test
    void requestReplyWithAJnatsResponderServesJnatsAndInProcessRequesters() throws Exception {
        server = ServerUnderTest.start();
        try (Connection responder = listener.connect(server); Connection requester = listener.connect(server)) {
            responder.createDispatcher(msg -> responder.publish(msg.getReplyTo(),
                    text(msg).toUpperCase().getBytes(StandardCharsets.UTF_8))).subscribe("pub.svc.upper");
            responder.flush(WAIT);

            for (int i = 0; i < 20; i++) {
                Message reply = requester.request("pub.svc.upper", ("hello" + i).getBytes(StandardCharsets.UTF_8),
                        WAIT);
                assertThat(reply).as("reply %d", i).isNotNull();
                assertThat(text(reply)).isEqualTo("HELLO" + i);
            }

            io.ringbus.core.Message reply = server.broker.request("pub.svc.upper", "from-java", WAIT)
                    .get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(reply.payload()).isEqualTo("FROM-JAVA".getBytes(StandardCharsets.UTF_8));
        }
        assertThat(listener.errors).isEmpty();
    }

    @Test
    void requestReplyWithAnInProcessResponder() throws Exception {
        server = ServerUnderTest.start();
        server.broker.subscribe("pub.svc.echo", m -> server.broker.publish(m.replyTo(), null,
                Headers.of("X-Responder", "in-process"),
                "echo:" + new String(m.payload(byte[].class), StandardCharsets.UTF_8)));
        try (Connection requester = listener.connect(server)) {
            for (int i = 0; i < 20; i++) {
                Message reply = requester.request("pub.svc.echo", ("hi" + i).getBytes(StandardCharsets.UTF_8), WAIT);
                assertThat(reply).as("reply %d", i).isNotNull();
                assertThat(text(reply)).isEqualTo("echo:hi" + i);
                assertThat(reply.getHeaders().getFirst("X-Responder")).isEqualTo("in-process");
            }
            CompletableFuture<Message> future = requester.request("pub.svc.echo",
                    "async".getBytes(StandardCharsets.UTF_8));
            assertThat(text(future.get(WAIT.toSeconds(), TimeUnit.SECONDS))).isEqualTo("echo:async");
        }
        assertThat(listener.errors).isEmpty();
    }

    @Test
    void requestWithoutRespondersIsAnsweredAtOnceWithNoResponders() throws Exception {
        server = ServerUnderTest.start();
        Duration requestTimeout = Duration.ofSeconds(60); // longer than the wait below: only a 503 ends it in time
        try (Connection plain = listener.connect(server);
             Connection reporting = listener.connect(server, Options.Builder::reportNoResponders)) {
            CompletableFuture<Message> cancelled = plain.requestWithTimeout("pub.nobody.home",
                    "anyone?".getBytes(StandardCharsets.UTF_8), requestTimeout);
            assertThatThrownBy(() -> cancelled.get(WAIT.toSeconds(), TimeUnit.SECONDS))
                    .isInstanceOf(CancellationException.class);

            CompletableFuture<Message> reported = reporting.requestWithTimeout("pub.nobody.home",
                    "anyone?".getBytes(StandardCharsets.UTF_8), requestTimeout);
            assertThatThrownBy(() -> reported.get(WAIT.toSeconds(), TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .cause().isInstanceOf(JetStreamStatusException.class)
                    .satisfies(e -> assertThat(((JetStreamStatusException) e).getStatus().getCode()).isEqualTo(503));

            assertThat(plain.getStatus()).isEqualTo(Connection.Status.CONNECTED);
            assertThat(reporting.getStatus()).isEqualTo(Connection.Status.CONNECTED);
        }
    }

    // ------------------------------------------------------------ in-process <-> network

    @Test
    void inProcessAndNetworkPublishersReachTheSameSubscribers() throws Exception {
        server = ServerUnderTest.start();
        Queue<Object> inProcess = new ConcurrentLinkedQueue<>();
        server.broker.subscribe("pub.mixed", m -> inProcess.add(m.payload()));
        try (Connection sub = listener.connect(server); Connection pub = listener.connect(server)) {
            Queue<byte[]> network = new ConcurrentLinkedQueue<>();
            sub.createDispatcher(msg -> network.add(msg.getData())).subscribe("pub.mixed");
            sub.flush(WAIT);

            byte[] binary = {0, 1, 2, (byte) 0xFF, '\r', '\n'};
            pub.publish("pub.mixed", "from-network".getBytes(StandardCharsets.UTF_8));
            pub.flush(WAIT);
            server.broker.publish("pub.mixed", "from-process \u00e9\u20ac");
            server.broker.publish("pub.mixed", binary);

            Await.until("both subscribers got 3", () -> inProcess.size() == 3 && network.size() == 3,
                    () -> "inProcess=" + inProcess.size() + " network=" + network.size());

            assertThat(network).extracting(b -> new String(b, StandardCharsets.UTF_8))
                    .contains("from-network", "from-process \u00e9\u20ac");
            assertThat(network).anySatisfy(b -> assertThat(b).isEqualTo(binary));
            assertThat(inProcess).anySatisfy(p -> assertThat(p).isInstanceOf(byte[].class)
                    .isEqualTo("from-network".getBytes(StandardCharsets.UTF_8)));
            assertThat(inProcess).contains("from-process \u00e9\u20ac");
        }
    }

    // ------------------------------------------------------------ limits

    @Test
    void payloadAboveMaxPayloadIsRefusedByJnatsAndTheConnectionGoesOn() throws Exception {
        server = ServerUnderTest.start();
        try (Connection nc = listener.connect(server)) {
            Subscription subscription = nc.subscribe("pub.big");
            nc.flush(WAIT);

            assertThatThrownBy(() -> nc.publish("pub.big", new byte[1025]))
                    .isInstanceOf(IllegalArgumentException.class);
            nc.publish("pub.big", new byte[1024]);
            nc.flush(WAIT);

            Message msg = subscription.nextMessage(WAIT);
            assertThat(msg).isNotNull();
            assertThat(msg.getData()).hasSize(1024);
            assertThat(nc.getStatus()).isEqualTo(Connection.Status.CONNECTED);
        }
        // The server's own check, for clients that do not check, is in RawProtocolTest.
    }

    // ------------------------------------------------------------ scopes and credentials

    private static ServerUnderTest startWithCredentials() {
        return ServerUnderTest.start(c -> c
                .token("guest", Scope.PUBLIC)
                .token("s3cret", Scope.FEDERATED)
                .user("alice", "pw", Scope.PRIVATE));
    }

    @Test
    void publicTokenReachesOnlyPublicSubjects() throws Exception {
        server = startWithCredentials();
        try (Connection nc = listener.connect(server, o -> o.token("guest".toCharArray()))) {
            nc.publish("fed.a", "x".getBytes(StandardCharsets.UTF_8));
            nc.subscribe("priv.b");
            nc.flush(WAIT);

            Await.until("jnats reported both violations", () -> listener.errors.size() >= 2, listener::toString);
            assertThat(listener.errors).anySatisfy(e -> assertThat(e)
                    .contains("Permissions Violation for Publish to \"fed.a\""));
            assertThat(listener.errors).anySatisfy(e -> assertThat(e)
                    .contains("Permissions Violation for Subscription to \"priv.b\""));
            assertRoundTrip(nc, "pub.ok");
            assertThat(nc.getStatus()).isEqualTo(Connection.Status.CONNECTED);
            assertThat(server.stats().permissionViolations()).isEqualTo(2);
        }
    }

    @Test
    void federatedTokenReachesFederatedAndPublicButNotPrivateSubjects() throws Exception {
        server = startWithCredentials();
        try (Connection nc = listener.connect(server, o -> o.token("s3cret".toCharArray()))) {
            assertRoundTrip(nc, "fed.a");
            assertRoundTrip(nc, "pub.a");
            Subscription everything = nc.subscribe(">");
            nc.flush(WAIT);

            nc.publish("priv.a", "x".getBytes(StandardCharsets.UTF_8));
            nc.subscribe("priv.b");
            nc.flush(WAIT);
            server.broker.publish("priv.z", "private");
            server.broker.publish("fed.z", "federated");
            server.broker.publish("pub.z", "public");
            server.broker.publish("pub.end", "end");

            assertThat(receiveUntilEnd(everything)).containsExactly("fed.z", "pub.z");
            Await.until("jnats reported both violations", () -> listener.errors.size() >= 2, listener::toString);
            assertThat(listener.errors).hasSize(2).anySatisfy(e -> assertThat(e)
                    .contains("Permissions Violation for Publish to \"priv.a\""));
            assertThat(listener.errors).anySatisfy(e -> assertThat(e)
                    .contains("Permissions Violation for Subscription to \"priv.b\""));
            assertThat(nc.getStatus()).isEqualTo(Connection.Status.CONNECTED);
        }
    }

    @Test
    void privateUserReachesPrivateSubjects() throws Exception {
        server = startWithCredentials();
        try (Connection nc = listener.connect(server, o -> o.userInfo("alice", "pw"))) {
            assertRoundTrip(nc, "priv.a");
            assertRoundTrip(nc, "fed.a");
            assertRoundTrip(nc, "pub.a");
        }
        assertThat(listener.errors).isEmpty();
        assertThat(server.stats().permissionViolations()).isZero();
    }

    @Test
    void wrongCredentialsFailTheConnectWithAuthorizationViolation() {
        server = startWithCredentials();
        // jnats 2.21 reports a refused CONNECT only when its connection timeout ends (the server
        // has sent -ERR and closed at once, as RawProtocolTest shows): keep that timeout short.
        Duration refusedAfter = Duration.ofMillis(1500);

        assertThatThrownBy(() -> listener.connect(server, o -> o.connectionTimeout(refusedAfter)
                .token("guesT".toCharArray())).close())
                .isInstanceOf(AuthenticationException.class)
                .satisfies(e -> assertThat(messages(e)).contains("Authorization Violation"));
        assertThatThrownBy(() -> listener.connect(server, o -> o.connectionTimeout(refusedAfter)
                .userInfo("alice", "wrong")).close())
                .isInstanceOf(AuthenticationException.class)
                .satisfies(e -> assertThat(messages(e)).contains("Authorization Violation"));
        assertThatThrownBy(() -> listener.connect(server, o -> o.connectionTimeout(refusedAfter)).close())
                .isInstanceOf(AuthenticationException.class)
                .satisfies(e -> assertThat(messages(e)).contains("Authorization Violation"));
        assertThat(listener.errors).containsOnly("Authorization Violation");

        assertThat(server.stats().authFailures()).isEqualTo(3);
        Await.until("no connection is left", () -> server.stats().connections() == 0, () -> server.stats());
    }

    // ------------------------------------------------------------ helpers

    /** Subscribes, publishes one message and receives it on the same jnats connection. */
    private static void assertRoundTrip(Connection nc, String subject) throws Exception {
        Subscription subscription = nc.subscribe(subject);
        nc.flush(WAIT);
        nc.publish(subject, subject.getBytes(StandardCharsets.UTF_8));
        Message msg = subscription.nextMessage(WAIT);
        assertThat(msg).as("round trip on " + subject).isNotNull();
        assertThat(text(msg)).isEqualTo(subject);
        subscription.unsubscribe();
    }

    /** @return the subjects received before the message whose payload is "end" */
    private static List<String> receiveUntilEnd(Subscription subscription) throws InterruptedException {
        List<String> subjects = new ArrayList<>();
        while (true) {
            Message msg = subscription.nextMessage(WAIT);
            assertThat(msg).as("the end marker after " + subjects).isNotNull();
            if (text(msg).equals("end")) {
                return subjects;
            }
            subjects.add(msg.getSubject());
        }
    }

    private static List<String> receiveTexts(Subscription subscription, int count) throws InterruptedException {
        List<String> texts = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Message msg = subscription.nextMessage(WAIT);
            assertThat(msg).as("message %d after %s", i, texts).isNotNull();
            texts.add(text(msg));
        }
        return texts;
    }

    private static String text(Message msg) {
        return new String(msg.getData(), StandardCharsets.UTF_8);
    }

    /** Every message in the cause chain, to find the server's text however jnats wraps it. */
    private static String messages(Throwable e) {
        StringBuilder all = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            all.append(t.getClass().getName()).append(": ").append(t.getMessage()).append(" | ");
        }
        return all.toString();
    }
}
