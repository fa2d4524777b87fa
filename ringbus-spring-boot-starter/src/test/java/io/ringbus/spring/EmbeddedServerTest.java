package io.ringbus.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.ringbus.core.ExecutionMode;
import io.ringbus.testkit.Await;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@ExtendWith(OutputCaptureExtension.class)
class EmbeddedServerTest {

    /** A payload type sent as JSON by a NATS client. */
    public record Quote(String symbol, long price) {
    }

    static class QuoteListener {
        final List<Quote> quotes = new CopyOnWriteArrayList<>();

        @RingbusListener(subject = "quotes.>", mode = ExecutionMode.VIRTUAL)
        void onQuote(Quote quote) {
            quotes.add(quote);
        }

        @RingbusListener(subject = "quotes.double", mode = ExecutionMode.WORKER, queueGroup = "doublers")
        Quote twice(Quote quote) {
            return new Quote(quote.symbol(), quote.price() * 2);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class App {
        @Bean
        QuoteListener quoteListener() {
            return new QuoteListener();
        }
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RingbusAutoConfiguration.class, RingbusServerAutoConfiguration.class))
            .withUserConfiguration(App.class)
            .withPropertyValues("ringbus.server.enabled=true", "ringbus.server.port=0", "ringbus.server.host=127.0.0.1",
                    "ringbus.server.tokens.s3cr3t=PUBLIC", "ringbus.server.users.alice.password=wonderland",
                    "ringbus.server.users.alice.scope=PRIVATE", "ringbus.subjects[quotes.>]=PUBLIC");

    private static Options.Builder options(int port) {
        return new Options.Builder().server("nats://127.0.0.1:" + port).noReconnect()
                .connectionTimeout(Duration.ofSeconds(2));
    }

    // The example application never said where NATS clients connect (issue 28).
    @Test
    void theStartLogNamesTheAddressNatsClientsConnectToAndTheMonitoringUrl(CapturedOutput output) {
        runner.run(context -> assertThat(output.getAll()).contains("ringbus NATS server listening on 127.0.0.1:"
                + context.getBean(EmbeddedRingbusServer.class).port() + "\n").doesNotContain("monitoring at"));
        runner.withPropertyValues("ringbus.server.monitor-port=0").run(context -> {
            EmbeddedRingbusServer server = context.getBean(EmbeddedRingbusServer.class);
            assertThat(output.getAll()).contains("ringbus NATS server listening on 127.0.0.1:" + server.port()
                    + " (monitoring at http://127.0.0.1:" + server.server().monitorPort() + "/)");
        });
    }

    @Test
    void tokensAndUsersFromPropertiesAreTheOnlyWayIn() throws Exception {
        runner.run(context -> {
            int port = context.getBean(EmbeddedRingbusServer.class).port();
            Connection token = Nats.connect(options(port).token("s3cr3t".toCharArray()).build());
            Connection user = Nats.connect(options(port).userInfo("alice", "wonderland").build());
            assertThat(token.getStatus()).isEqualTo(Connection.Status.CONNECTED);
            assertThat(user.getStatus()).isEqualTo(Connection.Status.CONNECTED);
            token.close();
            user.close();
            assertThatThrownBy(() -> Nats.connect(options(port).build())).isInstanceOf(Exception.class);
            assertThatThrownBy(() -> Nats.connect(options(port).userInfo("alice", "wrong").build()))
                    .isInstanceOf(Exception.class);
        });
    }

    @Test
    void jsonFromTheNetworkReachesTypedListenersAndAReturnValueAnswersANetworkRequest() throws Exception {
        runner.run(context -> {
            QuoteListener listener = context.getBean(QuoteListener.class);
            int port = context.getBean(EmbeddedRingbusServer.class).port();
            // a PRIVATE user: the inbox of a request takes the default scope (PRIVATE), above a PUBLIC token's
            Connection nats = Nats.connect(options(port).userInfo("alice", "wonderland").build());
            try {
                nats.publish("quotes.acme", "{\"symbol\":\"ACME\",\"price\":101}".getBytes(StandardCharsets.UTF_8));
                Await.until("the quote converted", () -> listener.quotes.contains(new Quote("ACME", 101)),
                        () -> listener.quotes);
                var reply = nats.request("quotes.double", "{\"symbol\":\"X\",\"price\":21}".getBytes(
                        StandardCharsets.UTF_8), Duration.ofSeconds(10));
                assertThat(new String(reply.getData(), StandardCharsets.UTF_8))
                        .isEqualTo("{\"symbol\":\"X\",\"price\":42}");
            } finally {
                nats.close();
            }
        });
    }
}
