package io.ringbus.core.internal.filter;

import java.util.HashMap;
import java.util.Map;

/**
 * The nested keys a body policy reads, as a tree: reading a JSON body keeps what lies on these
 * paths and skips the rest, so a large body costs a scan, not a copy.
 *
 * <p>Threading: filled by the compiler, then only read (published through a final field).
 */
final class BodyPaths {
    private final Map<String, BodyPaths> children = new HashMap<>();

    void add(String[] path) {
        BodyPaths node = this;
        for (String name : path) {
            node = node.children.computeIfAbsent(name, n -> new BodyPaths());
        }
    }

    /** Adds every path of {@code other} (the union reads what either policy reads). */
    void addAll(BodyPaths other) {
        for (Map.Entry<String, BodyPaths> entry : other.children.entrySet()) {
            children.computeIfAbsent(entry.getKey(), n -> new BodyPaths()).addAll(entry.getValue());
        }
    }

    /**
     * @param name an object key
     * @return the paths below it, or {@code null} when the policy reads nothing there
     */
    BodyPaths child(String name) {
        return children.get(name);
    }

    /** @return whether the policy reads keys below this one (else this is a leaf: only its value matters) */
    boolean hasChildren() {
        return !children.isEmpty();
    }
}
