package io.ringbus.bench.jmh;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.databind.JsonNode;

import java.util.Map;

/**
 * One benchmark of JMH's own results file ({@code jmh -rf json}, {@code bench-results/jmh.json}
 * is an array of these), read by the chart. JMH owns the format: the members the chart draws
 * from are typed, every other member is kept as JMH wrote it in {@code other}, so that a file
 * reads back whole. Immutable.
 *
 * @param jmhVersion    JMH's version
 * @param benchmark     the benchmark method's full name
 * @param mode          {@code thrpt}, {@code avgt}, ...
 * @param vmName        the forked JVM's name
 * @param vmVersion     its version
 * @param params        the {@code @Param} values of this run, {@code null} when the benchmark has none
 * @param primaryMetric the score
 * @param other         JMH's other members (forks, jvmArgs, secondaryMetrics, ...), by name
 */
public record JmhRun(String jmhVersion, String benchmark, String mode, String vmName, String vmVersion,
                     Map<String, String> params, Metric primaryMetric,
                     @JsonAnySetter @JsonAnyGetter Map<String, JsonNode> other) {

    /**
     * @param score      the score
     * @param scoreError its 99.9 % error, NaN when JMH had too few iterations to tell
     * @param scoreUnit  the score's unit
     * @param other      JMH's other members (scoreConfidence, scorePercentiles, rawData), by name
     */
    public record Metric(double score, double scoreError, String scoreUnit,
                         @JsonAnySetter @JsonAnyGetter Map<String, JsonNode> other) {
    }
}
