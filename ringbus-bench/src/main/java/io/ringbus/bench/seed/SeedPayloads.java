package io.ringbus.bench.seed;

/**
 * Every event of a workload and every subject name, allocated once and shared by all rounds of
 * all contenders, so the timed section allocates no payloads.
 */
public final class SeedPayloads {
    private final SeedWorkload workload;
    private final SeedEvent[][] events;
    private final String[] subjects;

    /**
     * Allocates the events of {@code workload}.
     *
     * @param workload the workload
     */
    public SeedPayloads(SeedWorkload workload) {
        this.workload = workload;
        this.events = new SeedEvent[workload.producers()][workload.eventsPerProducer()];
        for (int p = 0; p < events.length; p++) {
            for (int i = 0; i < events[p].length; i++) {
                events[p][i] = new SeedEvent(p, i);
            }
        }
        this.subjects = new String[workload.subjects()];
        for (int s = 0; s < subjects.length; s++) {
            subjects[s] = SeedWorkload.subjectName(s);
        }
    }

    /** @return the workload */
    public SeedWorkload workload() {
        return workload;
    }

    /**
     * @param producer a producer index
     * @return that producer's events in publish order; shared, do not modify
     */
    SeedEvent[] eventsOf(int producer) {
        return events[producer];
    }

    /** @return the subject names by index; shared, do not modify */
    String[] subjects() {
        return subjects;
    }
}
