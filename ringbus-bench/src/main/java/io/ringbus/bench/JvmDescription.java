package io.ringbus.bench;

/**
 * What the numbers were measured on: the JVM and the processors it may use.
 *
 * @param vmName      {@code java.vm.name}
 * @param version     {@code java.runtime.version}
 * @param vendor      {@code java.vm.vendor}
 * @param cores       {@link Runtime#availableProcessors()}
 * @param maxHeapMiB  {@link Runtime#maxMemory()} in MiB
 */
public record JvmDescription(String vmName, String version, String vendor, int cores, long maxHeapMiB) {

    /** @return a description of the running JVM */
    public static JvmDescription current() {
        Runtime runtime = Runtime.getRuntime();
        return new JvmDescription(System.getProperty("java.vm.name"), System.getProperty("java.runtime.version"),
                System.getProperty("java.vm.vendor"), runtime.availableProcessors(), runtime.maxMemory() >> 20);
    }

    /** @return one line for a report header */
    public String headline() {
        return "JVM: " + vmName + " " + version + " (" + vendor + "), cores: " + cores + ", max heap: " + maxHeapMiB + " MiB";
    }

    /** @return the JVM part of this description, as the results documents hold it (cores sit beside it) */
    public Vm vm() {
        return new Vm(vmName, version, vendor, maxHeapMiB);
    }

    /**
     * The {@code jvm} object of every results document.
     *
     * @param vmName     {@code java.vm.name}
     * @param version    {@code java.runtime.version}
     * @param vendor     {@code java.vm.vendor}
     * @param maxHeapMiB {@link Runtime#maxMemory()} in MiB
     */
    public record Vm(String vmName, String version, String vendor, long maxHeapMiB) {
    }
}
