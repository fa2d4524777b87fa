package io.ringbus.bench.seed;

/**
 * The shape of one round of the seed scenario: each producer publishes its events round-robin
 * over the subjects (event {@code i} goes to subject {@code i % subjects}), and every event
 * reaches each of its subject's subscribers. The seed article's workload is
 * {@link #SEED}: 4 x 250,000 events over 5 subjects with 4 subscribers each, 4,000,000 dispatches.
 *
 * @param producers             publishing threads, 1..{@value #MAX_PRODUCERS}
 * @param eventsPerProducer     events each producer publishes, &gt;= 1
 * @param subjects              subjects (the article's event types), 1..{@value #MAX_SUBJECTS}
 * @param subscribersPerSubject subscribers of each subject, 1..{@value #MAX_SUBSCRIBERS}
 */
public record SeedWorkload(int producers, int eventsPerProducer, int subjects, int subscribersPerSubject) {
    /** Most producer threads accepted. */
    public static final int MAX_PRODUCERS = 256;
    /** Most subjects accepted. */
    public static final int MAX_SUBJECTS = 1_024;
    /** Most subscribers per subject accepted. */
    public static final int MAX_SUBSCRIBERS = 256;
    /** The seed article's workload. */
    public static final SeedWorkload SEED = new SeedWorkload(4, 250_000, 5, 4);
    /** Prefix of the subject names: {@code seed.type0.created}, {@code seed.type1.created}, ... */
    public static final String SUBJECT_PREFIX = "seed.type";
    /** A pattern matching every subject of the scenario. */
    public static final String SUBJECT_PATTERN = "seed.>";

    /**
     * @throws IllegalArgumentException naming the value that is out of range
     */
    public SeedWorkload {
        check("producers", producers, MAX_PRODUCERS);
        check("eventsPerProducer", eventsPerProducer, Integer.MAX_VALUE);
        check("subjects", subjects, MAX_SUBJECTS);
        check("subscribersPerSubject", subscribersPerSubject, MAX_SUBSCRIBERS);
    }

    /** @return events published per round */
    public long events() {
        return (long) producers * eventsPerProducer;
    }

    /** @return handler calls per round: each event times its subject's subscribers */
    public long dispatches() {
        return events() * subscribersPerSubject;
    }

    /** @return subscribers in all */
    public int subscribers() {
        return subjects * subscribersPerSubject;
    }

    /**
     * @param subject a subject index
     * @return the events one producer sends to that subject
     */
    public int eventsPerProducerTo(int subject) {
        return eventsPerProducer / subjects + (subject < eventsPerProducer % subjects ? 1 : 0);
    }

    /**
     * @param subject a subject index
     * @return its name
     */
    public static String subjectName(int subject) {
        return SUBJECT_PREFIX + subject + ".created";
    }

    private static void check(String what, int value, int max) {
        if (value < 1 || value > max) {
            throw new IllegalArgumentException(what + " must be in 1.." + max + ": " + what + "=" + value);
        }
    }
}
