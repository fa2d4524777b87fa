package io.ringbus.testkit;

import java.nio.file.Path;

/** A JVM that mounts a {@link PowerLossFileSystem} and never closes it: killed or stopped by the test. */
public final class PowerLossMountChild {
    private PowerLossMountChild() {
    }

    /**
     * Mounts at {@code args[0]} over {@code args[1]}, prints "mounted", then waits to be killed.
     *
     * @param args the mount point and the backing directory
     * @throws Exception when it cannot mount
     */
    public static void main(String[] args) throws Exception {
        PowerLossFileSystem.mount(Path.of(args[0]), Path.of(args[1]), PowerLossFileSystem.Mode.POSIX);
        System.out.println("mounted");
        Thread.sleep(Long.MAX_VALUE);
    }
}
