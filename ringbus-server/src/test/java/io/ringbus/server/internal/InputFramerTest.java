package io.ringbus.server.internal;

import io.netty.buffer.Unpooled;
import io.ringbus.server.ServerConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link InputFramer}: operations split across reads are parsed once whole, the server-wide input
 * budget makes a second large incomplete message wait while another holds the overdraft, and a
 * client that does not read our output is not read either. All over {@code EmbeddedChannel}s.
 */
class InputFramerTest {
    private static final String TERSE = "{\"verbose\":false}";
    private static final int BUDGET = 1 << 20;

    private EmbeddedServer server;

    @AfterEach
    void close() {
        server.close();
    }

    @Test
    void operationsSentByteByByteAreParsedOnceWhole() {
        server = EmbeddedServer.defaults();
        EmbeddedClient client = server.connect(TERSE);
        String input = "SUB foo 1\r\nPUB foo 5\r\nhello\r\nPING\r\n";
        int pubEnd = input.indexOf("hello\r\n") + "hello\r\n".length();

        StringBuilder seen = new StringBuilder();
        for (int i = 0; i < input.length(); i++) {
            client.send(input.substring(i, i + 1));
            String out = client.output();
            if (i + 1 < pubEnd) {
                assertThat(out).as("output after %d bytes", i + 1).isEmpty();
            }
            seen.append(out);
        }

        assertThat(seen.toString()).isEqualTo("MSG foo 1 5\r\nhello\r\nPONG\r\n");
    }

    @Test
    void publishWhosePayloadArrivesInLaterReadsIsDeliveredWhenComplete() {
        server = EmbeddedServer.defaults();
        EmbeddedClient subscriber = server.connect(TERSE);
        subscriber.send("SUB foo 1\r\n");
        EmbeddedClient publisher = server.connect(TERSE);

        publisher.send("PUB foo 10\r\n");
        assertThat(subscriber.output()).isEmpty();
        publisher.send("hello");
        assertThat(subscriber.output()).isEmpty();
        publisher.send("world\r");
        assertThat(subscriber.output()).isEmpty();
        publisher.send("\nPUB foo 2\r\nhi\r\nPUB foo 3\r\n");

        assertThat(subscriber.output()).isEqualTo("MSG foo 1 10\r\nhelloworld\r\nMSG foo 1 2\r\nhi\r\n");
        publisher.send("bye\r\n");
        assertThat(subscriber.output()).isEqualTo("MSG foo 1 3\r\nbye\r\n");
        assertThat(server.context.inputBudget.used()).isZero();
    }

    @Test
    void payloadLargerThanMaxPayloadClosesTheConnection() {
        server = new EmbeddedServer(ServerConfig.builder().maxPayload(1024).build());
        EmbeddedClient client = server.connect(TERSE);

        client.send("PUB foo 1025\r\n");

        assertThat(client.output()).isEqualTo("-ERR 'Maximum Payload Violation'\r\n");
        assertThat(client.isOpen()).isFalse();
    }

    @Test
    void secondLargeIncompleteMessageWaitsWhileAnotherHoldsTheInputOverdraft() {
        server = new EmbeddedServer(ServerConfig.builder().maxInputBuffer(BUDGET).maxPayload(4 * BUDGET).build());
        EmbeddedClient subscriber = server.connect(TERSE);
        subscriber.send("SUB big.* 1\r\n");
        EmbeddedClient first = server.connect(TERSE);
        EmbeddedClient second = server.connect(TERSE);
        int size = 3 * BUDGET;
        int firstPart = 2 * BUDGET + 100_000; // past twice the budget: no one may take the overdraft from it
        String a = "a".repeat(size);
        String b = "b".repeat(size);

        send(first, "PUB big.a " + size + "\r\n" + a.substring(0, firstPart));
        assertThat(first.reading()).as("the overdraft holder goes on").isTrue();
        assertThat(server.context.inputOverdraft.get()).isNotNull();

        send(second, "PUB big.b " + size + "\r\n" + b.substring(0, 100_000));
        assertThat(second.reading()).as("a second large message waits for the budget").isFalse();
        second.send(b.substring(100_000, 200_000)); // in flight when it stopped: kept, not parsed
        second.advance(Duration.ofMillis(1));
        assertThat(second.reading()).isFalse();

        send(first, a.substring(firstPart) + "\r\n");
        assertThat(subscriber.output()).isEqualTo("MSG big.a 1 " + size + "\r\n" + a + "\r\n");
        assertThat(server.context.inputOverdraft.get()).isNull();

        second.advance(Duration.ofMillis(60));
        assertThat(second.reading()).as("the budget is free again").isTrue();
        send(second, b.substring(200_000) + "\r\n");
        assertThat(subscriber.output()).isEqualTo("MSG big.b 1 " + size + "\r\n" + b + "\r\n");
        assertThat(server.context.inputBudget.used()).isZero();
    }

    @Test
    void incompleteInputIsGivenBackWhenTheConnectionCloses() {
        server = EmbeddedServer.defaults();
        EmbeddedClient client = server.connect(TERSE);
        client.send("PUB foo 100000\r\n" + "x".repeat(90_000));
        assertThat(server.context.inputBudget.used()).isGreaterThanOrEqualTo(90_000);

        client.close();

        assertThat(server.context.inputBudget.used()).isZero();
    }

    @Test
    void clientThatDoesNotReadItsOutputIsNotReadUntilItDoes() {
        server = EmbeddedServer.defaults();
        EmbeddedClient subscriber = server.connect(TERSE);
        subscriber.send("SUB foo 1\r\n");
        EmbeddedClient publisher = server.connect(TERSE);

        publisher.writable(false);
        publisher.send("PUB foo 1\r\na\r\nPING\r\n");
        assertThat(subscriber.output()).isEqualTo("MSG foo 1 1\r\na\r\n");
        assertThat(publisher.reading()).isFalse();

        publisher.send("PUB foo 1\r\nb\r\nPING\r\n"); // already read from the socket: kept, not run
        assertThat(subscriber.output()).isEmpty();
        assertThat(publisher.output()).isEmpty();

        publisher.writable(true);
        assertThat(publisher.reading()).isTrue();
        assertThat(subscriber.output()).isEqualTo("MSG foo 1 1\r\nb\r\n");
        assertThat(publisher.output()).isEqualTo("PONG\r\nPONG\r\n");
    }

    /** One read holding exactly these bytes (a buffer of that capacity, as the budget counts capacity). */
    private static void send(EmbeddedClient client, String text) {
        client.send(Unpooled.wrappedBuffer(text.getBytes(StandardCharsets.ISO_8859_1)));
    }
}
