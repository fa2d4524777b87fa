package io.ringbus.server;

import io.ringbus.testkit.LoopbackPorts;
import io.ringbus.testkit.Await;
import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.support.JsonValue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import static io.ringbus.server.MonitorClient.array;
import static io.ringbus.server.MonitorClient.find;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * NATS tooling reads ringbus's /varz, /connz and /subsz: the same client traffic goes to a real
 * nats-server (started here with {@code -m}) and to ringbus, and the JSON of both is compared
 * field by field: every field nats-server writes is present in ringbus's answer with the same
 * JSON type, except the few listed as not provided; and ringbus adds no top-level field of its
 * own outside {@code "ringbus"}.
 *
 * <p>Needs {@code /usr/sbin/nats-server} (bin/services uses it too); skipped without it.
 */
@Timeout(60)
class NatsMonitorCompatibilityTest {
    private static final Path NATS_SERVER = Path.of("/usr/sbin/nats-server");
    /** Go-specific or about features ringbus does not have. */
    private static final Set<String> VARZ_NOT_PROVIDED = Set.of("go", "gomaxprocs", "system_account");
    /** nats-server omits {@code auth_required} when false (Go omitempty); ringbus always writes it. */
    private static final Set<String> VARZ_EXTRA = Set.of("ringbus", "auth_required");
    /** ringbus has one account: subscriptions carry none. */
    private static final Set<String> SUBSZ_ENTRY_NOT_PROVIDED = Set.of("account");

    private Process nats;
    private ServerUnderTest ringbus;

    @AfterEach
    void stop() throws InterruptedException {
        if (ringbus != null) {
            ringbus.close();
        }
        if (nats != null) {
            nats.destroy();
            nats.waitFor();
        }
    }

    @Test
    void varzConnzAndSubszHaveNatsServersFieldsAndTypes() throws Exception {
        assumeTrue(Files.isExecutable(NATS_SERVER), NATS_SERVER + " is not installed");
        int natsPort = LoopbackPorts.free();
        int natsMonitorPort = LoopbackPorts.free();
        nats = new ProcessBuilder(NATS_SERVER.toString(), "-a", "127.0.0.1", "-p", String.valueOf(natsPort),
                "-m", String.valueOf(natsMonitorPort)).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        MonitorClient natsMonitor = new MonitorClient(natsMonitorPort);
        Await.until("nats-server answers /healthz", () -> {
            try {
                return natsMonitor.get("/healthz").statusCode() == 200;
            } catch (AssertionError notYet) {
                return false;
            }
        });
        ringbus = ServerUnderTest.start(c -> c.monitorPort(0));
        MonitorClient ringbusMonitor = new MonitorClient(ringbus.monitorPort());

        Connection toNats = traffic("nats://127.0.0.1:" + natsPort);
        Connection toRingbus = traffic(ringbus.url());
        try {
            compare("/varz", natsMonitor.json("/varz"), ringbusMonitor.json("/varz"), VARZ_NOT_PROVIDED, VARZ_EXTRA);

            JsonValue natsConnz = natsMonitor.json("/connz?subs=detail");
            JsonValue ringbusConnz = ringbusMonitor.json("/connz?subs=detail");
            compare("/connz", natsConnz, ringbusConnz, Set.of(), Set.of());
            JsonValue natsConnection = find(array(natsConnz, "connections"), "name", "compat");
            JsonValue ringbusConnection = find(array(ringbusConnz, "connections"), "name", "compat");
            compare("/connz connection", natsConnection, ringbusConnection, Set.of(), Set.of());
            compare("/connz subscription", find(array(natsConnection, "subscriptions_list_detail"), "subject", "pub.q"),
                    find(array(ringbusConnection, "subscriptions_list_detail"), "subject", "pub.q"), Set.of(),
                    Set.of());

            JsonValue natsSubsz = natsMonitor.json("/subsz?subs=1");
            JsonValue ringbusSubsz = ringbusMonitor.json("/subsz?subs=1");
            compare("/subsz", natsSubsz, ringbusSubsz, Set.of(), Set.of("ringbus"));
            compare("/subsz subscription", find(array(natsSubsz, "subscriptions_list"), "subject", "pub.q"),
                    find(array(ringbusSubsz, "subscriptions_list"), "subject", "pub.q"), SUBSZ_ENTRY_NOT_PROVIDED,
                    Set.of());
            assertThat(natsMonitor.get("/healthz").body()).isEqualTo(ringbusMonitor.get("/healthz").body());
        } finally {
            toNats.close();
            toRingbus.close();
        }
    }

    /** One named connection with a queue subscription and a plain one, and a message to each. */
    private static Connection traffic(String url) throws Exception {
        Connection connection = Nats.connect(Options.builder().server(url).connectionName("compat")
                .connectionTimeout(Duration.ofSeconds(5)).build());
        Dispatcher dispatcher = connection.createDispatcher(m -> { });
        dispatcher.subscribe("pub.q", "workers");
        dispatcher.subscribe("pub.plain");
        connection.flush(Duration.ofSeconds(5));
        connection.publish("pub.q", new byte[8]);
        connection.publish("pub.plain", new byte[8]);
        connection.flush(Duration.ofSeconds(5));
        return connection;
    }

    private static void compare(String what, JsonValue nats, JsonValue ringbus, Set<String> notProvided,
                                Set<String> extra) {
        Map<String, String> natsTypes = types(nats);
        Map<String, String> ringbusTypes = types(ringbus);
        natsTypes.keySet().removeAll(notProvided);
        assertThat(ringbusTypes).as("%s: nats-server's fields, with their JSON types; ringbus: %s", what,
                ringbus.toJson()).containsAllEntriesOf(natsTypes);
        Set<String> own = new HashSet<>(ringbusTypes.keySet());
        own.removeAll(types(nats).keySet());
        assertThat(own).as("%s: fields nats-server does not have", what).isSubsetOf(extra);
    }

    private static Map<String, String> types(JsonValue object) {
        assertThat(object.map).isNotNull();
        Map<String, String> types = new TreeMap<>();
        object.map.forEach((key, value) -> types.put(key, switch (value.type) {
            case INTEGER, LONG, DOUBLE, FLOAT, BIG_DECIMAL, BIG_INTEGER -> "number";
            default -> value.type.name().toLowerCase();
        }));
        return types;
    }

}
