package io.ringbus.jetstream;

import io.nats.client.Connection;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.ringbus.core.Broker;
import io.ringbus.core.Scope;
import io.ringbus.core.Storage;
import io.ringbus.server.RingbusServer;
import io.ringbus.server.ServerConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A PUBLIC and a PRIVATE user side by side: the PUBLIC one never sees, reads, removes nor learns
 * the name of a stream of PRIVATE subjects, and cannot create one over them.
 */
@SuppressWarnings("try") // jnats' Connection.close() may throw InterruptedException
class StreamScopesTest {
    @TempDir
    Path store;

    @Test
    void aPublicUserNeitherSeesNorTouchesAPrivateStream() throws Exception {
        try (Broker broker = Broker.builder().defaultScope(Scope.PUBLIC).storage(Storage.local(store)).build()) {
            broker.registerSubject("secret.>", Scope.PRIVATE);
            ServerConfig config = ServerConfig.builder().host("127.0.0.1").port(0)
                    .monitorPort(ServerConfig.MONITOR_OFF).extension(new JetStreamExtension())
                    .user("edge", "edge-pw", Scope.PUBLIC).user("core", "core-pw", Scope.PRIVATE).build();
            try (RingbusServer server = RingbusServer.start(broker, config);
                 Connection core = connect(server, "core", "core-pw");
                 Connection edge = connect(server, "edge", "edge-pw")) {
                // A PUBLIC eavesdropper on every subject: the PRIVATE user's API answers go to a
                // PUBLIC inbox, and must still never reach it.
                io.nats.client.Subscription eavesdrop = edge.subscribe(">");
                edge.flush(Duration.ofSeconds(5));
                assertThat(ask(core, "$JS.API.STREAM.CREATE.SECRET",
                        "{\"name\":\"SECRET\",\"subjects\":[\"secret.>\"],\"allow_direct\":true}"))
                        .contains("\"did_create\":true");
                assertThat(ask(core, "$JS.API.STREAM.CREATE.OPEN", "{\"name\":\"OPEN\",\"subjects\":[\"open.>\"]}"))
                        .contains("\"did_create\":true");
                assertThat(ask(core, "secret.x", "s")).contains("\"seq\":1");
                assertThat(ask(core, "$JS.API.STREAM.NAMES", "")).contains("SECRET", "OPEN");

                assertThat(ask(edge, "$JS.API.STREAM.NAMES", "")).contains("OPEN").doesNotContain("SECRET");
                assertThat(ask(edge, "$JS.API.STREAM.LIST", "")).contains("OPEN").doesNotContain("SECRET");
                assertThat(ask(edge, "$JS.API.INFO", "")).contains("\"streams\":1");
                for (String request : new String[] {"STREAM.INFO.SECRET", "STREAM.DELETE.SECRET",
                        "STREAM.PURGE.SECRET"}) {
                    assertThat(ask(edge, "$JS.API." + request, "")).as(request).contains("10059")
                            .doesNotContain("secret.");
                }
                assertThat(ask(edge, "$JS.API.STREAM.MSG.GET.SECRET", "{\"seq\":1}")).contains("10059");
                assertThat(ask(edge, "$JS.API.STREAM.MSG.DELETE.SECRET", "{\"seq\":1}")).contains("10059");
                assertThat(ask(edge, "$JS.API.DIRECT.GET.SECRET", "{\"seq\":1}")).as("no responder").isNull();
                assertThat(ask(edge, "$JS.API.DIRECT.GET.SECRET.secret.x", "")).isNull();
                assertThat(ask(edge, "$JS.API.STREAM.CREATE.STEAL", "{\"name\":\"STEAL\",\"subjects\":[\"secret.x\"]}"))
                        .as("a permission violation, no reply").isNull();
                assertThat(ask(edge, "$JS.API.STREAM.CREATE.STEAL", "{\"name\":\"STEAL\",\"subjects\":[\">\"]}"))
                        .isNull();

                assertThat(ask(core, "$JS.API.STREAM.INFO.SECRET", "")).contains("\"messages\":1");
                assertThat(ask(core, "$JS.API.DIRECT.GET.SECRET.secret.x", "")).isEqualTo("s");
                for (Message seen = eavesdrop.nextMessage(Duration.ofMillis(500)); seen != null;
                     seen = eavesdrop.nextMessage(Duration.ofMillis(200))) {
                    assertThat(new String(seen.getData(), StandardCharsets.UTF_8)).as(seen.getSubject())
                            .doesNotContain("SECRET").doesNotContain("secret.");
                }
            }
        }
    }

    private static Connection connect(RingbusServer server, String user, String password) throws Exception {
        return Nats.connect(new Options.Builder().server("nats://127.0.0.1:" + server.port())
                .userInfo(user, password).errorListener(new io.nats.client.ErrorListener() {
                }).build());
    }

    /** @return the answer's text, or null when none came within 5 seconds (a stream's creation forces files) */
    private static String ask(Connection connection, String subject, String body) throws Exception {
        Message reply = connection.request(subject, body.getBytes(StandardCharsets.UTF_8), Duration.ofSeconds(5));
        return reply == null ? null : new String(reply.getData(), StandardCharsets.UTF_8);
    }
}
