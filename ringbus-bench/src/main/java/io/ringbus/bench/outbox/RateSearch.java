package io.ringbus.bench.outbox;

import java.io.PrintStream;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The sustained-rate search: the highest paced rate at which a contender holds goal 4 (every event
 * delivered, p99 commit-to-delivery within its bound overall and in every window, the rate held,
 * the backlog bounded), found by bisecting between 0 and the commit floor with short sustained runs.
 *
 * <p>Not thread-safe: one search at a time.
 */
final class RateSearch {
    private final SustainedScenario scenario;
    private final int steps;
    private final PrintStream log;

    /**
     * @param scenario the sustained runs, each as long as a search step should be
     * @param steps    bisection steps: the answer is within the floor / 2^steps of the truth
     * @param log      progress lines
     */
    RateSearch(SustainedScenario scenario, int steps, PrintStream log) {
        this.scenario = scenario;
        this.steps = steps;
        this.log = log;
    }

    /**
     * One run of the search.
     *
     * @param rate              appends per second asked
     * @param held              whether goal 4 held at it
     * @param achievedRate      appends per second reached
     * @param p99Micros         commit-to-delivery p99
     * @param worstWindowMicros the worst window's p99
     * @param backlogMax        the largest backlog sampled
     */
    record Step(double rate, boolean held, double achievedRate, long p99Micros, long worstWindowMicros,
                long backlogMax) {
    }

    /**
     * @param contender      who relays
     * @param floorPerSecond the commit floor: the search's upper bound
     * @param heldRate       the highest rate that held, 0 when none did
     * @param steps          the runs, in order
     */
    record Result(String contender, double floorPerSecond, double heldRate, List<Step> steps) {
        /** @return the held rate as a fraction of the commit floor */
        double fractionOfFloor() {
            return heldRate / floorPerSecond;
        }
    }

    /**
     * Bisects the rate for one contender.
     *
     * @throws SQLException         when PostgreSQL fails outside the contender
     * @throws InterruptedException when interrupted
     */
    Result search(RelayContender contender, double floorPerSecond) throws SQLException, InterruptedException {
        double low = 0;
        double high = floorPerSecond;
        List<Step> runs = new ArrayList<>();
        for (int i = 0; i < steps; i++) {
            double rate = Math.max(1, Math.round((low + high) / 2));
            SustainedResult r = scenario.run(contender, rate);
            boolean held = OutboxGoals.holds(r);
            long worst = r.windows().stream().mapToLong(SustainedResult.Window::p99Micros).max().orElse(0);
            runs.add(new Step(rate, held, r.achievedRate(), r.p99Micros(), worst, r.backlogMax()));
            log.printf(Locale.ROOT, "  search     %-22s %,8.0f/s  %s (p99 %.1f ms, worst window %.1f ms, %,.0f/s reached)%n",
                    contender.label(), rate, held ? "held" : "not held", r.p99Micros() / 1e3, worst / 1e3,
                    r.achievedRate());
            if (held) {
                low = rate;
            } else {
                high = rate;
            }
        }
        return new Result(contender.label(), floorPerSecond, low, List.copyOf(runs));
    }
}
