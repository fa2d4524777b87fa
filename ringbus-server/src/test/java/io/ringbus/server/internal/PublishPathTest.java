package io.ringbus.server.internal;

import io.ringbus.core.Scope;
import io.ringbus.server.Permissions;
import io.ringbus.server.ServerConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link PublishPath}: PUB and HPUB from one real connection to subscribers on others, all over
 * {@code EmbeddedChannel}s, compared byte for byte with what nats-server writes: the MSG and
 * HMSG lines, verbose {@code +OK} before the deliveries, no-responders, permissions.
 */
class PublishPathTest {
    private static final String TERSE = "{\"verbose\":false}";
    private static final String HEADERS = "NATS/1.0\r\nA: b\r\n\r\n";

    private EmbeddedServer server;

    @AfterEach
    void close() {
        server.close();
    }

    private EmbeddedServer open() {
        server = EmbeddedServer.defaults();
        return server;
    }

    @Test
    void publishReachesASubscriberOnAnotherConnectionByteForByte() {
        EmbeddedClient subscriber = open().connect(TERSE);
        subscriber.send("SUB foo.* 42\r\n");
        EmbeddedClient publisher = server.connect(TERSE);

        publisher.send("PUB foo.bar 5\r\nhello\r\nPUB foo.baz reply.to 3\r\na\r\n\r\nPUB foo.empty 0\r\n\r\n");

        assertThat(subscriber.output()).isEqualTo("MSG foo.bar 42 5\r\nhello\r\n"
                + "MSG foo.baz 42 reply.to 3\r\na\r\n\r\n" + "MSG foo.empty 42 0\r\n\r\n");
        assertThat(publisher.output()).isEmpty();
        assertThat(server.context.counters.messagesIn.sum()).isEqualTo(3);
        assertThat(server.context.counters.payloadBytesIn.sum()).isEqualTo(5 + 3);
    }

    @Test
    void payloadIsBinaryTransparent() {
        EmbeddedClient subscriber = open().connect(TERSE);
        subscriber.send("SUB bin 1\r\n");
        EmbeddedClient publisher = server.connect(TERSE);
        StringBuilder payload = new StringBuilder();
        for (int b = 0; b < 256; b++) {
            payload.append((char) b);
        }

        publisher.send("PUB bin 256\r\n" + payload + "\r\n");

        assertThat(subscriber.output()).isEqualTo("MSG bin 1 256\r\n" + payload + "\r\n");
    }

    @Test
    void verboseOkComesBeforeTheEchoOfTheSamePublish() {
        EmbeddedClient client = open().connect("{\"verbose\":true}");
        client.send("SUB foo 1\r\n");
        assertThat(client.output()).isEqualTo("+OK\r\n");

        client.send("PUB foo 2\r\nhi\r\nPUB foo 2\r\nho\r\n");

        assertThat(client.output()).isEqualTo("+OK\r\nMSG foo 1 2\r\nhi\r\n+OK\r\nMSG foo 1 2\r\nho\r\n");
    }

    @Test
    void echoOffSkipsTheClientsOwnMessagesButNotOthers() {
        EmbeddedClient client = open().connect("{\"verbose\":false,\"echo\":false}");
        client.send("SUB foo 1\r\nPUB foo 2\r\nhi\r\n");
        server.connect(TERSE).send("PUB foo 2\r\nho\r\n");

        assertThat(client.output()).isEqualTo("MSG foo 1 2\r\nho\r\n");
    }

    @Test
    void requestWithoutRespondersGetsA503OnItsReplySubscription() {
        EmbeddedClient requester = open().connect("{\"verbose\":false,\"headers\":true,\"no_responders\":true}");
        requester.send("SUB _INBOX.abc.* 9\r\n");

        requester.send("PUB service _INBOX.abc.1 2\r\nhi\r\n");

        String status = "NATS/1.0 503\r\n\r\n";
        assertThat(requester.output()).isEqualTo("HMSG _INBOX.abc.1 9 " + status.length() + " " + status.length()
                + "\r\n" + status + "\r\n");
    }

    @Test
    void requestWithARespondentGetsNoStatus() {
        EmbeddedClient requester = open().connect("{\"verbose\":false,\"headers\":true,\"no_responders\":true}");
        EmbeddedClient responder = server.connect(TERSE);
        responder.send("SUB service 1\r\n");
        requester.send("SUB _INBOX.abc.* 9\r\n");

        requester.send("PUB service _INBOX.abc.1 2\r\nhi\r\n");

        assertThat(requester.output()).isEmpty();
        assertThat(responder.output()).isEqualTo("MSG service 1 _INBOX.abc.1 2\r\nhi\r\n");
    }

    @Test
    void deniedPublishGetsAnErrorAndReachesNoOne() {
        server = new EmbeddedServer(ServerConfig.builder().token("limited", Scope.PUBLIC).token("open", Scope.PUBLIC)
                .permissions("limited", Permissions.builder().publishDeny("secret.>").build()).build());
        EmbeddedClient subscriber = server.connect("{\"verbose\":false,\"auth_token\":\"open\"}");
        subscriber.send("SUB > 1\r\n");
        EmbeddedClient publisher = server.connect("{\"verbose\":true,\"auth_token\":\"limited\"}");

        publisher.send("PUB secret.plan 2\r\nhi\r\nPUB public 2\r\nok\r\n");

        // As nats-server: the refused PUB gets the -ERR and no +OK; the connection stays.
        assertThat(publisher.output())
                .isEqualTo("-ERR 'Permissions Violation for Publish to \"secret.plan\"'\r\n+OK\r\n");
        assertThat(subscriber.output()).isEqualTo("MSG public 1 2\r\nok\r\n");
        assertThat(publisher.isOpen()).isTrue();
        assertThat(server.context.counters.permissionViolations.sum()).isEqualTo(1);
    }

    @Test
    void hpubIsForwardedByteForByteAsHmsg() {
        EmbeddedClient subscriber = open().connect("{\"verbose\":false,\"headers\":true}");
        subscriber.send("SUB foo 3\r\n");
        EmbeddedClient publisher = server.connect("{\"verbose\":false,\"headers\":true}");
        int total = HEADERS.length() + 5;

        publisher.send("HPUB foo " + HEADERS.length() + " " + total + "\r\n" + HEADERS + "hello\r\n"
                + "HPUB foo r.1 " + HEADERS.length() + " " + HEADERS.length() + "\r\n" + HEADERS + "\r\n");

        assertThat(subscriber.output()).isEqualTo("HMSG foo 3 " + HEADERS.length() + " " + total + "\r\n" + HEADERS
                + "hello\r\n" + "HMSG foo 3 r.1 " + HEADERS.length() + " " + HEADERS.length() + "\r\n" + HEADERS + "\r\n");
    }

    @Test
    void hpubWithAnEmptyHeaderBlockIsDeliveredAsMsgAsNatsServerDoes() {
        // nats-server 2.9.10 writes HMSG only for a header block of at least one byte (msgHeader).
        EmbeddedClient subscriber = open().connect("{\"verbose\":false,\"headers\":true}");
        subscriber.send("SUB foo 3\r\n");
        EmbeddedClient publisher = server.connect("{\"verbose\":false,\"headers\":true}");

        publisher.send("HPUB foo 0 5\r\nhello\r\n");

        assertThat(subscriber.output()).isEqualTo("MSG foo 3 5\r\nhello\r\n");
    }

    @Test
    void subscriberWithoutHeadersGetsOnlyThePayloadOfAnHpub() {
        EmbeddedClient subscriber = open().connect(TERSE);
        subscriber.send("SUB foo 3\r\n");
        EmbeddedClient publisher = server.connect("{\"verbose\":false,\"headers\":true}");

        publisher.send("HPUB foo " + HEADERS.length() + " " + (HEADERS.length() + 5) + "\r\n" + HEADERS + "hello\r\n");

        assertThat(subscriber.output()).isEqualTo("MSG foo 3 5\r\nhello\r\n");
    }

    @Test
    void hpubFromAClientThatDidNotAnnounceHeadersClosesTheConnection() {
        EmbeddedClient subscriber = open().connect("{\"verbose\":false,\"headers\":true}");
        subscriber.send("SUB foo 3\r\n");
        EmbeddedClient publisher = server.connect(TERSE);

        publisher.send("HPUB foo " + HEADERS.length() + " " + HEADERS.length() + "\r\n" + HEADERS + "\r\n");

        assertThat(publisher.isOpen()).isFalse();
        assertThat(publisher.output()).isEmpty();
        assertThat(subscriber.output()).isEmpty();
    }

    @Test
    void publishToAnInvalidSubjectIsAnErrorThatKeepsTheConnection() {
        EmbeddedClient client = open().connect("{\"verbose\":false,\"pedantic\":true}");

        client.send("PUB foo.* 2\r\nhi\r\nPING\r\n");

        assertThat(client.output()).isEqualTo("-ERR 'Invalid Publish Subject'\r\nPONG\r\n");
        assertThat(client.isOpen()).isTrue();
    }
}
