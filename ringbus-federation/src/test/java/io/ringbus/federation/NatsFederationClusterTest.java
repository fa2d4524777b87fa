package io.ringbus.federation;

import io.nats.client.Connection;
import io.nats.client.Nats;
import io.ringbus.core.Broker;
import io.ringbus.core.Scope;
import io.ringbus.core.SubscribeOptions;
import io.ringbus.testkit.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Three ringbus nodes, each a client of a different server of a 3-node NATS cluster: they share
 * PUBLIC and FEDERATED subjects with no loops, a queue group across them gets each message once,
 * and PRIVATE appears on no server of the cluster.
 */
class NatsFederationClusterTest {
    @TempDir
    Path dir;

    @Test
    void threeNodesOnThreeClusterServersShareWhatMayCrossAndNothingElse() throws Exception {
        try (NatsCluster cluster = NatsCluster.start(dir, 3)) {
            List<Broker> nodes = new ArrayList<>();
            List<Connection> spies = new ArrayList<>();
            List<String> wire = new CopyOnWriteArrayList<>();
            try {
                for (int i = 0; i < 3; i++) {
                    Connection spy = Nats.connect(cluster.url(i));
                    spies.add(spy);
                    spy.createDispatcher(m -> wire.add(m.getSubject())).subscribe(">");
                    Broker node = Broker.builder().name("node-" + i)
                            .federation(NatsFederation.builder(cluster.url(i)).build()).build();
                    node.registerSubject("chat.>", Scope.FEDERATED);
                    node.registerSubject("jobs.>", Scope.PUBLIC);
                    node.registerSubject("secret.>", Scope.PRIVATE);
                    nodes.add(node);
                }
                List<List<String>> chats = new ArrayList<>();
                AtomicInteger jobs = new AtomicInteger();
                for (Broker node : nodes) {
                    List<String> got = new CopyOnWriteArrayList<>();
                    chats.add(got);
                    node.subscribe("chat.>", m -> got.add(m.payload() instanceof String s ? s
                            : new String((byte[]) m.payload(), StandardCharsets.UTF_8)));
                    node.subscribe("secret.>", m -> { });
                    node.subscribe("jobs.>", m -> jobs.incrementAndGet(),
                            SubscribeOptions.defaults().queueGroup("workers"));
                }
                // Interest travels the cluster's routes: wait until a message from every node reaches all.
                Await.until("routes carry the interest", Duration.ofSeconds(30), () -> {
                    for (int i = 0; i < nodes.size(); i++) {
                        nodes.get(i).publish("chat.probe", "probe-" + i);
                    }
                    return chats.stream().allMatch(c -> c.stream().filter(s -> s.startsWith("probe")).distinct()
                            .count() == 3);
                });
                chats.forEach(List::clear);
                for (int i = 0; i < nodes.size(); i++) {
                    nodes.get(i).publish("chat.room", "hello-" + i);
                    nodes.get(i).publish("secret.x", "private-" + i);
                }
                Await.until("each node has the three", () -> chats.stream()
                        .allMatch(c -> c.stream().filter(t -> t.startsWith("hello")).count() >= 3));
                int before = jobs.get();
                nodes.get(0).publish("jobs.a", "j1");
                nodes.get(2).publish("jobs.a", "j2");
                Await.until("jobs handled", () -> jobs.get() - before == 2);
                Thread.sleep(500);
                for (List<String> got : chats) {
                    // (probes still travelling when the lists were cleared are left out)
                    assertThat(got).filteredOn(t -> t.startsWith("hello"))
                            .containsExactlyInAnyOrder("hello-0", "hello-1", "hello-2");
                }
                assertThat(jobs.get() - before).as("each job once in the federation").isEqualTo(2);
                assertThat(wire).contains("chat.room").noneMatch(s -> s.startsWith("secret"));
            } finally {
                for (Broker node : nodes) {
                    node.close();
                }
                for (Connection spy : spies) {
                    spy.close();
                }
            }
        }
    }
}
