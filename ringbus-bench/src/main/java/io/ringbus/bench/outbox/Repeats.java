package io.ringbus.bench.outbox;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Predicate;
import java.util.function.ToDoubleFunction;

/**
 * Several runs of one measurement reduced to one result: the first failed run if any (a failure
 * is never hidden by a median), otherwise the median run by rate, told how many runs there were
 * and the slowest and fastest rate among them.
 */
final class Repeats {
    private Repeats() {
    }

    /**
     * Builds the reported result from the median run.
     *
     * @param <T> the result type
     */
    @FunctionalInterface
    interface Spread<T> {
        /**
         * @param median the median run
         * @param runs   how many runs
         * @param min    the slowest rate
         * @param max    the fastest rate
         * @return the median with the spread
         */
        T of(T median, int runs, double min, double max);
    }

    /**
     * @param runs     runs of one measurement, at least one
     * @param rate     a run's rate (higher is faster)
     * @param verified whether a run verified
     * @param spread   how to attach the spread to the median
     * @param <T>      the result type
     * @return the first failed run, or the median with the spread
     */
    static <T> T median(List<T> runs, ToDoubleFunction<T> rate, Predicate<T> verified, Spread<T> spread) {
        for (T run : runs) {
            if (!verified.test(run)) {
                return run;
            }
        }
        List<T> sorted = new ArrayList<>(runs);
        sorted.sort(Comparator.comparingDouble(rate));
        return spread.of(sorted.get(sorted.size() / 2), runs.size(), rate.applyAsDouble(sorted.getFirst()),
                rate.applyAsDouble(sorted.getLast()));
    }
}
