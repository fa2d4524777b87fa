package io.ringbus.testkit;

import java.io.File;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * What a test needs to start another JVM on the same code: the java launcher and a class path.
 *
 * <p>Threading: static methods without state; safe from any thread.
 */
public final class ChildJvm {
    private ChildJvm() {
    }

    /** @return the {@code java} launcher of the running JVM */
    public static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /**
     * The JVM options a server child starts with, as bin/run and the distribution's launcher give
     * them, so that JDK 24+ prints no WARNING: native access for Netty's epoll library (the class
     * path is unnamed), and {@code sun.misc.Unsafe} memory access for Netty's buffers (an option
     * from JDK 23 on).
     *
     * @return the options, for the {@code java} of {@link #java()}
     */
    public static List<String> serverOptions() {
        return Runtime.version().feature() >= 23
                ? List.of("--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow")
                : List.of("--enable-native-access=ALL-UNNAMED");
    }

    /**
     * The running JVM's module path and class path as one class path: the tests run inside their
     * module (surefire's module path), a child runs the same jars unnamed.
     *
     * @return a value for {@code -cp}
     */
    public static String classPath() {
        return Stream.of(System.getProperty("jdk.module.path"), System.getProperty("java.class.path"))
                .filter(Objects::nonNull).filter(p -> !p.isEmpty()).collect(Collectors.joining(File.pathSeparator));
    }
}
