package io.ringbus.core;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/** A bad policy fails at compile time with a message naming the bad part by its JSON path. */
class FilterPolicyErrorsTest {

    static Stream<Arguments> badHeaderPolicies() {
        return Stream.of(
                arguments("{\"region\":[{\"prefixx\":\"eu\"}]}", "filter policy: unknown operator \"prefixx\" at $.region[0]"),
                arguments("{\"amount\":[{\"numeric\":[\">\",\"abc\"]}]}",
                        "filter policy: numeric range needs a number after \">\" at $.amount[0].numeric[1]: \"abc\""),
                arguments("{\"amount\":[{\"numeric\":[\">\"]}]}",
                        "filter policy: numeric range needs a number after \">\" at $.amount[0].numeric[1]"),
                arguments("{\"amount\":[{\"numeric\":[\"~\",1]}]}",
                        "filter policy: unknown numeric operator (=, <, <=, >, >=) at $.amount[0].numeric[0]: \"~\""),
                arguments("{\"amount\":[{\"numeric\":[\"<\",1,\">\",0]}]}",
                        "filter policy: numeric takes one lower bound (> or >=) and then one upper bound (< or <=)"
                                + " at $.amount[0].numeric[2]: \">\""),
                arguments("{\"amount\":[{\"numeric\":[\"<\",1,\"<=\",0]}]}",
                        "filter policy: numeric takes one upper bound (< or <=) at $.amount[0].numeric[2]: \"<=\""),
                arguments("{\"amount\":[{\"numeric\":[\">\",5,\"<\",5]}]}",
                        "filter policy: numeric range is empty at $.amount[0].numeric: [\">\",5,\"<\",5]"),
                arguments("{\"amount\":[{\"numeric\":[\"=\",1,\"<\",5]}]}",
                        "filter policy: \"=\" takes no other bound at $.amount[0].numeric[0]: [\"=\",1,\"<\",5]"),
                arguments("{\"amount\":[{\"numeric\":[\">\",0,\"<\",1,\"<\",2]}]}",
                        "filter policy: numeric takes an array of one or two bounds such as [\">\", 0, \"<=\", 150]"
                                + " at $.amount[0].numeric: [\">\",0,\"<\",1,\"<\",2]"),
                arguments("{\"amount\":[{\"numeric\":5}]}",
                        "filter policy: numeric takes an array of one or two bounds such as [\">\", 0, \"<=\", 150]"
                                + " at $.amount[0].numeric: 5"),
                arguments("{\"amount\":[1e999]}", "filter policy: number out of range at $.amount[0]: 1e999"),
                arguments("{\"region\":[{\"prefix\":1}]}", "filter policy: prefix takes a string at $.region[0].prefix: 1"),
                arguments("{\"region\":[{\"suffix\":[\"a\"]}]}",
                        "filter policy: suffix takes a string at $.region[0].suffix: [\"a\"]"),
                arguments("{\"region\":[{\"equals-ignore-case\":null}]}",
                        "filter policy: equals-ignore-case takes a string at $.region[0].equals-ignore-case: null"),
                arguments("{\"region\":[{\"prefix\":\"a\",\"suffix\":\"b\"}]}",
                        "filter policy: an operator object takes exactly one operator, not 2 at $.region[0]:"
                                + " {\"prefix\":\"a\",\"suffix\":\"b\"}"),
                arguments("{\"region\":[{\"anything-but\":[]}]}",
                        "filter policy: anything-but takes a string, a number, a non-empty array of them, or one of"
                                + " {\"prefix\": ...}, {\"suffix\": ...}, {\"equals-ignore-case\": ...}"
                                + " at $.region[0].anything-but: []"),
                arguments("{\"region\":[{\"anything-but\":[\"a\",true]}]}",
                        "filter policy: anything-but's array takes strings and numbers at $.region[0].anything-but[1]: true"),
                arguments("{\"region\":[{\"anything-but\":{\"numeric\":[\">\",1]}}]}",
                        "filter policy: anything-but takes prefix, suffix or equals-ignore-case, not \"numeric\""
                                + " at $.region[0].anything-but"),
                arguments("{\"trace\":[{\"exists\":\"yes\"}]}", "filter policy: exists takes true or false at $.trace[0].exists: \"yes\""),
                arguments("{\"ip\":[{\"cidr\":\"10.0.0.0\"}]}",
                        "filter policy: cidr takes an IPv4 block such as \"10.0.0.0/24\" at $.ip[0].cidr: \"10.0.0.0\""),
                arguments("{\"ip\":[{\"cidr\":\"10.0.0.0/33\"}]}",
                        "filter policy: cidr takes an IPv4 block such as \"10.0.0.0/24\" at $.ip[0].cidr: \"10.0.0.0/33\""),
                arguments("{\"ip\":[{\"cidr\":\"2001:db8::/32\"}]}",
                        "filter policy: cidr supports IPv4 blocks only at $.ip[0].cidr: \"2001:db8::/32\""),
                arguments("{\"region\":\"eu\"}", "filter policy: a key takes an array of values at $.region: \"eu\""),
                arguments("{\"region\":[]}", "filter policy: a key needs at least one value at $.region: []"),
                arguments("{\"region\":[[\"eu\"]]}",
                        "filter policy: a value cannot be an array (arrays of values do not nest) at $.region[0]: [\"eu\"]"),
                arguments("{\"region\":[null]}", "filter policy: null matches no header value (header values are text;"
                        + " use {\"exists\": false}) at $.region[0]: null"),
                arguments("{\"customer\":{\"tier\":[\"gold\"]}}", "filter policy: a header policy takes an array of"
                        + " values, not an object (nested keys are for body policies) at $.customer: {\"tier\":[\"gold\"]}"),
                arguments("{\"$or\":[{\"a\":[\"1\"]}]}",
                        "filter policy: $or takes an array of at least two policy objects at $.$or: [{\"a\":[\"1\"]}]"),
                arguments("{\"$or\":[{\"a\":[\"1\"]},\"b\"]}", "filter policy: a $or choice must be a policy object at $.$or[1]: \"b\""),
                arguments("{\"$or\":[{\"a\":[\"1\"]},{}]}", "filter policy: an empty policy object: give at least one key at $.$or[1]"),
                arguments("{}", "filter policy: an empty policy object: give at least one key at $"),
                arguments("[\"eu\"]", "filter policy: a policy must be a JSON object at $: [\"eu\"]"),
                arguments("", "filter policy: the policy is empty at $"),
                arguments("{\"a\":[\"1\"],\"a\":[\"2\"]}", "filter policy: duplicate key \"a\" at $.a"),
                arguments("{\"a b\":[1],\"a b\":[2]}", "filter policy: duplicate key \"a b\" at $[\"a b\"]"),
                arguments("{\"region\":[\"eu\"}", "filter policy: invalid JSON at line 1, column 16: Unexpected close marker"
                        + " '}': expected ']' (for Array starting at [line: 1, column: 11])"),
                arguments("{\"region\":[\"eu\"]} {}", "filter policy: invalid JSON at line 1, column 19: content after the policy object"));
    }

    @ParameterizedTest
    @MethodSource("badHeaderPolicies")
    void aBadHeaderPolicyIsRejectedNamingTheBadPart(String policy, String message) {
        assertThatThrownBy(() -> MessageFilter.headers(policy)).isInstanceOf(IllegalArgumentException.class).hasMessage(message);
    }

    @Test
    void aBadBodyPolicyNamesTheNestedPath() {
        assertThatThrownBy(() -> MessageFilter.body("{\"order\":{\"lines\":{\"qty\":[{\"numeric\":[\">\",\"x\"]}]}}}"))
                .hasMessage("filter policy: numeric range needs a number after \">\" at $.order.lines.qty[0].numeric[1]: \"x\"");
        assertThatThrownBy(() -> MessageFilter.body("{\"order\":{\"$or\":[{\"a\":[1]},{\"b\":\"2\"}]}}"))
                .hasMessage("filter policy: a key takes an array of values at $.order.$or[1].b: \"2\"");
    }

    @Test
    void limitsAreCheckedAndNamed() {
        String longPolicy = "{\"a\":[\"" + "x".repeat(16_384) + "\"]}";
        assertThatThrownBy(() -> MessageFilter.headers(longPolicy))
                .hasMessage("filter policy: 16394 characters exceed the limit of 16384 at $");
        String deep = "{\"a\":".repeat(16) + "[1]" + "}".repeat(16);
        assertThatThrownBy(() -> MessageFilter.body(deep))
                .hasMessage("filter policy: nesting deeper than the limit of 16 at $.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a");
        StringBuilder manyKeys = new StringBuilder("{");
        for (int i = 0; i <= 64; i++) {
            manyKeys.append(i == 0 ? "" : ",").append("\"k").append(i).append("\":[1]");
        }
        assertThatThrownBy(() -> MessageFilter.headers(manyKeys.append('}').toString()))
                .hasMessage("filter policy: more keys than the limit of 64 at $.k64");
        String combinations = "{\"a\":[1,2,3,4,5,6],\"b\":[1,2,3,4,5],\"c\":[1,2,3,4,5,6]}"; // 6 * 5 * 6 = 180
        assertThatThrownBy(() -> MessageFilter.headers(combinations))
                .hasMessage("filter policy: 180 value combinations exceed the limit of 150"
                        + " (the product of the keys' value counts, summed over $or choices) at $");
    }

    @Test
    void aBadSpecNamesIt() {
        assertThatThrownBy(() -> MessageFilter.parse("attributes {\"a\":[1]}"))
                .hasMessage("filter spec: expected a JSON policy object, optionally after \"headers\" or \"body\":"
                        + " spec=attributes {\"a\":[1]}");
        assertThatThrownBy(() -> MessageFilter.parse(null)).hasMessage("filter spec must not be null");
        assertThatThrownBy(() -> MessageFilter.headers(null)).hasMessage("filter policy: the policy must not be null");
        assertThatThrownBy(() -> MessageFilter.of(null)).hasMessage("a filter's predicate must not be null");
    }
}
