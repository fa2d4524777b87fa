package io.ringbus.server.internal;

import io.ringbus.core.Broker;
import io.ringbus.core.Scope;
import io.ringbus.server.ServerConfig;

import java.util.ArrayList;
import java.util.List;

/**
 * Test fixture: one server's shared state ({@link ServerContext} over a fresh broker) whose
 * client connections are {@link EmbeddedClient}s, the real pipeline on Netty's
 * {@code EmbeddedChannel}: no sockets, no threads, time advanced by hand. Closing it closes every
 * connection it made, then the broker.
 */
final class EmbeddedServer implements AutoCloseable {
    final Broker broker;
    final ServerContext context;
    private final List<EmbeddedClient> clients = new ArrayList<>();

    EmbeddedServer(ServerConfig config) {
        this.broker = Broker.builder().name("embedded").defaultScope(Scope.PUBLIC).build();
        this.context = new ServerContext(broker, config);
    }

    /** @return a server with the default settings */
    static EmbeddedServer defaults() {
        return new EmbeddedServer(ServerConfig.defaults());
    }

    /** @return a new connection: active, its INFO written and not yet read */
    EmbeddedClient connect() {
        EmbeddedClient client = new EmbeddedClient(context);
        clients.add(client);
        return client;
    }

    /**
     * @param connectJson the CONNECT's options, e.g. {@code {"verbose":false}}
     * @return a new connection that has sent CONNECT and PING and got its PONG; its output read
     */
    EmbeddedClient connect(String connectJson) {
        EmbeddedClient client = connect();
        client.output();
        String answer = client.send("CONNECT " + connectJson + "\r\nPING\r\n").output();
        if (!answer.endsWith("PONG\r\n")) {
            throw new AssertionError("CONNECT " + connectJson + " was answered: " + answer);
        }
        return client;
    }

    @Override
    public void close() {
        for (EmbeddedClient client : clients) {
            client.close();
        }
        broker.close();
        context.close();
    }
}
