package io.ringbus.federation;

import io.ringbus.testkit.ChildJvm;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * ringbus-server's command line ({@code RingbusServerMain}) in a JVM of its own, on this module's
 * test class path: the server with ringbus-federation beside it, as in the runnable jar, so that
 * {@code --federation} and {@code --storage-jetstream} find their plug-ins. Free loopback ports;
 * the log is kept for assertions.
 */
final class StandaloneServer implements AutoCloseable {
    private static final Pattern LISTENING = Pattern.compile("listening on 127\\.0\\.0\\.1:(\\d+)");
    private static final Pattern DASHBOARD = Pattern.compile("dashboard at http://127\\.0\\.0\\.1:(\\d+)/");

    private final Process process;
    private final List<String> log = new ArrayList<>();
    private volatile int port;
    private volatile int monitorPort;

    private StandaloneServer(Process process) {
        this.process = process;
    }

    /**
     * Starts a server and waits (at most 60 s) until its monitoring port is up.
     *
     * @param args the server's arguments besides host and ports
     * @return the running server
     */
    static StandaloneServer start(String... args) {
        List<String> command = new ArrayList<>(List.of(ChildJvm.java(), "-Xmx128m"));
        command.addAll(ChildJvm.serverOptions());
        command.addAll(List.of("-Dorg.slf4j.simpleLogger.defaultLogLevel=info", "-cp", ChildJvm.classPath(),
                "io.ringbus.server.RingbusServerMain", "--host", "127.0.0.1", "--port", "0", "--http-port", "0"));
        command.addAll(List.of(args));
        try {
            StandaloneServer server = new StandaloneServer(new ProcessBuilder(command).redirectErrorStream(true).start());
            server.awaitStarted();
            return server;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void awaitStarted() {
        CountDownLatch ready = new CountDownLatch(1);
        Thread.ofPlatform().daemon().name("standalone-server-log").start(() -> {
            try (BufferedReader in = new BufferedReader(
                    new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    synchronized (log) {
                        log.add(line);
                    }
                    Matcher listening = LISTENING.matcher(line);
                    if (listening.find()) {
                        port = Integer.parseInt(listening.group(1));
                    }
                    Matcher dashboard = DASHBOARD.matcher(line);
                    if (dashboard.find()) {
                        monitorPort = Integer.parseInt(dashboard.group(1));
                        ready.countDown();
                    }
                }
            } catch (IOException ignored) {
                // the process ended
            }
            ready.countDown();
        });
        try {
            if (!ready.await(60, TimeUnit.SECONDS) || port == 0 || monitorPort == 0) {
                process.destroyForcibly();
                throw new AssertionError("ringbus-server did not start; log: " + log());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** @return the NATS client port */
    int port() {
        return port;
    }

    /** @return the body that {@code path} on the monitoring port answers */
    String monitor(String path) {
        try (InputStream in = URI.create("http://127.0.0.1:" + monitorPort + path).toURL().openStream()) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new AssertionError("no answer from " + path + " (server alive: " + process.isAlive() + ")", e);
        }
    }

    /** @return the server's log so far */
    List<String> log() {
        synchronized (log) {
            return List.copyOf(log);
        }
    }

    @Override
    public void close() {
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
