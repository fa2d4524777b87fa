package io.ringbus.bench.seed;

/** Thrown when a round lost, duplicated, misrouted or (where promised) reordered events, or timed out. */
public final class SeedVerificationException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what went wrong, naming the contender and the counts
     */
    public SeedVerificationException(String message) {
        super(message);
    }
}
