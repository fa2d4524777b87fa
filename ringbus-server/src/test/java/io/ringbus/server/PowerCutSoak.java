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
 * (ringbus-server under each fsync policy, nats-server 2.9 {@code -js}; each names-durable mode),
 * then a table: server, policy, mode, acknowledged, lost (count and %), duplicated, clean restarts
 * / cuts. Not a test: a measurement, run by hand (a few seconds per cut).
 *
 * <pre>
 * bin/soak power-loss [--cuts 20] [--modes posix,file] [--policies always,interval,os]
 *                     [--servers ringbus,nats-server] [--seed 30] [--max-bytes 1048576] [--work DIR]
 * </pre>
 *
 * <p>{@code --work} defaults to a new directory under the system's temporary directory: its path
 * must stay short, the file system's control socket is made there.
 */
public final class PowerCutSoak {
    private PowerCutSoak() {
    }

    /**
     * Runs it; exits 1 when an acknowledged message was lost under ringbus' {@code always} or a
     * ringbus restart failed, 2 on a bad argument.
     *
     * @param args see the class comment
     */
    public static void main(String[] args) throws Exception {
        int cuts = 20;
        List<String> modes = List.of("posix", "file");
        List<String> policies = List.of("always", "interval", "os");
        List<String> servers = List.of("ringbus", "nats-server");
        long seed = 30;
        long maxBytes = 1 << 20;
        Path work = null; // a short path: the file system's control socket lives there (108 bytes at most)
        for (int i = 0; i < args.length; i += 2) {
            if (i + 1 >= args.length) {
                usage("missing value for " + args[i]);
            }
            String v = args[i + 1];
            switch (args[i]) {
                case "--cuts" -> cuts = Integer.parseInt(v);
                case "--modes" -> modes = Arrays.asList(v.split(","));
                case "--policies" -> policies = Arrays.asList(v.split(","));
                case "--servers" -> servers = Arrays.asList(v.split(","));
                case "--seed" -> seed = Long.parseLong(v);
                case "--max-bytes" -> maxBytes = Long.parseLong(v);
                case "--work" -> work = Path.of(v);
                default -> usage("unknown option: " + args[i]);
            }
        }
        if (cuts < 1) {
            usage("--cuts must be at least 1: --cuts=" + cuts);
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
                for (String mode : modes) {
                    PowerCutTarget target = target(server, policy, maxBytes);
                    PowerLossFileSystem.Mode fsMode = PowerLossFileSystem.Mode.valueOf(mode.toUpperCase(Locale.ROOT));
                    Path dir = Files.createDirectories(work).resolve("run" + run);
                    PowerCutRun.Settings settings = new PowerCutRun.Settings(fsMode, cuts, seed + run++, 2, 150, 200,
                            Duration.ofMillis(300), Duration.ofMillis(2_000));
                    PowerCutRun.Result result = PowerCutRun.run(target, settings, dir, System.out::println);
                    System.out.println("result (seed " + settings.seed() + "): " + result);
                    results.add(result);
                    deleteTree(dir);
                }
            }
        }
        if (ownWork) {
            deleteTree(work);
        }
        System.out.println();
        System.out.println("| server | policy | names durable | acknowledged | lost | duplicated | clean restarts / cuts |");
        System.out.println("|---|---|---|---|---|---|---|");
        results.forEach(r -> System.out.println(r.row()));
        boolean broken = results.stream().anyMatch(r -> r.server().equals("ringbus")
                && (r.failure() != null || r.policy().equals("always") && (r.lost() > 0 || r.duplicated() > 0)));
        System.exit(broken ? 1 : 0);
    }

    private static PowerCutTarget target(String server, String policy, long maxBytes) {
        return switch (server) {
            case "ringbus" -> new RingbusCutTarget(FsyncPolicy.valueOf(policy.toUpperCase(Locale.ROOT)), maxBytes);
            case "nats-server" -> new NatsCutTarget(maxBytes);
            default -> {
                usage("--servers: ringbus or nats-server, not " + server);
                yield null;
            }
        };
    }

    private static void usage(String problem) {
        System.err.println("bin/soak power-loss: " + problem + "\nusage: bin/soak power-loss [--cuts N] "
                + "[--modes posix,file,any,immediate] [--policies always,interval,os] "
                + "[--servers ringbus,nats-server] [--seed N] [--max-bytes N] [--work DIR]");
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
