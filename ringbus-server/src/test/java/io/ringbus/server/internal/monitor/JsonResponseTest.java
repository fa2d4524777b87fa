package io.ringbus.server.internal.monitor;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class JsonResponseTest {
    @Test
    void writesCompactJsonWithCommasBetweenMembersAndElements() {
        String json = new JsonResponse().beginObject()
                .field("a", "x").field("b", 2).field("c", 1.5).field("d", true)
                .name("e").beginArray().value(1).beginObject().endObject().value((String) null).endArray()
                .name("f").beginObject().field("g", 0L).endObject()
                .endObject().toJson();

        assertThat(json).isEqualTo("{\"a\":\"x\",\"b\":2,\"c\":1.5,\"d\":true,\"e\":[1,{},null],\"f\":{\"g\":0}}");
    }

    @Test
    void nonFiniteNumbersBecomeZero() {
        String json = new JsonResponse().beginArray().value(Double.NaN).value(Double.POSITIVE_INFINITY).endArray().toJson();

        assertThat(json).isEqualTo("[0,0]");
    }

    @Test
    void escapesWhatJsonNeedsAndWhatWouldBreakTheDashboardsScript() {
        String json = new JsonResponse().value("q\"b\\n\n\u0001</script>\u2028\u2029é").toJson();

        assertThat(json).doesNotContain("<").doesNotContain("\u2028").doesNotContain("\u2029").doesNotContain("\n")
                .isEqualToIgnoringCase("\"q\\\"b\\\\n\\n\\u0001\\u003c/script>\\u2028\\u2029é\"");
    }
}
