package io.ringbus.core;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** MessageFilter.body: SNS's MessageBody scope over byte[], text and Map payloads. */
class BodyFilterTest {
    private static final String ORDER = """
            {"id": "o-1", "status": "paid", "total": 250.5, "express": true, "note": null,
             "customer": {"tier": "gold", "address": {"country": "FR"}},
             "tags": ["new", "promo"],
             "items": [{"sku": "A-1", "qty": 2}, {"sku": "B-7", "qty": 1}],
             "ignored": {"deep": [1, 2, {"x": "y"}]}}
            """;

    private static Message message(Object payload) {
        return Message.of("orders.created", null, null, payload);
    }

    private static boolean matches(String policy, Object payload) {
        return MessageFilter.body(policy).test(message(payload));
    }

    private static boolean matchesOrder(String policy) {
        boolean text = matches(policy, ORDER);
        boolean bytes = matches(policy, ORDER.getBytes(StandardCharsets.UTF_8));
        assertThat(bytes).as("byte[] and String payloads agree for %s", policy).isEqualTo(text);
        return text;
    }

    @Test
    void exactValuesAreTyped() {
        assertThat(matchesOrder("{\"status\":[\"paid\"]}")).isTrue();
        assertThat(matchesOrder("{\"status\":[\"open\"]}")).isFalse();
        assertThat(matchesOrder("{\"total\":[250.5]}")).isTrue();
        assertThat(matchesOrder("{\"total\":[\"250.5\"]}")).as("a string is not the number").isFalse();
        assertThat(matchesOrder("{\"express\":[true]}")).isTrue();
        assertThat(matchesOrder("{\"express\":[false]}")).isFalse();
        assertThat(matchesOrder("{\"note\":[null]}")).isTrue();
        assertThat(matchesOrder("{\"id\":[null]}")).isFalse();
    }

    @Test
    void nestedObjectsFollowNestedKeys() {
        assertThat(matchesOrder("{\"customer\":{\"tier\":[\"gold\"]}}")).isTrue();
        assertThat(matchesOrder("{\"customer\":{\"address\":{\"country\":[\"FR\",\"DE\"]}}}")).isTrue();
        assertThat(matchesOrder("{\"customer\":{\"address\":{\"country\":[\"US\"]}}}")).isFalse();
        assertThat(matchesOrder("{\"customer\":{\"tier\":[\"gold\"]},\"status\":[\"open\"]}")).as("AND").isFalse();
    }

    @Test
    void arraysInTheBodyMatchWhenAnyElementDoes() {
        assertThat(matchesOrder("{\"tags\":[\"promo\"]}")).isTrue();
        assertThat(matchesOrder("{\"tags\":[{\"prefix\":\"ne\"}]}")).isTrue();
        assertThat(matchesOrder("{\"tags\":[\"old\"]}")).isFalse();
        assertThat(matchesOrder("{\"tags\":[{\"anything-but\":\"promo\"}]}")).as("every element must pass").isFalse();
        assertThat(matchesOrder("{\"tags\":[{\"anything-but\":[\"old\",\"void\"]}]}")).isTrue();
        assertThat(matchesOrder("{\"items\":{\"sku\":[{\"anything-but\":{\"prefix\":\"C-\"}}]}}")).isTrue();
        assertThat(matchesOrder("{\"items\":{\"sku\":[{\"anything-but\":\"B-7\"}]}}")).isFalse();
        assertThat(matchesOrder("{\"items\":{\"sku\":[\"B-7\"]}}")).isTrue();
        assertThat(matchesOrder("{\"items\":{\"qty\":[{\"numeric\":[\">\",1]}]}}")).isTrue();
        assertThat(matchesOrder("{\"items\":{\"qty\":[{\"numeric\":[\">\",2]}]}}")).isFalse();
    }

    @Test
    void operatorsOnBodyValues() {
        assertThat(matchesOrder("{\"total\":[{\"numeric\":[\">\",100,\"<=\",250.5]}]}")).isTrue();
        assertThat(matchesOrder("{\"total\":[{\"numeric\":[\"<\",250.5]}]}")).isFalse();
        assertThat(matchesOrder("{\"status\":[{\"numeric\":[\">\",0]}]}")).as("text is no number").isFalse();
        assertThat(matchesOrder("{\"status\":[{\"anything-but\":[\"open\",\"void\"]}]}")).isTrue();
        assertThat(matchesOrder("{\"status\":[{\"anything-but\":{\"suffix\":\"id\"}}]}")).isFalse();
        assertThat(matchesOrder("{\"customer\":{\"tier\":[{\"equals-ignore-case\":\"GOLD\"}]}}")).isTrue();
        assertThat(matchesOrder("{\"id\":[{\"suffix\":\"-1\"}]}")).isTrue();
        assertThat(matchesOrder("{\"customer\":[{\"anything-but\":\"x\"}]}")).as("an object is no value").isFalse();
    }

    @Test
    void existsTestsKeysAtAnyDepth() {
        assertThat(matchesOrder("{\"note\":[{\"exists\":true}]}")).as("null is no value, as in SNS").isFalse();
        assertThat(matchesOrder("{\"note\":[{\"exists\":false}]}")).isTrue();
        assertThat(matchesOrder("{\"id\":[{\"exists\":true}]}")).isTrue();
        assertThat(matchesOrder("{\"customer\":{\"address\":[{\"exists\":true}]}}")).isTrue();
        assertThat(matchesOrder("{\"customer\":{\"phone\":[{\"exists\":false}]}}")).isTrue();
        assertThat(matchesOrder("{\"customer\":{\"phone\":[{\"exists\":true}]}}")).isFalse();
        assertThat(matchesOrder("{\"refund\":[{\"exists\":false}]}")).isTrue();
    }

    @Test
    void orAtTheTopAndNestedInAnObject() {
        assertThat(matchesOrder("{\"$or\":[{\"status\":[\"open\"]},{\"express\":[true]}]}")).isTrue();
        assertThat(matchesOrder("{\"customer\":{\"$or\":[{\"tier\":[\"silver\"]},{\"address\":{\"country\":[\"FR\"]}}]}}"))
                .isTrue();
        assertThat(matchesOrder("{\"customer\":{\"$or\":[{\"tier\":[\"silver\"]},{\"address\":{\"country\":[\"IT\"]}}]}}"))
                .isFalse();
    }

    @Test
    void mapPayloadsAreTestedAsTheyAre() {
        Map<String, Object> order = Map.of("status", "paid", "total", 250, "express", true,
                "customer", Map.of("tier", "gold"), "items", List.of(Map.of("sku", "A-1"), Map.of("sku", "B-7")));
        assertThat(matches("{\"total\":[{\"numeric\":[\">=\",250]}],\"express\":[true]}", order)).isTrue();
        assertThat(matches("{\"customer\":{\"tier\":[\"gold\"]},\"items\":{\"sku\":[\"B-7\"]}}", order)).isTrue();
        assertThat(matches("{\"total\":[\"250\"]}", order)).isFalse();
        assertThat(matches("{\"customer\":{\"tier\":[\"silver\"]}}", order)).isFalse();
    }

    @Test
    void aPayloadThatIsNotAJsonObjectDoesNotMatch() {
        String policy = "{\"status\":[{\"exists\":false}]}";
        assertThat(matches(policy, "{}")).as("a valid empty object").isTrue();
        assertThat(matches(policy, "{\"status\":")).as("truncated").isFalse();
        assertThat(matches(policy, "{} trailing")).isFalse();
        assertThat(matches(policy, "[1, 2]")).as("an array").isFalse();
        assertThat(matches(policy, "not json".getBytes(StandardCharsets.UTF_8))).isFalse();
        assertThat(matches(policy, new Object())).isFalse();
        assertThat(matches(policy, null)).isFalse();
        assertThat(matches(policy, new StringBuilder("{}"))).as("any CharSequence").isTrue();
    }

    @Test
    void oneFilterServesSeveralThreadsAtOnce() throws Exception {
        MessageFilter body = MessageFilter.body("{\"customer\":{\"tier\":[\"gold\"]},\"total\":[{\"numeric\":[\">\",100]}]}");
        MessageFilter headers = MessageFilter.headers("{\"region\":[\"eu\"],\"amount\":[{\"numeric\":[\">\",100]}]}");
        Message gold = message(ORDER.getBytes(StandardCharsets.UTF_8));
        Message silver = message(ORDER.replace("gold", "silver").getBytes(StandardCharsets.UTF_8));
        Message eu = Message.of("s", null, Headers.of("region", "eu", "amount", "101"), null);
        Message us = Message.of("s", null, Headers.of("region", "us", "amount", "101"), null);
        int threads = 4;
        int rounds = 5_000;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<Integer>> wrong = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                wrong.add(pool.submit(() -> {
                    int mistakes = 0;
                    for (int i = 0; i < rounds; i++) {
                        mistakes += body.test(gold) ? 0 : 1;
                        mistakes += body.test(silver) ? 1 : 0;
                        mistakes += headers.test(eu) ? 0 : 1;
                        mistakes += headers.test(us) ? 1 : 0;
                    }
                    return mistakes;
                }));
            }
            for (Future<Integer> mistakes : wrong) {
                assertThat(mistakes.get(30, TimeUnit.SECONDS)).isZero();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void bodyFilterTextCarriesItsScope() {
        MessageFilter filter = MessageFilter.body("{\"customer\": {\"tier\": [\"gold\"]}}");
        assertThat(filter.text()).isEqualTo("body {\"customer\":{\"tier\":[\"gold\"]}}");
        assertThat(MessageFilter.parse(filter.text())).isEqualTo(filter);
        assertThat(MessageFilter.parse(filter.text())).isNotEqualTo(MessageFilter.headers("{\"customer\":[\"x\"]}"));
    }
}
