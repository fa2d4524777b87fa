package io.ringbus.server;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * Runs an external program (a compiler, a client test program) with a deadline, its stdout and
 * stderr merged and read line by line as they come, so that a test can react to a line (restart
 * the server when the program asks) and sees the whole output when it fails. A program still
 * running at the deadline is killed and fails the test.
 */
final class ClientProgram {
    /** What the program printed and how it ended. */
    record Result(int exitCode, String output) {
    }

    /** The build steps that succeeded in this JVM: command, directory and environment. */
    private static final Set<List<Object>> BUILT = ConcurrentHashMap.newKeySet();

    private ClientProgram() {
    }

    /**
     * Runs {@code command} in {@code directory} with {@code environment} added to ours.
     *
     * @param onLine called on the reading thread with each line as it arrives; may block (the
     *               program then waits on its full pipe)
     * @return exit code and output, once the program has ended
     * @throws AssertionError if it runs past {@code timeout} (with the output so far)
     */
    static Result run(List<String> command, Path directory, Map<String, String> environment, Duration timeout,
                      Consumer<String> onLine) throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true);
        builder.environment().putAll(environment);
        Process process = builder.start();
        process.getOutputStream().close();
        StringBuilder output = new StringBuilder();
        CompletableFuture<Void> reader = CompletableFuture.runAsync(() -> {
            try (BufferedReader lines = new BufferedReader(
                    new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                    synchronized (output) {
                        output.append(line).append('\n');
                    }
                    onLine.accept(line);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            synchronized (output) {
                throw new AssertionError(command + " did not finish within " + timeout + "; output:\n" + output);
            }
        }
        try {
            reader.get(10, TimeUnit.SECONDS); // the pipe ends with the process; a line handler's failure shows here
        } catch (ExecutionException e) {
            throw new AssertionError("handling the output of " + command + " failed; output:\n" + output, e.getCause());
        } catch (TimeoutException e) {
            throw new AssertionError("output of " + command + " still open 10 s after it ended", e);
        }
        synchronized (output) {
            return new Result(process.exitValue(), output.toString());
        }
    }

    /**
     * Runs a build step and fails the test with its output unless it exits 0. A step that
     * succeeded once in this JVM is not run again (two test classes drive the same program).
     */
    static void build(List<String> command, Path directory, Map<String, String> environment)
            throws IOException, InterruptedException {
        List<Object> key = List.of(command, directory, environment);
        if (BUILT.contains(key)) {
            return;
        }
        Result result = run(command, directory, environment, Duration.ofMinutes(3), line -> { });
        if (result.exitCode() != 0) {
            throw new AssertionError(command + " exited " + result.exitCode() + ":\n" + result.output());
        }
        BUILT.add(key);
    }

    /** @return whether {@code name} is an executable on the PATH */
    static boolean onPath(String name) {
        String path = System.getenv("PATH");
        return path != null && Arrays.stream(path.split(File.pathSeparator))
                .anyMatch(dir -> Files.isExecutable(Path.of(dir, name)));
    }
}
