package io.ringbus.bench.network;

import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.Collection;
import java.util.EnumSet;
import java.util.Set;

/**
 * The options that say where the programs of a server comparison are, mixed into a command with
 * picocli's {@code @Mixin}: {@code --server-jar}, {@code --nats-server} and {@code --natsload}.
 * Each is looked for in its usual place when not given.
 */
public final class PeerBinaries {
    @Option(names = "--server-jar", description = "ringbus-server.jar (default: ringbus-jetstream/target/ beside this jar)")
    Path serverJar;

    @Option(names = "--nats-server", description = "the nats-server binary (default: on PATH or /usr/sbin; bin/bench-deps installs it)")
    Path natsServer;

    @Option(names = "--natsload", description = "the natsload binary (default: target/natsload beside this jar; bin/bench builds it)")
    Path natsload;

    /** Creates the options; picocli fills them in. */
    public PeerBinaries() {
    }

    /**
     * @param kinds the servers that will run
     * @return where java, the ringbus-server jar and nats-server are, as far as those servers need them
     * @throws IllegalArgumentException saying what is missing and how to get it
     * @see ServerBinaries#locate(Set, Path, Path)
     */
    public ServerBinaries servers(Collection<ServerKind> kinds) {
        Set<ServerKind> needed = EnumSet.noneOf(ServerKind.class);
        needed.addAll(kinds);
        return ServerBinaries.locate(needed, serverJar, natsServer);
    }

    /**
     * @return the load generator
     * @throws IllegalArgumentException saying how to build it when it is not found
     * @see NatsLoad#locate(Path)
     */
    NatsLoad natsload() {
        return NatsLoad.locate(natsload);
    }
}
