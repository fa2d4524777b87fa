package io.ringbus.testkit;

import java.io.File;
import java.nio.file.Path;
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
