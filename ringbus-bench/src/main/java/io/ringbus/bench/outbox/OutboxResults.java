package io.ringbus.bench.outbox;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.ringbus.bench.JvmDescription;

import java.util.List;

/**
 * The outbox scenario's results document ({@code bin/bench outbox --json},
 * {@code bench-results/outbox.json}), written by {@link OutboxCommand} and read by the chart.
 * Immutable.
 *
 * @param scenario               always {@code outbox}
 * @param jvm                    where it ran
 * @param cores                  the processors the JVM could use
 * @param database               the JDBC URL, without its parameters
 * @param payloadBytes           each event's payload
 * @param keys                   the keys events spread over
 * @param ringbusBatchSize       ringbus relays' batch
 * @param pollerBatchSize        the SKIP LOCKED poller's batch
 * @param pollerIdleMillis       the poller's sleep when it finds nothing
 * @param gruelbox               the transaction-outbox peer's settings
 * @param namastack              the namastack-outbox peer's settings
 * @param producerThreads        producer connections
 * @param repeats                runs per contender (the median is reported)
 * @param producerWarmupSeconds  unmeasured producing before each producer run
 * @param sustainedWarmupSeconds unmeasured time before each sustained run
 * @param sustainedWindowSeconds the sustained runs' window
 * @param floor                  PostgreSQL's floors
 * @param producers              producer runs with a contender draining
 * @param drain                  drains of a backlog
 * @param sustained              sustained-rate runs
 * @param http                   HTTP sink runs
 * @param search                 sustained-rate searches ({@code --only SEARCH}; empty otherwise)
 * @param goals                  the verdicts on the goals
 */
public record OutboxResults(String scenario, JvmDescription.Vm jvm, int cores, String database, int payloadBytes,
                            int keys, int ringbusBatchSize, int pollerBatchSize, long pollerIdleMillis,
                            Gruelbox gruelbox, Namastack namastack, int producerThreads, int repeats,
                            double producerWarmupSeconds, double sustainedWarmupSeconds, double sustainedWindowSeconds,
                            Floor floor, List<ProducerRow> producers, List<DrainRow> drain,
                            List<SustainedRow> sustained, List<HttpRow> http, List<SearchRow> search,
                            List<GoalRow> goals) {
    /** The value of {@code scenario}. */
    public static final String SCENARIO = "outbox";

    /**
     * @param version                 transactionoutbox-core's version
     * @param workerThreads           its worker pool
     * @param flushBatchSize          its flush batch
     * @param flushIdleMillis         the flush loop's sleep when idle
     * @param attemptFrequencySeconds its retry interval
     * @param keyOrderPromised        whether it promises per-key order
     */
    public record Gruelbox(String version, int workerThreads, int flushBatchSize, long flushIdleMillis,
                           long attemptFrequencySeconds, boolean keyOrderPromised) {
    }

    /**
     * @param version             namastack-outbox's version
     * @param springBoot          the Spring Boot it runs in
     * @param pollIntervalMillis  its poll interval
     * @param batchKeys           keys per poll
     * @param executorCoreThreads its executor's core pool
     * @param executorMaxThreads  its executor's maximum pool
     * @param keyOrderPromised    whether it promises per-key order
     */
    public record Namastack(String version, String springBoot, long pollIntervalMillis, int batchKeys,
                            int executorCoreThreads, int executorMaxThreads, boolean keyOrderPromised) {
    }

    /**
     * PostgreSQL's floors; the members of a floor that was not measured are absent.
     *
     * @param commitThreads         plain-INSERT connections
     * @param commitSeconds         the measured time
     * @param commits               commits in it
     * @param commitsPerSecond      the commit floor (median of the runs)
     * @param commitRuns            runs
     * @param commitMinPerSecond    the slowest run
     * @param commitMaxPerSecond    the fastest run
     * @param claimBatch            rows claimed per statement
     * @param claimRows             rows claimed and deleted
     * @param claimSeconds          the time it took
     * @param claimRuns             runs
     * @param claimMinRowsPerSecond the slowest run
     * @param claimMaxRowsPerSecond the fastest run
     * @param claimRowsPerSecond    the claim+delete floor (median of the runs)
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Floor(Integer commitThreads, Double commitSeconds, Long commits, Double commitsPerSecond,
                        Integer commitRuns, Double commitMinPerSecond, Double commitMaxPerSecond, Integer claimBatch,
                        Long claimRows, Double claimSeconds, Integer claimRuns, Double claimMinRowsPerSecond,
                        Double claimMaxRowsPerSecond, Double claimRowsPerSecond) {
    }

    /**
     * One producer contender's median run; see {@link ProducerResult}.
     *
     * @param contender           the relay draining meanwhile
     * @param relays              relay instances
     * @param threads             producer connections
     * @param seconds             the measured time
     * @param commits             transactions committed
     * @param commitsPerSecond    commits over time
     * @param events              events appended
     * @param maxBacklog          the largest backlog seen
     * @param backlogAtEnd        the backlog when producing stopped
     * @param delivered           events delivered
     * @param duplicates          events delivered twice
     * @param keyOrderViolations  deliveries out of per-key order, -1 when not checked
     * @param runs                runs the median is of
     * @param minCommitsPerSecond the slowest run
     * @param maxCommitsPerSecond the fastest run
     * @param verified            every event delivered (in key order where promised)
     * @param failure             what failed, or {@code null}
     */
    public record ProducerRow(String contender, int relays, int threads, double seconds, long commits,
                              double commitsPerSecond, int events, long maxBacklog, long backlogAtEnd, long delivered,
                              long duplicates, long keyOrderViolations, int runs, double minCommitsPerSecond,
                              double maxCommitsPerSecond, boolean verified, String failure) {
    }

    /**
     * One drain contender's median run; see {@link DrainResult}.
     *
     * @param contender          the relay
     * @param relays             relay instances
     * @param batchSize          its batch
     * @param events             the backlog
     * @param fillSeconds        time to fill it
     * @param drainSeconds       time to empty it
     * @param eventsPerSecond    events over drain time
     * @param delivered          events delivered
     * @param duplicates         events delivered twice
     * @param pendingAfter       rows left
     * @param batches            batches delivered
     * @param keyOrderViolations deliveries out of per-key order, -1 when not checked
     * @param runs               runs the median is of
     * @param minEventsPerSecond the slowest run
     * @param maxEventsPerSecond the fastest run
     * @param verified           every event delivered and settled (in key order where promised)
     * @param failure            what failed, or {@code null}
     */
    public record DrainRow(String contender, int relays, int batchSize, int events, double fillSeconds,
                           double drainSeconds, double eventsPerSecond, long delivered, long duplicates,
                           long pendingAfter, long batches, long keyOrderViolations, int runs,
                           double minEventsPerSecond, double maxEventsPerSecond, boolean verified, String failure) {
    }

    /**
     * One sustained-rate run; see {@link SustainedResult}.
     *
     * @param contender                     the relay
     * @param relays                        relay instances
     * @param targetRate                    events per second asked for
     * @param achievedRate                  events per second committed
     * @param measuredEvents                events after the warm-up
     * @param p50Micros                     commit to delivery, median
     * @param p99Micros                     99th percentile
     * @param p999Micros                    99.9th percentile
     * @param maxMicros                     the largest
     * @param deliveredBeforeCommitReturned deliveries seen before the producer's commit returned
     * @param backlogMax                    the largest backlog seen
     * @param backlogAtEnd                  the backlog at the end
     * @param duplicates                    events delivered twice
     * @param missing                       events never delivered
     * @param keyOrderViolations            deliveries out of per-key order, -1 when not checked
     * @param windows                       per window of commit time
     * @param verified                      every event delivered (in key order where promised)
     * @param failure                       what failed, or {@code null}
     */
    public record SustainedRow(String contender, int relays, double targetRate, double achievedRate, int measuredEvents,
                               long p50Micros, long p99Micros, long p999Micros, long maxMicros,
                               long deliveredBeforeCommitReturned, long backlogMax, long backlogAtEnd, long duplicates,
                               long missing, long keyOrderViolations, List<Window> windows, boolean verified,
                               String failure) {
    }

    /**
     * @param startSeconds the window's start in commit time
     * @param events       events committed in it
     * @param p99Micros    their p99 commit to delivery
     * @param maxMicros    their largest
     * @param backlogMax   the largest backlog in it
     */
    public record Window(double startSeconds, long events, long p99Micros, long maxMicros, long backlogMax) {
    }

    /**
     * One HTTP sink run; see {@link HttpResult}.
     *
     * @param maxConcurrency   requests in flight at most
     * @param batchSize        the relay's batch
     * @param parallelBatches  batches in flight at once
     * @param events           events delivered
     * @param latencyMillis    the endpoint's latency
     * @param elapsedSeconds   time to deliver them
     * @param idealSeconds     events x latency / concurrency
     * @param ratioToIdeal     elapsed over ideal
     * @param waveFloorSeconds the floor the batch boundary sets
     * @param eventsPerSecond  events over elapsed time
     * @param peakInFlight     most requests the endpoint had at once
     * @param duplicates       events delivered twice
     * @param verified         every event delivered
     * @param failure          what failed, or {@code null}
     */
    public record HttpRow(int maxConcurrency, int batchSize, int parallelBatches, int events, long latencyMillis,
                          double elapsedSeconds, double idealSeconds, double ratioToIdeal, double waveFloorSeconds,
                          double eventsPerSecond, int peakInFlight, long duplicates, boolean verified,
                          String failure) {
    }

    /**
     * @param goal      the goal's number
     * @param statement what it asks
     * @param met       the verdict, {@code null} when not judged
     * @param figures   the numbers behind it
     */
    public record GoalRow(String goal, String statement, Boolean met, String figures) {
    }

    /**
     * One contender's sustained-rate search.
     *
     * @param contender       who relayed
     * @param floorPerSecond  the commit floor, the search's upper bound
     * @param heldRate        the highest rate at which goal 4 held, 0 when none did
     * @param fractionOfFloor {@code heldRate / floorPerSecond}
     * @param steps           the bisection's runs, in order
     */
    public record SearchRow(String contender, double floorPerSecond, double heldRate, double fractionOfFloor,
                            List<SearchStep> steps) {
    }

    /**
     * One run of a search.
     *
     * @param rate              appends per second asked
     * @param held              whether goal 4 held
     * @param achievedRate      appends per second reached
     * @param p99Micros         commit-to-delivery p99
     * @param worstWindowMicros the worst window's p99
     * @param backlogMax        the largest backlog sampled
     */
    public record SearchStep(double rate, boolean held, double achievedRate, long p99Micros, long worstWindowMicros,
                             long backlogMax) {
    }
}
