package io.ringbus.bench.network;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads counters back from the text form of a record such as ringbus-server's
 * {@code ServerStats[connections=0, messagesIn=12, ...]}, as printed in its log when it stops and
 * by {@link OverloadServerMain}. Only whole-number members are kept.
 */
final class StatsText {
    private static final Pattern MEMBER = Pattern.compile("(\\w+)=(-?\\d+)(?=[,\\]])");

    private StatsText() {
    }

    /**
     * @param text   a log or line holding {@code <record>[name=value, ...]}
     * @param record the record's name, e.g. {@code ServerStats}
     * @return the members of its last occurrence, in order; empty when there is none
     */
    static Map<String, Long> parseLast(String text, String record) {
        Map<String, Long> members = new LinkedHashMap<>();
        int at = text.lastIndexOf(record + "[");
        if (at < 0) {
            return members;
        }
        int end = text.indexOf(']', at);
        Matcher m = MEMBER.matcher(text.substring(at + record.length() + 1, end < 0 ? text.length() : end + 1));
        while (m.find()) {
            members.put(m.group(1), Long.parseLong(m.group(2)));
        }
        return members;
    }
}
