package io.ringbus.federation;

import io.nats.client.Connection;
import io.nats.client.Nats;
import io.ringbus.core.Broker;
import io.ringbus.core.ExecutionMode;
import io.ringbus.core.FederationStats;
import io.ringbus.core.Headers;
import io.ringbus.core.Message;
import io.ringbus.core.NoRespondersException;
import io.ringbus.core.Scope;
import io.ringbus.core.SubscribeOptions;
import io.ringbus.testkit.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Nodes linked through a private nats-server: what crosses, once, in order, by interest. */
class NatsFederationTest {
    @TempDir
    Path dir;
    private PrivateNatsServer nats;
    private final List<Broker> brokers = new ArrayList<>();

    @BeforeEach
    void startNats() throws Exception {
        nats = PrivateNatsServer.start(dir);
    }

    @AfterEach
    void stop() throws Exception {
        for (Broker broker : brokers) {
            broker.close();
        }
        nats.close();
    }

    private Broker node(String name) {
        Broker broker = Broker.builder().name(name).federation(NatsFederation.builder(nats.url()).build()).build();
        broker.registerSubject(">", Scope.PUBLIC); // subjects are PRIVATE by default: nothing would cross
        brokers.add(broker);
        Await.until(name + " linked", () -> broker.stats().federation().state().equals("CONNECTED"));
        return broker;
    }

    private static String text(Message message) {
        Object payload = message.payload();
        return payload instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : String.valueOf(payload);
    }

    /** Waits until every node's NATS subscriptions are in place: a round trip through the server. */
    private void settle() throws Exception {
        for (Broker broker : brokers) {
            broker.publish("settle." + broker.hashCode(), "x");
        }
        Thread.sleep(200);
    }

    @Test
    void publicAndFederatedSubjectsCrossAndPrivateNeverReachesTheWire() throws Exception {
        Broker a = node("node-a");
        Broker b = node("node-b");
        a.registerSubject("secret.>", Scope.PRIVATE);
        a.registerSubject("fed.>", Scope.FEDERATED);
        List<Message> got = new CopyOnWriteArrayList<>();
        b.subscribe(">", m -> got.add(m.copy()), SubscribeOptions.defaults());
        List<String> wire = new CopyOnWriteArrayList<>();
        Connection spy = Nats.connect(nats.url());
        try {
            spy.createDispatcher(m -> wire.add(m.getSubject())).subscribe(">");
            spy.flush(Duration.ofSeconds(2));
            settle();
            a.publish("orders.1", "public");
            a.publish("fed.1", "federated");
            a.publish("secret.1", "private");
            Await.until("both crossed", () -> got.stream().filter(m -> !m.subject().startsWith("settle")).count() == 2);
            Thread.sleep(300);
            assertThat(got).filteredOn(m -> !m.subject().startsWith("settle")).extracting(Message::subject)
                    .containsExactly("orders.1", "fed.1");
            assertThat(got.get(got.size() - 1).headers().first(NatsFederation.ORIGIN)).isEqualTo("node-a");
            assertThat(wire).contains("orders.1", "fed.1").doesNotContain("secret.1");
        } finally {
            spy.close();
        }
    }

    @Test
    void aNodeReceivesOnlyWhatItsSubscribersWant() throws Exception {
        Broker a = node("node-a");
        Broker b = node("node-b");
        List<String> got = new CopyOnWriteArrayList<>();
        b.subscribe("orders.eu.*", m -> got.add(text(m)));
        b.subscribe("orders.*.1", m -> got.add("second:" + text(m)));
        settle();
        long before = b.stats().federation().received();
        a.publish("orders.eu.1", "eu1");
        a.publish("orders.us.2", "us2");
        a.publish("payments.eu.1", "pay");
        Await.until("delivered", () -> got.size() == 2);
        Thread.sleep(300);
        assertThat(got).containsExactlyInAnyOrder("eu1", "second:eu1");
        // One NATS message per matching interest, each delivered to its own pattern's subscribers.
        assertThat(b.stats().federation().received() - before).isEqualTo(2);
    }

    @Test
    void nothingGoesRoundTwiceWithThreeNodes() throws Exception {
        List<Broker> nodes = List.of(node("n1"), node("n2"), node("n3"));
        List<List<String>> got = new ArrayList<>();
        for (Broker node : nodes) {
            List<String> own = new CopyOnWriteArrayList<>();
            got.add(own);
            node.subscribe("chat.>", m -> own.add(text(m)));
        }
        settle();
        for (int i = 0; i < nodes.size(); i++) {
            nodes.get(i).publish("chat.room", "from-" + i);
        }
        Await.until("everyone has all three", () -> got.stream().allMatch(l -> l.size() >= 3));
        Thread.sleep(500);
        for (List<String> own : got) {
            assertThat(own).containsExactlyInAnyOrder("from-0", "from-1", "from-2");
        }
    }

    @Test
    void aQueueGroupAcrossNodesGetsEachMessageOnceLocalMembersFirst() throws Exception {
        Broker a = node("node-a");
        Broker b = node("node-b");
        Broker c = node("node-c");
        AtomicInteger onA = new AtomicInteger();
        AtomicInteger onB = new AtomicInteger();
        SubscribeOptions workers = SubscribeOptions.defaults().queueGroup("workers");
        a.subscribe("jobs.>", m -> onA.incrementAndGet(), workers);
        b.subscribe("jobs.>", m -> onB.incrementAndGet(), workers);
        settle();
        for (int i = 0; i < 100; i++) {
            a.publish("jobs.x", "a" + i);
        }
        Await.until("a's jobs handled", () -> onA.get() == 100);
        Thread.sleep(300);
        assertThat(onB.get()).as("a member on the publishing node takes them all").isZero();
        for (int i = 0; i < 100; i++) {
            c.publish("jobs.x", "c" + i);
        }
        Await.until("c's jobs handled", () -> onA.get() + onB.get() == 200);
        Thread.sleep(500);
        assertThat(onA.get() + onB.get()).as("each job once in the federation").isEqualTo(200);
    }

    @Test
    void requestsCrossNodesAndNoRespondersAnywhereFailsThem() throws Exception {
        Broker a = node("node-a");
        Broker b = node("node-b");
        b.subscribe("svc.echo", m -> b.publish(m.replyTo(), "echo:" + text(m)),
                SubscribeOptions.defaults().mode(ExecutionMode.WORKER));
        settle();
        Message reply = a.request("svc.echo", "hi", Duration.ofSeconds(5)).get(5, TimeUnit.SECONDS);
        assertThat(text(reply)).isEqualTo("echo:hi");
        assertThatThrownBy(() -> a.request("svc.nobody", "hi", Duration.ofSeconds(5)).get(5, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(NoRespondersException.class);
    }

    @Test
    void eachPublishersOrderAndHeadersAreKept() throws Exception {
        Broker a = node("node-a");
        Broker b = node("node-b");
        List<Message> got = new CopyOnWriteArrayList<>();
        b.subscribe("seq.>", m -> got.add(m.copy()));
        settle();
        for (int i = 0; i < 2_000; i++) {
            a.publish("seq.a", null, Headers.of("n", Integer.toString(i)), Integer.toString(i));
        }
        Await.until("all arrived", () -> got.size() == 2_000);
        for (int i = 0; i < 2_000; i++) {
            assertThat(got.get(i).headers().first("n")).isEqualTo(Integer.toString(i));
            assertThat(text(got.get(i))).isEqualTo(Integer.toString(i));
        }
    }

    @Test
    void aNodeThatNeverHandlesDropsAloneCountedWhileTheOthersGetEverything() throws Exception {
        Broker a = node("node-a");
        Broker c = node("node-c");
        Broker stuck = Broker.builder().name("node-stuck").federation(NatsFederation.builder(nats.url())
                .pendingLimits(200, 256 << 10).build()).build();
        stuck.registerSubject(">", Scope.PUBLIC);
        brokers.add(stuck);
        Await.until("linked", () -> stuck.stats().federation().state().equals("CONNECTED"));
        java.util.concurrent.CountDownLatch never = new java.util.concurrent.CountDownLatch(1);
        stuck.subscribe("bulk.>", m -> {
            try {
                never.await(); // a handler that never returns
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, SubscribeOptions.defaults().mode(ExecutionMode.WORKER).bufferSize(16));
        AtomicInteger onC = new AtomicInteger();
        c.subscribe("bulk.>", m -> onC.incrementAndGet());
        settle();
        byte[] kilobyte = new byte[1024];
        for (int i = 0; i < 5_000; i++) {
            a.publish("bulk.x", kilobyte);
        }
        Await.until("the healthy node has all", () -> onC.get() == 5_000);
        Await.until("the stuck node's drops are counted", () -> stuck.stats().federation().dropped() > 0);
        assertThat(a.stats().federation().notSent()).isZero();
        never.countDown();
    }

    @Test
    void whatCannotBeSentWhileTheLinkIsDownIsCounted() throws Exception {
        Broker a = Broker.builder().name("node-a").federation(NatsFederation.builder(nats.url())
                .reconnectBufferBytes(0).reconnectWait(Duration.ofMillis(100)).build()).build();
        a.registerSubject(">", Scope.PUBLIC);
        brokers.add(a);
        Await.until("linked", () -> a.stats().federation().state().equals("CONNECTED"));
        nats.close();
        Await.until("link down", () -> !a.stats().federation().state().equals("CONNECTED"));
        for (int i = 0; i < 10; i++) {
            a.publish("orders.x", "lost-" + i);
        }
        a.publish("orders.x", new Object()); // a payload that cannot cross is counted too
        FederationStats stats = a.stats().federation();
        assertThat(stats.notSent()).isEqualTo(11);
    }
}
