package io.ringbus.bench.network;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;

import java.util.List;

/**
 * The one JSON object that {@code natsload} prints, one record per {@code -mode}; the member names
 * are those of its Go structs ({@code ringbus-bench/src/main/go/natsload}). {@link NatsLoad} reads
 * it, and the results documents embed it unchanged. Immutable.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, include = JsonTypeInfo.As.EXISTING_PROPERTY, property = "mode", visible = true)
@JsonSubTypes({
        @JsonSubTypes.Type(value = NatsLoadResult.Throughput.class, name = "throughput"),
        @JsonSubTypes.Type(value = NatsLoadResult.Latency.class, names = {"reqrep", "latency"}),
        @JsonSubTypes.Type(value = NatsLoadResult.Subs.class, name = "subs"),
        @JsonSubTypes.Type(value = NatsLoadResult.Soak.class, name = "soak"),
        @JsonSubTypes.Type(value = NatsLoadResult.Connect.class, name = "connect")})
public sealed interface NatsLoadResult {
    /** @return natsload's {@code -mode} */
    String mode();

    /**
     * {@code -mode throughput}: publishers flat out, every delivery checked.
     *
     * @param mode                {@code throughput}
     * @param caseName            natsload's name of the case
     * @param publishers          publishing connections
     * @param subscribers         subscribing connections
     * @param pairs               1-&gt;1 pairs on their own subjects, 0 when fan-in or fan-out
     * @param size                payload bytes
     * @param messages            messages published
     * @param deliveries          deliveries expected
     * @param received            deliveries received
     * @param publishNanos        time to publish everything
     * @param deliverNanos        time until the last delivery
     * @param publishedPerSecond  messages over publish time
     * @param deliveriesPerSecond deliveries over delivery time
     * @param verified            no loss, no duplicate, per-publisher order kept
     * @param failure             what failed, or {@code null}
     */
    record Throughput(String mode, @JsonProperty("case") String caseName, int publishers, int subscribers, int pairs,
                      int size, long messages, long deliveries, long received, long publishNanos, long deliverNanos,
                      double publishedPerSecond, double deliveriesPerSecond, boolean verified, String failure)
            implements NatsLoadResult {
    }

    /**
     * {@code -mode reqrep} and {@code -mode latency}: round trips, or one-way deliveries at a fixed rate.
     *
     * @param mode              {@code reqrep} or {@code latency}
     * @param caseName          natsload's name of the case
     * @param size              payload bytes
     * @param targetRate        messages per second asked for, 0 for request/reply
     * @param messages          messages sent
     * @param received          messages (or replies) received
     * @param seconds           the measurement's length
     * @param achievedPerSecond messages over {@code seconds}
     * @param p50Micros         median latency
     * @param p99Micros         99th percentile
     * @param p999Micros        99.9th percentile
     * @param maxMicros         the largest latency
     * @param verified          everything came back
     * @param failure           what failed, or {@code null}
     */
    record Latency(String mode, @JsonProperty("case") String caseName, int size, int targetRate, long messages,
                   long received, double seconds, double achievedPerSecond, double p50Micros, double p99Micros,
                   double p999Micros, double maxMicros, boolean verified, String failure) implements NatsLoadResult {
    }

    /**
     * {@code -mode subs}: add and remove N subscriptions per step, then routing quiet and while churning.
     *
     * @param mode  {@code subs}
     * @param steps one per subscription count
     * @param route the routing measurement
     */
    record Subs(String mode, List<SubsStep> steps, Route route) implements NatsLoadResult {
    }

    /**
     * @param subscriptions     subscriptions added
     * @param connections       connections they were spread over
     * @param rssBeforeMiB      the server's RSS before
     * @param addMillis         time to add them (subscribe, then flush)
     * @param rssAfterAddMiB    the server's RSS with them in place
     * @param removeMillis      time to remove them
     * @param rssAfterRemoveMiB the server's RSS after
     * @param timedOut          whether the step ran out of time
     * @param failure           what failed, or {@code null}
     */
    record SubsStep(int subscriptions, int connections, double rssBeforeMiB, double addMillis, double rssAfterAddMiB,
                    double removeMillis, double rssAfterRemoveMiB, boolean timedOut, String failure) {
    }

    /**
     * @param seconds                            each half's length
     * @param quietPerSecond                     1-&gt;1 messages per second with no churn
     * @param churnPerSecond                     the same while subscriptions churn
     * @param churnSubscribeUnsubscribePerSecond subscribe+unsubscribe pairs per second meanwhile
     * @param delivered                          messages delivered
     * @param verified                           nothing lost or reordered
     * @param failure                            what failed, or {@code null}
     */
    record Route(double seconds, double quietPerSecond, double churnPerSecond, double churnSubscribeUnsubscribePerSecond,
                 long delivered, boolean verified, String failure) {
    }

    /**
     * {@code -mode soak}: mixed load, slow and stuck subscribers, connection churn.
     *
     * @param mode                   {@code soak}
     * @param seconds                the load's length
     * @param ratePerPublisher       messages per second per publisher
     * @param publisherSizes         each publisher's payload bytes
     * @param published              messages published
     * @param fast                   the fast subscribers' counts
     * @param fastGotEverything      whether every fast subscriber got every message in order
     * @param slowClientHandled      messages the slow nats.go subscriber handled
     * @param slowClientDropped      messages its client library dropped
     * @param slowSocketBytes        bytes the slow socket read
     * @param slowSocketCutByServer  whether the server cut the slow socket
     * @param stuckSocketCutByServer whether the server cut the socket that never reads
     * @param churnConnections       connections opened and closed
     * @param churnFailures          of which failed
     * @param problems               what went wrong, empty when nothing ({@code null} when Go had none to print)
     */
    record Soak(String mode, double seconds, int ratePerPublisher, List<Integer> publisherSizes, long published,
                List<Fast> fast, boolean fastGotEverything, long slowClientHandled, long slowClientDropped,
                long slowSocketBytes, boolean slowSocketCutByServer, boolean stuckSocketCutByServer,
                long churnConnections, long churnFailures, List<String> problems) implements NatsLoadResult {
    }

    /**
     * {@code -mode connect}: connections opened (until the server answered their first PING) and closed.
     *
     * @param mode                 {@code connect}
     * @param connections          connections measured
     * @param parallel             opened at a time
     * @param tls                  whether they used TLS
     * @param seconds              wall time of the measured connections
     * @param connectionsPerSecond connections over seconds
     * @param p50Micros            median time of one connect
     * @param p99Micros            its 99th percentile
     * @param maxMicros            the slowest
     * @param failed               connections that failed
     * @param verified             none failed
     * @param failure              the first failure, or {@code null}
     */
    record Connect(String mode, long connections, int parallel, boolean tls, double seconds,
                   double connectionsPerSecond, double p50Micros, double p99Micros, double maxMicros, long failed,
                   boolean verified, String failure) implements NatsLoadResult {
    }

    /**
     * @param received messages received
     * @param expected messages published
     * @param failure  what failed (loss, order), or {@code null}
     */
    record Fast(long received, long expected, String failure) {
    }
}
