package io.ringbus.bench.hostile;

import io.ringbus.bench.network.EphemeralPorts;
import io.ringbus.bench.network.ServerBinaries;
import io.ringbus.bench.network.ServerCpu;
import io.ringbus.bench.network.ServerKind;
import io.ringbus.bench.network.ServerProcess;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs one attack against a fresh server: ringbus-server with a small heap ({@code -Xmx}, default
 * 128 MiB, the issue's) or nats-server, both given {@link HostileConfig}; the healthy clients of
 * {@link Probes} measure while the attack runs; then the server must still be up, free of
 * OutOfMemoryError, and log in a fresh client.
 */
final class HostileRun {
    private final ServerBinaries binaries;
    private final HostileConfig config;
    private final String heap;
    private final Duration duration;
    private final Path workDir;
    private final PrintStream progress;
    private final ServerCpu cpu = ServerCpu.ofThisMachine();

    /**
     * @param binaries where the servers are; without a ringbus-server jar, ringbus-server runs from this
     *                 JVM's class path
     * @param config   the users and streams both servers get
     * @param heap     ringbus-server's {@code -Xmx}
     * @param duration how long each attack runs
     * @param workDir  logs, configuration files and stores
     * @param progress where progress goes
     */
    HostileRun(ServerBinaries binaries, HostileConfig config, String heap, Duration duration, Path workDir,
               PrintStream progress) {
        this.binaries = binaries;
        this.config = config;
        this.heap = heap;
        this.duration = duration;
        this.workDir = workDir;
        this.progress = progress;
    }

    /**
     * @param attack the attack
     * @param kind   the server
     * @return what happened
     * @throws IOException when the server cannot be started
     */
    HostileResult run(Attack attack, ServerKind kind) throws IOException, InterruptedException {
        Path dir = Files.createDirectories(workDir.resolve(attack.name() + "-" + kind.label()));
        Path configFile = kind == ServerKind.RINGBUS ? config.writeRingbus(dir) : config.writeNats(dir);
        Path log = dir.resolve(kind.label() + ".log");
        progress.printf("  %s vs %s (log %s)%n", attack.name(), kind.label(), log);
        Started started = start(kind, configFile, log);
        try (ServerProcess server = started.server()) {
            Target target = started.target();
            try {
                attack.prepare().run(target, System.nanoTime() + duration.toNanos());
            } catch (Exception e) {
                throw new IOException(attack.name() + " could not be prepared on " + kind.label() + ": " + e, e);
            }
            List<Probe> probes = new ArrayList<>(List.of(Probes.roundTrip(target), Probes.login(target),
                    Probes.healthz(target)));
            if (attack.bystander()) {
                Probes.createBystander(target);
                probes.add(Probes.jetStream(target));
            }
            probes.forEach(Probe::start);
            long cpuBefore = cpu.ticks(server.pid());
            long start = System.nanoTime();
            long deadline = start + duration.toNanos();
            AtomicReference<String> attackError = new AtomicReference<>();
            Thread attacking = Thread.ofPlatform().name("hostile-" + attack.name()).start(() -> {
                try {
                    attack.body().run(target, deadline);
                } catch (Exception e) {
                    attackError.set(e.toString());
                }
            });
            // The attack releases what it holds at its deadline; a stuck one is left behind.
            attacking.join(duration.toMillis() + 30_000);
            double seconds = (System.nanoTime() - start) / 1e9;
            long cpuNanos = cpu.nanos(cpuBefore, cpu.ticks(server.pid()));
            List<Probe.Figures> figures = new ArrayList<>();
            for (Probe probe : probes) {
                probe.close();
                figures.add(probe.figures());
            }
            boolean healthyAfter = server.isAlive() && healthy(target);
            return new HostileResult(attack.name(), kind.label(), server.isAlive(),
                    server.log().contains("OutOfMemoryError"), healthyAfter, attackError.get(), figures,
                    cpuNanos < 0 ? -1 : cpuNanos / 1_000_000, seconds, List.copyOf(target.notes()));
        }
    }

    private record Started(ServerProcess server, Target target) {
    }

    /**
     * Starts the server on fresh ports and waits for its monitoring port. A server that exits
     * while starting (a port taken between the pick and its bind) is started again on other ports,
     * three times at most.
     */
    private Started start(ServerKind kind, Path configFile, Path log) throws IOException, InterruptedException {
        for (int attempt = 1; ; attempt++) {
            int port = EphemeralPorts.pick();
            int monitorPort = EphemeralPorts.pick();
            List<String> command = kind == ServerKind.RINGBUS && binaries.ringbusJar() == null
                    ? fromClassPath(port, monitorPort, configFile)
                    : kind.command(binaries, port, monitorPort, heap, List.of(), configFile);
            ServerProcess server = null;
            try {
                server = ServerProcess.start(kind.label(), command, port, log, Duration.ofSeconds(60));
                Target target = new Target(kind, port, monitorPort);
                awaitMonitor(target, server);
                return new Started(server, target);
            } catch (IOException e) {
                boolean exited = server == null || !server.isAlive();
                if (server != null) {
                    server.close();
                }
                if (!exited || attempt == 3) {
                    throw e;
                }
                progress.printf("  %s exited while starting (attempt %d), starting it on other ports: %s%n",
                        kind.label(), attempt, e.getMessage().lines().findFirst().orElse(""));
            }
        }
    }

    /** ringbus-server from this JVM's class path (tests, where the server jar may not be built yet). */
    private List<String> fromClassPath(int port, int monitorPort, Path configFile) {
        return List.of(binaries.java().toString(), "-Xmx" + heap, "-XX:MaxDirectMemorySize=" + heap,
                "-cp", System.getProperty("java.class.path"), "io.ringbus.server.RingbusServerMain",
                "--host", "127.0.0.1", "--port", Integer.toString(port), "--http-port", Integer.toString(monitorPort),
                "--config", configFile.toString());
    }

    private static boolean healthy(Target target) {
        try (Wire fresh = target.login("alice")) {
            fresh.send("PING\r\n");
            fresh.expectPong();
            return target.monitor("/healthz", null) == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static void awaitMonitor(Target target, ServerProcess server) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (true) {
            try {
                if (target.monitor("/healthz", null) == 200) {
                    return;
                }
            } catch (IOException notYet) {
                if (!server.isAlive() || System.nanoTime() - deadline > 0) {
                    throw new IOException("the monitoring port " + target.monitorPort() + " does not answer /healthz ("
                            + notYet + "); server " + (server.isAlive() ? "running" : "exited") + ", its log:\n"
                            + server.logTail(20), notYet);
                }
            }
            Thread.sleep(50);
        }
    }
}
