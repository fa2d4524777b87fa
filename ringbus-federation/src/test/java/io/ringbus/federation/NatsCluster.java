package io.ringbus.federation;

import io.ringbus.testkit.LoopbackPorts;
import io.ringbus.testkit.Await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A nats-server cluster of a test's own: {@code size} servers on free loopback ports, routed to each
 * other, with JetStream (store per server under the test's directory). Skipped without the binary.
 */
final class NatsCluster implements AutoCloseable {
    private static final Path BINARY = Path.of("/usr/sbin/nats-server");

    private final List<Process> servers = new ArrayList<>();
    private final int[] clientPorts;

    private NatsCluster(int size) {
        this.clientPorts = new int[size];
    }

    static NatsCluster start(Path dir, int size) throws IOException {
        assumeTrue(Files.isExecutable(BINARY), "needs " + BINARY);
        NatsCluster cluster = new NatsCluster(size);
        int[] routePorts = new int[size];
        for (int i = 0; i < size; i++) {
            cluster.clientPorts[i] = LoopbackPorts.free();
            routePorts[i] = LoopbackPorts.free();
        }
        for (int i = 0; i < size; i++) {
            StringBuilder routes = new StringBuilder();
            for (int j = 0; j < size; j++) {
                if (j != i) {
                    routes.append(routes.isEmpty() ? "" : ", ").append("nats-route://127.0.0.1:").append(routePorts[j]);
                }
            }
            Path conf = dir.resolve("n" + i + ".conf");
            Files.writeString(conf, "server_name: n" + i + "\nlisten: 127.0.0.1:" + cluster.clientPorts[i]
                    + "\njetstream { store_dir: \"" + dir.resolve("store" + i) + "\" }\n"
                    + "cluster { name: ringbus-test, listen: 127.0.0.1:" + routePorts[i] + ", routes: [" + routes
                    + "] }\n");
            cluster.servers.add(new ProcessBuilder(BINARY.toString(), "-c", conf.toString()).redirectErrorStream(true)
                    .redirectOutput(dir.resolve("n" + i + ".log").toFile()).start());
        }
        for (int port : cluster.clientPorts) {
            Await.until("nats-server on " + port, () -> LoopbackPorts.accepting(port));
        }
        return cluster;
    }



    /** @return server {@code i}'s client URL */
    String url(int i) {
        return "nats://127.0.0.1:" + clientPorts[i];
    }

    /** @return every server's client URL, comma-separated */
    String urls() {
        StringBuilder all = new StringBuilder();
        for (int i = 0; i < clientPorts.length; i++) {
            all.append(i == 0 ? "" : ",").append(url(i));
        }
        return all.toString();
    }

    /** Kills server {@code i} with SIGKILL. */
    void kill(int i) throws InterruptedException {
        servers.get(i).destroyForcibly().waitFor();
    }

    @Override
    public void close() {
        for (Process server : servers) {
            server.destroyForcibly();
        }
        for (Process server : servers) {
            try {
                server.waitFor();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
