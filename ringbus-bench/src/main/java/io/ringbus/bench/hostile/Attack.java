package io.ringbus.bench.hostile;

import java.util.Objects;
import java.util.Set;

/**
 * One hostile or careless client behaviour, sent byte for byte to whichever server is attacked.
 *
 * @param name        short name ({@code --only} takes it)
 * @param description what the client does, in a line
 * @param covers      the kinds of request it exercises, from {@code io.ringbus.server.ServerRequests}
 * @param natsToo     whether nats-server has the feature, so the same bytes are sent to it too
 * @param bystander   whether a JetStream user of another stream is measured too ({@link Probes#jetStream})
 * @param prepare     what must exist before the probes start (a stream on nats-server, ...)
 * @param body        the attack itself
 */
record Attack(String name, String description, Set<String> covers, boolean natsToo, boolean bystander, Step prepare,
              Step body) {
    /** One part of an attack. */
    @FunctionalInterface
    interface Step {
        /**
         * @param target   the server
         * @param deadline {@link System#nanoTime()} at which the attack stops sending and releases
         *                 what it holds
         * @throws Exception when the attack cannot go on; the run records it
         */
        void run(Target target, long deadline) throws Exception;
    }

    /** A step that does nothing. */
    static final Step NOTHING = (target, deadline) -> { };

    Attack {
        Objects.requireNonNull(name, "name");
        covers = Set.copyOf(covers);
    }

    /** An attack with no preparation. */
    static Attack of(String name, String description, Set<String> covers, boolean natsToo, Step body) {
        return new Attack(name, description, covers, natsToo, false, NOTHING, body);
    }

    /**
     * An attack on JetStream, sent to both servers, with a JetStream user of another stream measured
     * ({@link Probes#jetStream}).
     */
    static Attack jetStream(String name, String description, Set<String> covers, Step prepare, Step body) {
        return new Attack(name, description, covers, true, true, prepare, body);
    }

    /** @return whether the deadline has passed */
    static boolean over(long deadline) {
        return System.nanoTime() - deadline >= 0;
    }

    /** Sleeps until the deadline (the attack holds what it opened meanwhile). */
    static void hold(long deadline) throws InterruptedException {
        long left = deadline - System.nanoTime();
        if (left > 0) {
            Thread.sleep(left / 1_000_000, (int) (left % 1_000_000));
        }
    }
}
