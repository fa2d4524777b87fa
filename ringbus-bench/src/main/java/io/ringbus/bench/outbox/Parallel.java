package io.ringbus.bench.outbox;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/** Runs one database task per thread on platform threads and waits for all of them. */
final class Parallel {
    private Parallel() {
    }

    /** A task given its thread's index. */
    @FunctionalInterface
    interface Task {
        /**
         * @param index 0 to threads - 1
         * @throws SQLException when the database fails
         */
        void run(int index) throws SQLException;
    }

    /**
     * @param threads how many
     * @param what    what they do, for the message of a failure
     * @param task    the work of each
     * @throws SQLException the first failure's, when it was one
     */
    static void run(int threads, String what, Task task) throws SQLException {
        try (ExecutorService pool = Executors.newFixedThreadPool(threads)) {
            List<Future<Void>> parts = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int index = t;
                parts.add(pool.submit(() -> {
                    task.run(index);
                    return null;
                }));
            }
            for (Future<Void> part : parts) {
                part.get();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLException("interrupted while " + what, e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof SQLException sql) {
                throw sql;
            }
            throw new IllegalStateException(what + " failed", e.getCause());
        }
    }
}
