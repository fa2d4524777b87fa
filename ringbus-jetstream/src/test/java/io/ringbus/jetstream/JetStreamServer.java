package io.ringbus.jetstream;

import io.ringbus.core.Broker;
import io.ringbus.core.Scope;
import io.ringbus.core.Storage;
import io.ringbus.server.RingbusServer;
import io.ringbus.server.ServerConfig;

import java.nio.file.Path;
import java.util.function.UnaryOperator;

/**
 * A ringbus-server with JetStream's API in this JVM, its store under a test's directory, on a
 * free port; closed with its broker.
 *
 * @param broker the broker
 * @param server the server
 */
record JetStreamServer(Broker broker, RingbusServer server) implements AutoCloseable {
    static JetStreamServer start(Path store) {
        return start(store, UnaryOperator.identity());
    }

    static JetStreamServer start(Path store, UnaryOperator<ServerConfig.Builder> more) {
        return start(Storage.local(store), more);
    }

    /** A server on {@code storage} (a store with settings of its own). */
    static JetStreamServer start(Storage storage, UnaryOperator<ServerConfig.Builder> more) {
        Broker broker = Broker.builder().defaultScope(Scope.PUBLIC).storage(storage).build();
        try {
            ServerConfig config = more.apply(ServerConfig.builder().host("127.0.0.1").port(0)
                    .monitorPort(ServerConfig.MONITOR_OFF).extension(new JetStreamExtension())).build();
            return new JetStreamServer(broker, RingbusServer.start(broker, config));
        } catch (RuntimeException e) {
            broker.close();
            throw e;
        }
    }

    /** A server with its monitoring port on, on a free port ({@link #monitorPort()}). */
    static JetStreamServer startMonitored(Path store, UnaryOperator<ServerConfig.Builder> more) {
        return start(store, builder -> more.apply(builder.monitorPort(0)));
    }

    int monitorPort() {
        return server.monitorPort();
    }

    String url() {
        return "nats://127.0.0.1:" + server.port();
    }

    @Override
    public void close() {
        server.close();
        broker.close();
    }
}
