package io.ringbus.testkit;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the machine must have for {@link PowerLossFileSystem}, probed once: Linux, root (libfuse 2
 * mounts directly as root; Debian's fuse3 brings no fusermount for it), /dev/fuse, fusermount3
 * and a python3 that imports fusepy; and the mount table.
 *
 * <p>Threading: the probe runs once, on first use, under the class's initialization lock.
 */
final class PowerLossHost {
    /** Debian's python3-fusepy is installed for Debian's python3, not a pyenv or venv one first on PATH. */
    private static final List<String> PYTHONS = List.of("/usr/bin/python3", "python3");
    private static final Pattern OCTAL = Pattern.compile("\\\\([0-7]{3})");
    private static final String PYTHON;
    private static final String REASON;

    static {
        String python = null;
        String reason = null;
        if (!System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT).contains("linux")) {
            reason = "not Linux";
        } else if (!isRoot()) {
            reason = "not root (mounting with libfuse 2 needs root)";
        } else if (!Files.isReadable(Path.of("/dev/fuse")) || !Files.isWritable(Path.of("/dev/fuse"))) {
            reason = "no usable /dev/fuse";
        } else if (!onPath("fusermount3")) {
            reason = "no fusermount3 (apt-get install fuse3)";
        } else {
            for (String candidate : PYTHONS) {
                if (run(List.of(candidate, "-c", "import fusepy")) == 0
                        || run(List.of(candidate, "-c", "import fuse; fuse.FUSE")) == 0) {
                    python = candidate;
                    break;
                }
            }
            if (python == null) {
                reason = "no python3 that imports fusepy (apt-get install python3-fusepy)";
            }
        }
        PYTHON = python;
        REASON = reason;
    }

    private PowerLossHost() {
    }

    static String unavailableReason() {
        return REASON;
    }

    static String python() {
        return PYTHON;
    }

    /** @return whether {@code dir} (a real path) is a mount point, from /proc/self/mountinfo */
    static boolean isMounted(Path dir) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/mountinfo"))) {
                String[] fields = line.split(" ");
                if (fields.length > 4 && unescape(fields[4]).equals(dir.toString())) {
                    return true;
                }
            }
            return false;
        } catch (IOException e) {
            throw new IllegalStateException("cannot read /proc/self/mountinfo", e);
        }
    }

    /** Runs a command to its end (at most 30 s), its output discarded. @return its exit status, -1 if it failed */
    static int run(List<String> command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return -1;
            }
            return p.exitValue();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    private static String unescape(String field) {
        Matcher m = OCTAL.matcher(field);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(out, Matcher.quoteReplacement(String.valueOf((char) Integer.parseInt(m.group(1), 8))));
        }
        return m.appendTail(out).toString();
    }

    private static boolean isRoot() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("Uid:")) {
                    return line.split("\\s+")[1].equals("0");
                }
            }
        } catch (IOException e) {
            return false;
        }
        return false;
    }

    private static boolean onPath(String program) {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(File.pathSeparator)) {
            if (Files.isExecutable(Path.of(dir, program))) {
                return true;
            }
        }
        return false;
    }
}
