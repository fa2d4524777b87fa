package io.ringbus.server;

import io.ringbus.core.FsyncPolicy;
import io.ringbus.testkit.PowerLossFileSystem;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * {@code bin/soak power-loss}: {@link PowerCutRun} with many cuts for every configuration asked
 * (ringbus-server under each fsync policy, nats-server 2.9 {@code -js}; each names-durable mode;
 * each client library), then a table: server, policy, mode, client, acknowledged, acknowledged per
 * cut, lost (count and %), the oldest lost acknowledgement (how long before its kill it arrived),
 * duplicated, clean restarts / cuts. Not a test: a measurement, run by hand (a few seconds per cut).
 *
 * <pre>
 * bin/soak power-loss [--cuts 20] [--modes posix,file] [--policies always,interval,os]
 *                     [--servers ringbus,nats-server] [--clients jnats,nats.go] [--seed 30]
 *                     [--max-bytes 1048576] [--work DIR]
 * </pre>
 *
 * <p>Modes: {@code posix}, {@code file}, {@code any}, {@code immediate}
 * ({@link PowerLossFileSystem.Mode}).
 *
 * <p>{@code --work} defaults to a new directory under the system's temporary directory: its path
 * must stay short, the file system's control socket is made there.
 */
public final class PowerCutSoak {
    private PowerCutSoak() {
    }

    /**
     * Runs it; exits 1 when ringbus lost an acknowledged message under {@code always}, lost one
     * older than {@link RingbusCutTarget#INTERVAL_LOSS_BOUND} under {@code interval}, stored one
     * twice or failed to restart; 2 on a bad argument.
     *
     * @param args see the class comment
     */
    public static void main(String[] args) throws Exception {
        int cuts = 20;
        List<String> modes = List.of("posix", "file");
        List<String> policies = List.of("always", "interval", "os");
        List<String> servers = List.of("ringbus", "nats-server");
        List<String> clients = List.of("jnats", "nats.go");
        long seed = 30;
        long maxBytes = 1 << 20;
        Path work = null; // a short path: the file system's control socket lives there (108 bytes at most)
        for (int i = 0; i < args.length; i += 2) {
            if (i + 1 >= args.length) {
                usage("missing value for " + args[i]);
            }
            String v = args[i + 1];
            switch (args[i]) {
                case "--cuts" -> cuts = (int) Math.min(Integer.MAX_VALUE, number(args[i], v));
                case "--modes" -> modes = Arrays.asList(v.split(","));
                case "--policies" -> policies = Arrays.asList(v.split(","));
                case "--servers" -> servers = Arrays.asList(v.split(","));
                case "--clients" -> clients = Arrays.asList(v.split(","));
                case "--seed" -> seed = number(args[i], v);
                case "--max-bytes" -> maxBytes = number(args[i], v);
                case "--work" -> work = Path.of(v);
                default -> usage("unknown option: " + args[i]);
            }
        }
        if (cuts < 1) {
            usage("--cuts must be at least 1: --cuts=" + cuts);
        }
        List<PowerLossFileSystem.Mode> fsModes = modes.stream().map(PowerCutSoak::mode).toList();
        List<PowerCutClient> cutClients = clients.stream().map(PowerCutSoak::client).toList();
        for (String policy : policies) {
            fsyncPolicy(policy);
        }
        for (String server : servers) {
            if (!server.equals("ringbus") && !server.equals("nats-server")) {
                usage("--servers: ringbus or nats-server, not '" + server + "'");
            }
        }
        for (PowerCutClient client : cutClients) {
            if (client.missing() != null) {
                System.err.println("client " + client.label() + " unavailable: " + client.missing());
                System.exit(2);
            }
        }
        if (!PowerLossFileSystem.available()) {
            System.err.println("power-loss file system unavailable: " + PowerLossFileSystem.unavailableReason());
            System.exit(2);
        }
        boolean ownWork = work == null;
        if (ownWork) {
            work = Files.createTempDirectory("powercut");
        }
        List<PowerCutRun.Result> results = new ArrayList<>();
        int run = 0;
        for (String server : servers) {
            for (String policy : server.equals("ringbus") ? policies : List.of("default")) {
                for (PowerLossFileSystem.Mode fsMode : fsModes) {
                    for (PowerCutClient client : cutClients) {
                        PowerCutTarget target = target(server, policy, maxBytes);
                        Path dir = Files.createDirectories(work).resolve("run" + run);
                        PowerCutRun.Settings settings = new PowerCutRun.Settings(fsMode, client, cuts, seed + run++, 2,
                                150, 200, Duration.ofMillis(300), Duration.ofMillis(2_000));
                        PowerCutRun.Result result = PowerCutRun.run(target, settings, dir, System.out::println);
                        System.out.println("result (seed " + settings.seed() + "): " + result);
                        results.add(result);
                        deleteTree(dir);
                    }
                }
            }
        }
        if (ownWork) {
            deleteTree(work);
        }
        System.out.println();
        System.out.println(PowerCutRun.Result.HEADER);
        results.forEach(r -> System.out.println(r.row()));
        long bound = RingbusCutTarget.INTERVAL_LOSS_BOUND.toNanos();
        if (results.stream().anyMatch(r -> r.server().equals("ringbus") && r.policy().equals("interval"))) {
            System.out.printf(Locale.ROOT, "%nringbus interval (%d ms) may lose acknowledgements younger than %d ms "
                    + "at a kill (RingbusCutTarget.INTERVAL_LOSS_BOUND)%n", RingbusCutTarget.FSYNC_INTERVAL.toMillis(),
                    RingbusCutTarget.INTERVAL_LOSS_BOUND.toMillis());
        }
        boolean broken = results.stream().anyMatch(r -> r.server().equals("ringbus")
                && (r.failure() != null || r.duplicated() > 0
                || r.policy().equals("always") && r.lost() > 0
                || r.policy().equals("interval") && r.oldestLostNanos() >= bound));
        System.exit(broken ? 1 : 0);
    }

    private static PowerCutTarget target(String server, String policy, long maxBytes) {
        return switch (server) {
            case "ringbus" -> new RingbusCutTarget(fsyncPolicy(policy), maxBytes);
            case "nats-server" -> new NatsCutTarget(maxBytes);
            default -> throw new IllegalStateException("checked before: " + server);
        };
    }

    private static FsyncPolicy fsyncPolicy(String policy) {
        try {
            return FsyncPolicy.valueOf(policy.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            usage("--policies: always, interval or os, not '" + policy + "'");
            return null;
        }
    }

    private static PowerLossFileSystem.Mode mode(String mode) {
        try {
            return PowerLossFileSystem.Mode.valueOf(mode.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            usage("--modes: posix, file, any or immediate, not '" + mode + "'");
            return null;
        }
    }

    private static PowerCutClient client(String client) {
        try {
            return PowerCutClient.of(client);
        } catch (IllegalArgumentException e) {
            usage("--clients: " + e.getMessage());
            return null;
        }
    }

    private static long number(String option, String value) {
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            usage(option + " takes a number, not '" + value + "'");
            return 0;
        }
    }

    private static void usage(String problem) {
        System.err.println("bin/soak power-loss: " + problem + "\nusage: bin/soak power-loss [--cuts N] "
                + "[--modes posix,file,any,immediate] [--policies always,interval,os] "
                + "[--servers ringbus,nats-server] [--clients jnats,nats.go] [--seed N] [--max-bytes N] [--work DIR]");
        System.exit(2);
    }

    private static void deleteTree(Path dir) throws java.io.IOException {
        try (var all = Files.walk(dir)) {
            for (Path p : all.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
