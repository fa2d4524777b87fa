package io.ringbus.bench;

import java.util.Arrays;

/** The median that every report gives of its measured runs: the mean of the middle two for an even count. */
public final class Median {
    private Median() {
    }

    /**
     * @param values the runs' figures, in any order; not changed
     * @return their median
     * @throws ArrayIndexOutOfBoundsException when there is no value
     */
    public static double of(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int mid = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
    }
}
