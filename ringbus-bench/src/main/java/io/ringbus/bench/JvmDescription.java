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

    /**
     * Writes this description as members of the current JSON object.
     *
     * @param json a writer positioned inside an object
     */
    public void writeMembers(JsonWriter json) {
        json.name("jvm").beginObject()
                .name("vmName").value(vmName)
                .name("version").value(version)
                .name("vendor").value(vendor)
                .name("maxHeapMiB").value(maxHeapMiB)
                .endObject();
        json.name("cores").value(cores);
    }
}
