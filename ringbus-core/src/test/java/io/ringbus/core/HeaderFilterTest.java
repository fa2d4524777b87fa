package io.ringbus.core;

import io.ringbus.core.wire.NatsHeaderBlock;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** MessageFilter.headers: every SNS operator over message headers, matching and not. */
class HeaderFilterTest {

    private static Message message(String... namesAndValues) {
        return Message.of("orders.created", null, Headers.of(namesAndValues), null);
    }

    private static boolean matches(String policy, String... namesAndValues) {
        return MessageFilter.headers(policy).test(message(namesAndValues));
    }

    @Test
    void exactStringMatchesOnlyTheSameText() {
        assertThat(matches("{\"region\":[\"eu\"]}", "region", "eu")).isTrue();
        assertThat(matches("{\"region\":[\"eu\"]}", "region", "EU")).isFalse();
        assertThat(matches("{\"region\":[\"eu\"]}", "region", "eu-west")).isFalse();
        assertThat(matches("{\"region\":[\"eu\"]}", "zone", "eu")).as("absent header").isFalse();
    }

    @Test
    void anyValueOfTheArrayMatches() {
        String policy = "{\"region\":[\"eu\",\"us\",{\"prefix\":\"ap-\"}]}";
        assertThat(matches(policy, "region", "us")).isTrue();
        assertThat(matches(policy, "region", "ap-south")).isTrue();
        assertThat(matches(policy, "region", "sa")).isFalse();
    }

    @Test
    void everyKeyMustMatch() {
        String policy = "{\"region\":[\"eu\"],\"tier\":[\"gold\"]}";
        assertThat(matches(policy, "region", "eu", "tier", "gold")).isTrue();
        assertThat(matches(policy, "region", "eu", "tier", "silver")).isFalse();
        assertThat(matches(policy, "region", "eu")).isFalse();
    }

    @Test
    void aMultiValuedHeaderMatchesWhenAnyValueDoes() {
        assertThat(matches("{\"tag\":[\"b\"]}", "tag", "a", "tag", "b")).isTrue();
        assertThat(matches("{\"tag\":[\"c\"]}", "tag", "a", "tag", "b")).isFalse();
        assertThat(matches("{\"tag\":[{\"prefix\":\"x\"},\"b\"]}", "tag", "a", "tag", "b")).isTrue();
    }

    @Test
    void anythingButOnAMultiValuedHeaderNeedsEveryValueToPass() {
        // As SNS does for String.Array: none of the values may be excluded.
        assertThat(matches("{\"tag\":[{\"anything-but\":\"a\"}]}", "tag", "a", "tag", "b")).isFalse();
        assertThat(matches("{\"tag\":[{\"anything-but\":\"c\"}]}", "tag", "a", "tag", "b")).isTrue();
        assertThat(matches("{\"tag\":[{\"anything-but\":\"a\"},\"a\"]}", "tag", "a", "tag", "b")).as("or a value")
                .isTrue();
        assertThat(matches("{\"tag\":[{\"anything-but\":\"a\"},{\"exists\":false}]}")).as("or absent").isTrue();
    }

    @Test
    void exactNumberMatchesTheSameNumberInAnyDecimalForm() {
        String policy = "{\"amount\":[100]}";
        assertThat(matches(policy, "amount", "100")).isTrue();
        assertThat(matches(policy, "amount", "100.0")).isTrue();
        assertThat(matches(policy, "amount", "1e2")).isTrue();
        assertThat(matches(policy, "amount", "+100")).isTrue();
        assertThat(matches(policy, "amount", "100.5")).isFalse();
        assertThat(matches(policy, "amount", "one hundred")).isFalse();
        assertThat(matches("{\"amount\":[\"100\"]}", "amount", "100.0")).as("a string matches text").isFalse();
    }

    @Test
    void exactBooleanMatchesItsText() {
        assertThat(matches("{\"urgent\":[true]}", "urgent", "true")).isTrue();
        assertThat(matches("{\"urgent\":[true]}", "urgent", "false")).isFalse();
        assertThat(matches("{\"urgent\":[false]}", "urgent", "false")).isTrue();
    }

    @Test
    void prefixSuffixAndEqualsIgnoreCase() {
        assertThat(matches("{\"region\":[{\"prefix\":\"eu-\"}]}", "region", "eu-west-1")).isTrue();
        assertThat(matches("{\"region\":[{\"prefix\":\"eu-\"}]}", "region", "us-east-1")).isFalse();
        assertThat(matches("{\"file\":[{\"suffix\":\".png\"}]}", "file", "cat.png")).isTrue();
        assertThat(matches("{\"file\":[{\"suffix\":\".png\"}]}", "file", "cat.jpg")).isFalse();
        assertThat(matches("{\"region\":[{\"equals-ignore-case\":\"EU\"}]}", "region", "eU")).isTrue();
        assertThat(matches("{\"region\":[{\"equals-ignore-case\":\"EU\"}]}", "region", "eu-west")).isFalse();
    }

    @Test
    void anythingButExcludesValuesListsPrefixesAndSuffixes() {
        assertThat(matches("{\"region\":[{\"anything-but\":\"eu\"}]}", "region", "us")).isTrue();
        assertThat(matches("{\"region\":[{\"anything-but\":\"eu\"}]}", "region", "eu")).isFalse();
        String list = "{\"region\":[{\"anything-but\":[\"eu\",\"us\"]}]}";
        assertThat(matches(list, "region", "ap")).isTrue();
        assertThat(matches(list, "region", "us")).isFalse();
        String numbers = "{\"code\":[{\"anything-but\":[404,500]}]}";
        assertThat(matches(numbers, "code", "200")).isTrue();
        assertThat(matches(numbers, "code", "404.0")).isFalse();
        assertThat(matches("{\"region\":[{\"anything-but\":{\"prefix\":\"eu-\"}}]}", "region", "us-1")).isTrue();
        assertThat(matches("{\"region\":[{\"anything-but\":{\"prefix\":\"eu-\"}}]}", "region", "eu-1")).isFalse();
        assertThat(matches("{\"file\":[{\"anything-but\":{\"suffix\":\".tmp\"}}]}", "file", "a.txt")).isTrue();
        assertThat(matches("{\"file\":[{\"anything-but\":{\"suffix\":\".tmp\"}}]}", "file", "a.tmp")).isFalse();
        assertThat(matches("{\"region\":[{\"anything-but\":\"eu\"}]}")).as("absent header").isFalse();
    }

    @Test
    void numericComparisonsAndRanges() {
        assertThat(matches("{\"n\":[{\"numeric\":[\"=\",301.5]}]}", "n", "301.50")).isTrue();
        assertThat(matches("{\"n\":[{\"numeric\":[\"=\",301.5]}]}", "n", "301.6")).isFalse();
        assertThat(matches("{\"n\":[{\"numeric\":[\">\",100]}]}", "n", "100")).isFalse();
        assertThat(matches("{\"n\":[{\"numeric\":[\">=\",100]}]}", "n", "100")).isTrue();
        assertThat(matches("{\"n\":[{\"numeric\":[\"<\",0]}]}", "n", "-0.5")).isTrue();
        assertThat(matches("{\"n\":[{\"numeric\":[\"<=\",-1]}]}", "n", "-1")).isTrue();
        assertThat(matches("{\"n\":[{\"numeric\":[\"<=\",-1]}]}", "n", "-0.99")).isFalse();
        String range = "{\"n\":[{\"numeric\":[\">\",0,\"<=\",150]}]}";
        assertThat(matches(range, "n", "0")).isFalse();
        assertThat(matches(range, "n", "0.001")).isTrue();
        assertThat(matches(range, "n", "150")).isTrue();
        assertThat(matches(range, "n", "1.5e2")).isTrue();
        assertThat(matches(range, "n", "150.0001")).isFalse();
        assertThat(matches(range, "n", "abc")).as("not a number").isFalse();
        assertThat(matches(range, "n", "")).as("empty").isFalse();
    }

    @Test
    void existsTestsPresenceOnly() {
        assertThat(matches("{\"trace\":[{\"exists\":true}]}", "trace", "")).isTrue();
        assertThat(matches("{\"trace\":[{\"exists\":true}]}", "other", "x")).isFalse();
        assertThat(matches("{\"trace\":[{\"exists\":false}]}", "other", "x")).isTrue();
        assertThat(matches("{\"trace\":[{\"exists\":false}]}", "trace", "x")).isFalse();
        assertThat(matches("{\"trace\":[\"x\",{\"exists\":false}]}", "trace", "x")).as("or a value").isTrue();
    }

    @Test
    void cidrMatchesIpv4AddressesInTheBlock() {
        String policy = "{\"ip\":[{\"cidr\":\"10.0.0.0/24\"}]}";
        assertThat(matches(policy, "ip", "10.0.0.255")).isTrue();
        assertThat(matches(policy, "ip", "10.0.1.0")).isFalse();
        assertThat(matches(policy, "ip", "10.0.0")).isFalse();
        assertThat(matches(policy, "ip", "10.0.0.256")).isFalse();
        assertThat(matches("{\"ip\":[{\"cidr\":\"0.0.0.0/0\"}]}", "ip", "192.168.1.1")).isTrue();
        assertThat(matches("{\"ip\":[{\"cidr\":\"192.168.1.7/32\"}]}", "ip", "192.168.1.7")).isTrue();
        assertThat(matches("{\"ip\":[{\"cidr\":\"192.168.1.7/32\"}]}", "ip", "192.168.1.8")).isFalse();
    }

    @Test
    void topLevelOrMatchesWhenAnyChoiceDoes() {
        String policy = "{\"source\":[\"shop\"],\"$or\":[{\"region\":[\"eu\"]},{\"amount\":[{\"numeric\":[\">\",100]}]}]}";
        assertThat(matches(policy, "source", "shop", "region", "eu")).isTrue();
        assertThat(matches(policy, "source", "shop", "amount", "500")).isTrue();
        assertThat(matches(policy, "source", "shop", "region", "us", "amount", "5")).isFalse();
        assertThat(matches(policy, "source", "web", "region", "eu")).as("and the other key").isFalse();
    }

    @Test
    void nestedOrInsideAnOrChoice() {
        String policy = "{\"$or\":[{\"a\":[\"1\"]},{\"b\":[\"2\"],\"$or\":[{\"c\":[\"3\"]},{\"d\":[\"4\"]}]}]}";
        assertThat(matches(policy, "a", "1")).isTrue();
        assertThat(matches(policy, "b", "2", "d", "4")).isTrue();
        assertThat(matches(policy, "b", "2")).isFalse();
        assertThat(matches(policy, "d", "4")).isFalse();
    }

    @Test
    void headersFromANatsBlockAreMatched() {
        byte[] block = "NATS/1.0\r\nregion: eu\r\namount: 250\r\n\r\n".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        Message message = Message.of("orders", null, NatsHeaderBlock.wrap(block), null);
        assertThat(MessageFilter.headers("{\"region\":[\"eu\"],\"amount\":[{\"numeric\":[\">\",100]}]}").test(message))
                .isTrue();
        assertThat(MessageFilter.headers("{\"region\":[\"us\"]}").test(message)).isFalse();
    }

    @Test
    void textIsTheNormalizedPolicyAndParseReadsItBack() {
        MessageFilter filter = MessageFilter.headers(" { \"region\" : [ \"eu\" , {\"numeric\": [\">\", 1.50]} ] } ");
        assertThat(filter.text()).isEqualTo("{\"region\":[\"eu\",{\"numeric\":[\">\",1.50]}]}");
        assertThat(MessageFilter.parse(filter.text())).isEqualTo(filter);
        assertThat(MessageFilter.parse("headers " + filter.text())).isEqualTo(filter);
        assertThat(filter).hasToString(filter.text());
    }

    @Test
    void aPredicateFilterCallsThePredicate() {
        MessageFilter filter = MessageFilter.of(m -> m.subject().startsWith("orders."));
        assertThat(filter.test(message())).isTrue();
        assertThat(filter.test(Message.of("audit", null, null, null))).isFalse();
        assertThat(filter.text()).startsWith("predicate: ");
    }
}
