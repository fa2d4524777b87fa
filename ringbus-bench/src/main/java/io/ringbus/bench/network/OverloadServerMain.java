package io.ringbus.bench.network;

import io.ringbus.core.Broker;
import io.ringbus.core.BrokerStats;
import io.ringbus.core.ExecutionMode;
import io.ringbus.core.OverflowPolicy;
import io.ringbus.core.Scope;
import io.ringbus.core.SubscribeOptions;
import io.ringbus.server.RingbusServer;
import io.ringbus.server.ServerConfig;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;

/**
 * The child JVM of the BLOCK overload run: a broker and a ringbus-server in one process, plus
 * in-process subscribers that the parent ({@link OverloadRunner}) adds over stdin. Started as
 * {@code java -Xmx512m -XX:+ExitOnOutOfMemoryError -cp ringbus-bench.jar
 * io.ringbus.bench.network.OverloadServerMain <ringSize> <bufferSize>}.
 *
 * <p>Protocol, one line each way:
 * <pre>
 * child  : READY port=&lt;port&gt;
 * parent : SUBSCRIBE &lt;subject&gt; &lt;nanosPerMessage&gt; &lt;messages of publisher 0&gt; [&lt;publisher 1&gt; ...]
 * child  : SUBSCRIBED &lt;subject&gt;
 * child  : DONE &lt;subject&gt;                (when the subscriber has every message; from its thread)
 * parent : REPORT
 * child  : Report[received=.., problems=.., peakHeapBytes=.., maxHeapBytes=.., brokerDropped=..,
 *          brokerRejected=..] ServerStats[...]       (problems = sequence errors, 0 when exact)
 * parent : EXIT  (or end of stdin)
 * child  : closes the server and the broker, exits 0
 * </pre>
 * Each subscriber is {@link ExecutionMode#WORKER}, ordered, {@link OverflowPolicy#BLOCK} with the
 * given buffer, and waits {@code nanosPerMessage} per message ({@link Pacer}).
 */
public final class OverloadServerMain {
    private OverloadServerMain() {
    }

    /**
     * @param args ring size and subscriber buffer size
     * @throws Exception when the server cannot start or stdin fails
     */
    public static void main(String[] args) throws Exception {
        int ringSize = Integer.parseInt(args[0]);
        int bufferSize = Integer.parseInt(args[1]);
        Broker broker = Broker.builder().name("overload").ringSize(ringSize).defaultScope(Scope.PUBLIC).build();
        RingbusServer server = RingbusServer.start(broker, ServerConfig.builder().host("127.0.0.1").port(0)
                .monitorPort(ServerConfig.MONITOR_OFF).build());
        SequenceCheck last = null;
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            say("READY port=" + server.port());
            String line;
            while ((line = in.readLine()) != null && !line.equals("EXIT")) {
                String[] words = line.trim().split("\\s+");
                if (words[0].equals("SUBSCRIBE")) {
                    last = subscribe(broker, bufferSize, words);
                    say("SUBSCRIBED " + words[1]);
                } else if (words[0].equals("REPORT")) {
                    say(report(broker, server, last));
                } else {
                    say("ERROR unknown command '" + line + "'");
                }
            }
        } catch (IOException e) {
            say("ERROR " + e);
        } finally {
            server.stopAccepting();
            broker.close();
            server.close();
        }
    }

    private static SequenceCheck subscribe(Broker broker, int bufferSize, String[] words) {
        String subject = words[1];
        Pacer pacer = new Pacer(Long.parseLong(words[2]));
        long[] perPublisher = Arrays.stream(words, 3, words.length).mapToLong(Long::parseLong).toArray();
        SequenceCheck check = new SequenceCheck(perPublisher);
        SubscribeOptions options = SubscribeOptions.defaults().mode(ExecutionMode.WORKER).ordered(true)
                .bufferSize(bufferSize).overflow(OverflowPolicy.BLOCK);
        broker.subscribe(subject, message -> {
            // Network publishes arrive as byte[] (RingbusServer's contract).
            if (check.accept((byte[]) message.payload())) {
                say("DONE " + subject);
            }
            pacer.pace();
        }, options);
        return check;
    }

    /** Writes one protocol line; called from the main thread and subscriber threads. */
    private static void say(String line) {
        // PrintStream.println writes the line atomically; flush because stdout is a pipe.
        System.out.println(line);
        System.out.flush();
    }

    private static String report(Broker broker, RingbusServer server, SequenceCheck check) {
        long peakHeap = 0;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP && pool.getPeakUsage() != null) {
                peakHeap += pool.getPeakUsage().getUsed();
            }
        }
        BrokerStats stats = broker.stats();
        String verdict = check == null ? "no subscriber" : check.verdict();
        return String.format(Locale.ROOT, "Report[received=%d, problems=%d, peakHeapBytes=%d, maxHeapBytes=%d,"
                        + " brokerPublished=%d, brokerDropped=%d, brokerRejected=%d] %s%s",
                check == null ? 0 : check.received(), verdict == null ? 0 : 1, peakHeap,
                Runtime.getRuntime().maxMemory(), stats.published(), stats.droppedTotal(), stats.rejected(),
                server.stats(), verdict == null ? "" : " verdict: " + verdict);
    }
}
