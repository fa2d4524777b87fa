package io.ringbus.bench.storage;

import io.ringbus.bench.JvmDescription;

import java.util.List;

/**
 * The storage scenario's results document ({@code bin/bench storage --json},
 * {@code bench-results/storage.json}), written by {@link StorageCommand} and read by the chart.
 * A {@code double} that was not measured is NaN (JSON {@code null}). Immutable.
 *
 * @param scenario always {@code storage}
 * @param jvm      where it ran
 * @param cores    the processors the JVM could use
 * @param machine  the disk and the peer's versions
 * @param settings the workload
 * @param fsync    the disk's own fsync rate
 * @param publish  durable publish runs, ringbus and JetStream
 * @param read     replay and acknowledgement runs
 * @param restart  restarts on a log written just before
 * @param recovery issue 30's restarts of each server after a kill and after a cut, page cache dropped
 * @param goals    issue 17's and issue 30's goals and the verdicts
 */
public record StorageResults(String scenario, JvmDescription.Vm jvm, int cores, Machine machine, Settings settings,
                             Fsync fsync, List<PublishRow> publish, List<ReadRow> read, List<RestartRow> restart,
                             List<RecoveryRow> recovery, List<GoalRow> goals) {
    /** The value of {@code scenario}. */
    public static final String SCENARIO = "storage";

    /**
     * @param kernel         {@code os.name} and {@code os.version}
     * @param directory      where the stores were written
     * @param fileStore      the file system under it ({@code FileStore} name and type)
     * @param natsServer     {@code nats-server --version}, or {@code null} without the peer
     * @param natsGo         the nats.go client's version, or {@code null} without the peer
     * @param jetStreamSync  how the peer's file store forces its writes in this version
     */
    public record Machine(String kernel, String directory, String fileStore, String natsServer, String natsGo,
                          String jetStreamSync) {
    }

    /**
     * @param window              async publish: the most appends outstanding per publisher (both systems)
     * @param intervalMillis      ringbus INTERVAL's force interval
     * @param publishSeconds      measured publishing time per run
     * @param warmupSeconds       unmeasured publishing before it
     * @param records             records replayed and acknowledged
     * @param readPayloadBytes    their payload
     * @param replayBatch         ringbus consumer replay: messages per fetch
     * @param ackBatch            acknowledgement runs: messages per fetch (both systems)
     * @param readPolicy          ringbus's policy for the read and restart parts
     * @param restartPayloadBytes the restart logs' payload per record
     */
    public record Settings(int window, long intervalMillis, double publishSeconds, double warmupSeconds, long records,
                           int readPayloadBytes, int replayBatch, int ackBatch, String readPolicy,
                           int restartPayloadBytes) {
    }

    /**
     * @param writes    128 B appends, each followed by a force
     * @param bytes     bytes per write
     * @param seconds   the time they took
     * @param perSecond forces per second: the most ALWAYS publishes one thread can get
     * @param p50Micros the median write + force
     * @param p99Micros its 99th percentile
     */
    public record Fsync(int writes, int bytes, double seconds, double perSecond, double p50Micros, double p99Micros) {
    }

    /**
     * One durable publish run.
     *
     * @param system           {@code ringbus} (in-process {@code StoredStream.append}) or {@code jetstream} (nats.go)
     * @param policy           ringbus's {@code FsyncPolicy}, or the peer's setting
     * @param mode             {@code async} (a window of outstanding publishes) or {@code sync} (one at a time)
     * @param payloadBytes     per message
     * @param publishers       concurrent publishers (threads, or connections for the peer)
     * @param messages         published and acknowledged in the measured time
     * @param seconds          the measured time, until the last of them was acknowledged
     * @param perSecond        messages over seconds
     * @param p50Micros        publish call to acknowledgement, median
     * @param p99Micros        its 99th percentile
     * @param maxMicros        its largest
     * @param ratioToJetStream ringbus's rate over the peer's in the same case (NaN for the peer's rows)
     * @param failure          what failed, or {@code null}
     */
    public record PublishRow(String system, String policy, String mode, int payloadBytes, int publishers,
                             long messages, double seconds, double perSecond, double p50Micros, double p99Micros,
                             double maxMicros, double ratioToJetStream, String failure) {
    }

    /**
     * One read run.
     *
     * @param part             {@code replay} or {@code ack}
     * @param system           {@code ringbus} or {@code jetstream}
     * @param reader           how it read, e.g. {@code durable consumer, fetch 1000 + ack each}
     * @param messages         read (and acknowledged where the reader acknowledges)
     * @param seconds          the time it took
     * @param perSecond        messages over seconds
     * @param ratioToJetStream ringbus's rate over the peer's of the same part (NaN for the peer's rows)
     * @param failure          what failed, or {@code null}
     */
    public record ReadRow(String part, String system, String reader, long messages, double seconds, double perSecond,
                          double ratioToJetStream, String failure) {
    }

    /**
     * Restarts on one log: the median of the runs.
     *
     * @param system            {@code ringbus} or {@code jetstream}
     * @param logBytes          the log's size on disk
     * @param records           records in it
     * @param runs              restarts measured
     * @param openMillis        ringbus: {@code Storage.local} returned; the peer: NaN
     * @param streamMillis      ringbus: {@code stream(config)} returned; the peer: NaN
     * @param firstRecordMillis the first record read: ringbus from {@code Storage.local}, the peer from its
     *                          process start
     * @param maxFirstRecordMillis the slowest run's
     * @param failure           what failed, or {@code null}
     */
    public record RestartRow(String system, long logBytes, long records, int runs, double openMillis,
                             double streamMillis, double firstRecordMillis, double maxFirstRecordMillis,
                             String failure) {
    }

    /**
     * One server's restarts in one scenario of the recovery part ({@link RecoveryBenchmark}): the
     * median of the runs.
     *
     * @param system          {@code ringbus-server} or {@code nats-server}
     * @param scenario        {@code killed} (SIGKILL, the store as the process left it) or {@code cut}
     *                        (besides, what a power cut can take that the server never forced)
     * @param logBytes        the stream's store on disk
     * @param messages        messages stored before the runs
     * @param payloadBytes    their payload
     * @param runs            restarts measured
     * @param pageCache       {@code dropped} before each start, or {@code kept}
     * @param firstAckMillis  from the process start to the first PubAck with the next sequence (jnats)
     * @param slowestMillis   the slowest run's
     * @param storeOpenMillis how long opening the store took by the server's own log (NaN when it does not say)
     * @param openReadBytes   bytes the server says it read to open the store (-1 when it does not say)
     * @param filledBy        how the store was filled
     * @param cut             what the {@code cut} scenario removed before each start, or {@code null}
     * @param failure         what failed, or {@code null}
     */
    public record RecoveryRow(String system, String scenario, long logBytes, long messages, int payloadBytes, int runs,
                              String pageCache, double firstAckMillis, double slowestMillis, double storeOpenMillis,
                              long openReadBytes, String filledBy, String cut, String failure) {
    }

    /**
     * @param goal     what issue 17 asks
     * @param measured the figure it is judged on
     * @param met      whether it was reached; {@code null} when not measured
     */
    public record GoalRow(String goal, String measured, Boolean met) {
    }
}
