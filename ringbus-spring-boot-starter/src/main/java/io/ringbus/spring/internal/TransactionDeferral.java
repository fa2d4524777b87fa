package io.ringbus.spring.internal;

import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Defers an action to after the current Spring transaction commits. Loaded only when spring-tx
 * is on the classpath (RingbusTemplate checks first).
 */
public final class TransactionDeferral {

    private TransactionDeferral() {
    }

    /**
     * Registers {@code action} to run after commit when a transaction synchronization is active
     * on this thread. Synchronizations of equal order run in registration order, so deferred
     * publishes keep their call order; on rollback none runs.
     *
     * @param action what to run after commit
     * @return {@code false} when no synchronization is active: the caller runs it now
     */
    public static boolean deferIfActive(Runnable action) {
        if (!TransactionSynchronizationManager.isSynchronizationActive()) {
            return false;
        }
        TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
            @Override
            public void afterCommit() {
                action.run();
            }
        });
        return true;
    }
}
