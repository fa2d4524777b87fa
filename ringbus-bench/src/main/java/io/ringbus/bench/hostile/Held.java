package io.ringbus.bench.hostile;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The connections an attack holds open, closed together at its deadline (also when a write to a
 * server that stopped reading is blocked) or when the attack returns.
 */
final class Held implements AutoCloseable {
    private final List<Wire> wires = new CopyOnWriteArrayList<>();
    private final Thread closer;

    /** @param deadline {@link System#nanoTime()} at which everything held is closed */
    Held(long deadline) {
        closer = Thread.ofVirtual().name("hostile-closer").start(() -> {
            try {
                Attack.hold(deadline);
            } catch (InterruptedException e) {
                return;
            }
            closeAll();
        });
    }

    /**
     * @param wire a connection to hold
     * @return the same connection
     */
    Wire add(Wire wire) {
        wires.add(wire);
        return wire;
    }

    /** @return how many connections are held */
    int size() {
        return wires.size();
    }

    /** Forgets connections the server closed, so that they can be replaced. */
    void dropClosed() {
        wires.removeIf(wire -> !wire.isOpen());
    }

    private void closeAll() {
        for (Wire wire : wires) {
            wire.close();
        }
    }

    @Override
    public void close() {
        closer.interrupt();
        closeAll();
    }
}
