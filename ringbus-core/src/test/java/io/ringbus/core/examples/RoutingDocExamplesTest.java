package io.ringbus.core.examples;

import io.ringbus.core.Broker;
import io.ringbus.core.ExecutionMode;
import io.ringbus.core.Headers;
import io.ringbus.core.Message;
import io.ringbus.core.MessageFilter;
import io.ringbus.core.MessageHandler;
import io.ringbus.core.SubscribeOptions;
import io.ringbus.core.Subscription;
import io.ringbus.testkit.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * docs/routing.md's filter examples, compiled and checked: the doc's snippets copy the code
 * between the {@code --8<--} markers, and its operator table copies {@link #operatorTable}'s rows.
 * If this breaks, the doc is wrong.
 */
class RoutingDocExamplesTest {

    @Test
    void headerPolicy() {
        // --8<-- [start:headers]
        MessageFilter bigEuOrders = MessageFilter.headers("""
                {"region": ["eu"], "amount": [{"numeric": [">", 100]}]}
                """);
        Message order = Message.of("orders.created", null, Headers.of("region", "eu", "amount", "250.75"), null);
        boolean delivered = bigEuOrders.test(order);                   // true
        String shown = bigEuOrders.text();   // {"region":["eu"],"amount":[{"numeric":[">",100]}]}
        // --8<-- [end:headers]
        assertThat(delivered).isTrue();
        assertThat(shown).isEqualTo("{\"region\":[\"eu\"],\"amount\":[{\"numeric\":[\">\",100]}]}");
    }

    @Test
    void multiValuedHeaders() {
        // --8<-- [start:multi]
        Headers tags = Headers.of("tag", "new", "tag", "promo");
        Message tagged = Message.of("orders.created", null, tags, null);
        MessageFilter.headers("{\"tag\": [\"promo\"]}").test(tagged);                  // true: one value matches
        MessageFilter.headers("{\"tag\": [{\"anything-but\": \"promo\"}]}").test(tagged); // false: one is excluded
        // --8<-- [end:multi]
        assertThat(MessageFilter.headers("{\"tag\": [\"promo\"]}").test(tagged)).isTrue();
        assertThat(MessageFilter.headers("{\"tag\": [{\"anything-but\": \"promo\"}]}").test(tagged)).isFalse();
    }

    @Test
    void bodyPolicy() {
        // --8<-- [start:body]
        MessageFilter goldCustomers = MessageFilter.body("""
                {"customer": {"tier": ["gold", "platinum"]},
                 "lines": {"sku": [{"prefix": "BOOK-"}]}}
                """);
        byte[] json = """
                {"id": "o-1842", "customer": {"id": "c-77", "tier": "gold"},
                 "lines": [{"sku": "BOOK-12", "qty": 1}, {"sku": "PEN-3", "qty": 4}]}
                """.getBytes(StandardCharsets.UTF_8);
        boolean fromNetwork = goldCustomers.test(Message.of("orders.created", null, null, json));   // true
        Map<String, Object> order = Map.of("customer", Map.of("tier", "silver"),
                "lines", List.of(Map.of("sku", "BOOK-9")));
        boolean inProcess = goldCustomers.test(Message.of("orders.created", null, null, order));   // false
        boolean notJson = goldCustomers.test(Message.of("orders.created", null, null, "<order/>")); // false
        // --8<-- [end:body]
        assertThat(fromNetwork).isTrue();
        assertThat(inProcess).isFalse();
        assertThat(notJson).isFalse();
    }

    @Test
    void orPolicy() {
        // --8<-- [start:or]
        // source AND (region OR a large amount)
        MessageFilter filter = MessageFilter.headers("""
                {"source": ["shop"],
                 "$or": [{"region": ["eu"]},
                         {"amount": [{"numeric": [">=", 1000]}]}]}
                """);
        // --8<-- [end:or]
        assertThat(filter.test(Message.of("s", null, Headers.of("source", "shop", "amount", "1e3"), null))).isTrue();
        assertThat(filter.test(Message.of("s", null, Headers.of("source", "shop", "region", "us"), null))).isFalse();
    }

    @Test
    void predicateAndSpec() {
        // --8<-- [start:predicate]
        MessageFilter vip = MessageFilter.of(m -> m.payload() instanceof Order o && o.total() > 10_000);
        // --8<-- [end:predicate]
        // --8<-- [start:parse]
        MessageFilter fromClient = MessageFilter.parse("body {\"customer\": {\"tier\": [\"gold\"]}}");
        String shown = fromClient.text();                      // body {"customer":{"tier":["gold"]}}
        boolean same = MessageFilter.parse(shown).equals(fromClient);   // true
        // --8<-- [end:parse]
        assertThat(vip.test(Message.of("s", null, null, new Order(20_000)))).isTrue();
        assertThat(vip.text()).startsWith("predicate: ");
        assertThat(shown).isEqualTo("body {\"customer\":{\"tier\":[\"gold\"]}}");
        assertThat(same).isTrue();
    }

    record Order(long total) {
    }

    @Test
    void errorsNameTheBadPart() {
        // --8<-- [start:errors]
        assertThatThrownBy(() -> MessageFilter.headers("{\"region\": [{\"prefixx\": \"eu\"}]}"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("filter policy: unknown operator \"prefixx\" at $.region[0]");
        assertThatThrownBy(() -> MessageFilter.headers("{\"amount\": [{\"numeric\": [\">\", \"abc\"]}]}"))
                .hasMessage("filter policy: numeric range needs a number after \">\" at $.amount[0].numeric[1]: \"abc\"");
        // --8<-- [end:errors]
    }

    /** The doc's operator table: operator, policy (over a header {@code v}), a matching value, a value that does not match. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            exact string       | {"v": ["eu", "us"]}                               | us          | EU
            exact number       | {"v": [100]}                                      | 1e2         | 100.5
            boolean            | {"v": [true]}                                     | true        | yes
            prefix             | {"v": [{"prefix": "eu-"}]}                        | eu-west-1   | us-east-1
            suffix             | {"v": [{"suffix": ".png"}]}                       | cat.png     | cat.jpg
            equals-ignore-case | {"v": [{"equals-ignore-case": "EU"}]}             | eU          | eu-west
            anything-but       | {"v": [{"anything-but": ["eu", "us"]}]}           | ap          | us
            anything-but num   | {"v": [{"anything-but": 404}]}                    | 200         | 404.0
            anything-but pref  | {"v": [{"anything-but": {"prefix": "test-"}}]}   | prod-1      | test-1
            numeric =          | {"v": [{"numeric": ["=", 301.5]}]}               | 301.50      | 301
            numeric range      | {"v": [{"numeric": [">", 0, "<=", 150]}]}        | 150         | 0
            numeric open       | {"v": [{"numeric": ["<", -1.5]}]}                 | -2          | abc
            exists true        | {"v": [{"exists": true}]}                         | anything    | `absent`
            exists false       | {"v": [{"exists": false}]}                        | `absent`    | anything
            cidr               | {"v": [{"cidr": "10.0.0.0/24"}]}                  | 10.0.0.7    | 10.0.1.7
            """)
    void operatorTable(String operator, String policy, String matching, String notMatching) {
        MessageFilter filter = MessageFilter.headers(policy);
        assertThat(filter.test(withV(matching))).as("%s matches %s", policy, matching).isTrue();
        assertThat(filter.test(withV(notMatching))).as("%s rejects %s", policy, notMatching).isFalse();
    }

    private static Message withV(String value) {
        return Message.of("s", null, "absent".equals(value) ? Headers.EMPTY : Headers.of("v", value), null);
    }

    @Test
    void aSubscriptionTakesAFilter() {
        try (Broker broker = Broker.builder().name("routing-doc").build()) {
            List<Object> received = new CopyOnWriteArrayList<>();
            MessageHandler handler = message -> received.add(message.payload());
            // --8<-- [start:subscribe]
            Subscription euOrders = broker.subscribe("orders.*", handler, SubscribeOptions.defaults()
                    .mode(ExecutionMode.WORKER)
                    .filter(MessageFilter.headers("{\"region\":[\"eu\"],\"amount\":[{\"numeric\":[\">\",100]}]}")));
            long rejected = euOrders.filtered();
            // --8<-- [end:subscribe]
            assertThat(rejected).isZero();
            broker.publish("orders.created", null, Headers.of("region", "eu", "amount", "150"), "big eu");
            broker.publish("orders.created", null, Headers.of("region", "eu", "amount", "50"), "small eu");
            broker.publish("orders.created", null, Headers.of("region", "us", "amount", "150"), "big us");
            Await.until("the big eu order", () -> received.size() == 1 && euOrders.filtered() == 2,
                    () -> received + ", filtered " + euOrders.filtered());
            assertThat(received).containsExactly("big eu");
        }
    }
}
