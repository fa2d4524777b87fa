package io.ringbus.server;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * ringbus-server as users run it: {@code RingbusServerMain} in a JVM of its own, with a heap as
 * small as a test needs, on free loopback ports (never 4222). Its log is kept for assertions.
 */
final class ForkedServer implements AutoCloseable {
    private static final Pattern LISTENING = Pattern.compile("listening on 127\\.0\\.0\\.1:(\\d+)");
    private static final Pattern DASHBOARD = Pattern.compile("dashboard at http://127\\.0\\.0\\.1:(\\d+)/");
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private final Process process;
    private final List<String> log = Collections.synchronizedList(new ArrayList<>());
    private volatile int port;
    private volatile int monitorPort;

    private ForkedServer(Process process) {
        this.process = process;
    }

    /**
     * Starts a server and waits until it listens.
     *
     * @param heap the {@code -Xmx} value, e.g. {@code "128m"}
     * @param args extra server arguments
     */
    static ForkedServer start(String heap, String... args) {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx" + heap, "-XX:MaxDirectMemorySize=" + heap));
        command.addAll(io.ringbus.testkit.ChildJvm.serverOptions());
        command.addAll(List.of(
                // The test classpath logs at WARN; the start line (with the ports) is INFO.
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=info",
                "-cp", io.ringbus.testkit.ChildJvm.classPath(),
                "io.ringbus.server.RingbusServerMain", "--host", "127.0.0.1", "--port", "0", "--http-port", "0"));
        command.addAll(List.of(args));
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            ForkedServer server = new ForkedServer(process);
            server.readLog();
            return server;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void readLog() {
        CountDownLatch ready = new CountDownLatch(1);
        Thread.ofPlatform().daemon().name("forked-server-log").start(() -> {
            try (BufferedReader in = new BufferedReader(
                    new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    log.add(line);
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
                throw new AssertionError("forked server did not start; log: " + log);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    int port() {
        return port;
    }

    long pid() {
        return process.pid();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** @return what {@code path} on the monitoring port answers (status and body); fails on no answer */
    HttpResponse<String> monitor(String path) {
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + monitorPort + path))
                    .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new AssertionError("no answer from " + path + " (server alive: " + process.isAlive() + ")", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** Sends a signal ({@code TERM}, {@code INT}) and waits for the exit status. */
    int signalAndWait(String signal) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + signal, String.valueOf(process.pid())).start();
        kill.waitFor(10, TimeUnit.SECONDS);
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("server did not stop on SIG" + signal + "; log: " + log);
        }
        return process.exitValue();
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
