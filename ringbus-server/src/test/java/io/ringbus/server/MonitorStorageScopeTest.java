package io.ringbus.server;

import io.nats.client.support.JsonValue;
import io.ringbus.core.ExecutionMode;
import io.ringbus.core.Scope;
import io.ringbus.core.Storage;
import io.ringbus.core.StoredStream;
import io.ringbus.core.StreamConfig;
import io.ringbus.core.SubscribeOptions;
import io.ringbus.server.monitor.MonitorSources;
import io.ringbus.testkit.Await;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code /varz}'s {@code ringbus.storage} is filtered by the credential's scope, as {@code /connz}
 * is (issue 25): a PUBLIC credential sees neither a PRIVATE stream, nor its consumers, nor the
 * store's directory; ROOT sees all.
 */
@Timeout(60)
class MonitorStorageScopeTest {
    @TempDir
    Path dir;

    @AutoClose
    private ServerUnderTest server;

    @Test
    void aPublicCredentialSeesOnlyPublicStreamsAndNotTheStorePath() {
        Storage storage = Storage.local(dir);
        StoredStream secret = storage.stream(StreamConfig.of("secret.>"));
        StoredStream open = storage.stream(StreamConfig.of("open.>"));
        server = ServerUnderTest.start(b -> b.storage(storage).defaultScope(Scope.PUBLIC),
                c -> c.monitorPort(0).token("pub", Scope.PUBLIC).token("priv", Scope.PRIVATE).token("root", Scope.ROOT),
                MonitorSources.builder().storage(storage, List.of(secret, open)).build());
        server.broker.registerStream(StreamConfig.of("secret.>"), Scope.PRIVATE);
        server.broker.registerStream(StreamConfig.of("open.>"), Scope.PUBLIC);
        server.broker.subscribe("secret.>", m -> { },
                SubscribeOptions.defaults().mode(ExecutionMode.WORKER).durable("payroll"));
        server.broker.subscribe("open.>", m -> { },
                SubscribeOptions.defaults().mode(ExecutionMode.WORKER).durable("news"));
        server.broker.publish("secret.salaries", "42");
        server.broker.publish("open.headlines", "hello");
        Await.until("both consumers delivered", () -> server.broker.stats().consumers().stream()
                .allMatch(c -> c.delivered() == 1) && server.broker.stats().consumers().size() == 2);
        MonitorClient monitor = new MonitorClient(server.monitorPort());

        String publicBody = monitor.get("/varz", "Authorization", "Bearer pub").body();
        assertThat(publicBody).doesNotContain("secret", "payroll", dir.toString());
        JsonValue publicStorage = storage(monitor, "pub");
        assertThat(store(publicStorage)).isNull();
        assertThat(names(publicStorage, "streams")).containsExactly("open_all");
        assertThat(names(publicStorage, "consumers")).containsExactly("news");

        JsonValue privateStorage = storage(monitor, "priv");
        assertThat(names(privateStorage, "streams")).containsExactlyInAnyOrder("open_all", "secret_all");
        assertThat(names(privateStorage, "consumers")).containsExactlyInAnyOrder("news", "payroll");
        assertThat(store(privateStorage)).as("the directory: ROOT only").isNull();

        JsonValue rootStorage = storage(monitor, "root");
        assertThat(store(rootStorage)).isEqualTo(storage.describe()).contains(dir.toString());
        assertThat(names(rootStorage, "streams")).containsExactlyInAnyOrder("open_all", "secret_all");
    }

    private static JsonValue storage(MonitorClient monitor, String token) {
        return MonitorClient.field(MonitorClient.field(monitor.json("/varz", "Authorization", "Bearer " + token),
                "ringbus"), "storage");
    }

    /** @return the store's description, or null when {@code "store"} is null (which the parser drops) */
    private static String store(JsonValue storage) {
        JsonValue store = storage.map.get("store");
        return store == null ? null : store.string;
    }

    private static List<String> names(JsonValue storage, String key) {
        return MonitorClient.array(storage, key).stream().map(v -> MonitorClient.string(v, "name")).toList();
    }
}
