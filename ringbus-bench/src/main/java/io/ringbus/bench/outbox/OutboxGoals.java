package io.ringbus.bench.outbox;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Issue 16's goals, each a ratio against a measurement from the same run on the same PostgreSQL,
 * judged on ringbus relay x1 unless a goal names more relays:
 * <ol>
 *   <li>producers keep at least {@value #PRODUCER_RATIO} of the plain-INSERT commit floor while a
 *       relay drains, and every key's rows arrive in order;</li>
 *   <li>a relay drains a keyed backlog at least {@value #DRAIN_RATIO} x as fast as PostgreSQL
 *       claims and deletes it;</li>
 *   <li>N relays drain at least as fast as one (two at least {@value #TWO_RELAYS}x, judged only
 *       with {@value #SCALING_CORES} cores or more);</li>
 *   <li>at the sustained rate, p99 commit -> delivery at most {@value #P99_MILLIS} ms overall and in
 *       every window, the rate held (at least {@value #RATE_HELD} of it achieved) and the backlog
 *       never above {@value #BACKLOG_MILLIS} ms of appends.</li>
 * </ol>
 */
final class OutboxGoals {
    static final double PRODUCER_RATIO = 0.9;
    static final double DRAIN_RATIO = 0.8;
    static final double TWO_RELAYS = 1.8;
    static final int SCALING_CORES = 4;
    static final double P99_MILLIS = 10;
    static final double RATE_HELD = 0.98;
    static final long BACKLOG_MILLIS = 100;

    /**
     * One goal's verdict.
     *
     * @param name      its number
     * @param statement what it asks
     * @param met       whether it was met, {@code null} when not judged
     * @param figures   the numbers behind the verdict
     */
    record Goal(String name, String statement, Boolean met, String figures) {
        /** @return {@code MET}, {@code NOT MET} or {@code NOT JUDGED} */
        String verdict() {
            return met == null ? "NOT JUDGED" : met ? "MET" : "NOT MET";
        }

        /** @return one line for the text report */
        String line() {
            return "goal " + name + ", " + statement + ": " + verdict() + " (" + figures + ")";
        }
    }

    private OutboxGoals() {
    }

    /**
     * @param report     the run's results
     * @param rateSource how the sustained rate was chosen, for the statement
     * @param cores      the machine's cores (PostgreSQL's and the relays')
     * @return the goals the results allow judging, in order
     */
    static List<Goal> evaluate(OutboxReport report, String rateSource, int cores) {
        List<Goal> goals = new ArrayList<>();
        ProducerResult floor = report.commitFloor();
        ProducerResult producers = report.producer(RelayContender.RINGBUS_1.label());
        if (floor != null && producers != null) {
            double ratio = producers.commitsPerSecond() / floor.commitsPerSecond();
            ProducerResult alone = report.producer(ProducerScenario.APPENDS_ALONE);
            goals.add(new Goal("1", String.format(Locale.ROOT, "producers keep >= %.0f %% of the commit floor with a"
                    + " relay draining, per-key order kept", PRODUCER_RATIO * 100),
                    producers.verified() && ratio >= PRODUCER_RATIO, String.format(Locale.ROOT,
                    "%,.0f of %,.0f commits/s = %.2f; %s%s", producers.commitsPerSecond(), floor.commitsPerSecond(), ratio,
                    producers.verified() ? producers.keyOrder() + " out of order" : "FAILED: " + producers.failure(),
                    alone == null ? "" : String.format(Locale.ROOT, "; appends with no relay %,.0f = %.2f",
                            alone.commitsPerSecond(), alone.commitsPerSecond() / floor.commitsPerSecond()))));
        }
        DrainResult claim = report.claimFloor();
        DrainResult one = report.drain(RelayContender.RINGBUS_1.label());
        if (claim != null && one != null) {
            double ratio = one.eventsPerSecond() / claim.eventsPerSecond();
            goals.add(new Goal("2", String.format(Locale.ROOT, "one relay drains >= %.1fx claim+delete", DRAIN_RATIO),
                    one.verified() && ratio >= DRAIN_RATIO, String.format(Locale.ROOT,
                    "%,.0f events/s of %,.0f rows/s = %.2f", one.eventsPerSecond(), claim.eventsPerSecond(), ratio)));
        }
        DrainResult two = report.drain(RelayContender.RINGBUS_2.label());
        DrainResult four = report.drain(RelayContender.RINGBUS_4.label());
        if (one != null && (two != null || four != null)) {
            boolean met = one.verified();
            StringBuilder figures = new StringBuilder();
            for (DrainResult more : new DrainResult[] {two, four}) {
                if (more != null) {
                    double ratio = more.eventsPerSecond() / one.eventsPerSecond();
                    met &= more.verified() && ratio >= 1;
                    figures.append(figures.isEmpty() ? "" : ", ").append(String.format(Locale.ROOT, "x%d %.2f",
                            more.relays(), ratio));
                }
            }
            figures.append(String.format(Locale.ROOT, " of x1's %,.0f events/s", one.eventsPerSecond()));
            goals.add(new Goal("3a", "N relays drain >= 1 relay", met, figures.toString()));
            if (two != null) {
                double ratio = two.eventsPerSecond() / one.eventsPerSecond();
                goals.add(new Goal("3b", String.format(Locale.ROOT, "2 relays drain >= %.1fx 1 relay where the"
                        + " database has cores", TWO_RELAYS), cores >= SCALING_CORES ? ratio >= TWO_RELAYS : null,
                        String.format(Locale.ROOT, "x2 = %.2fx%s", ratio, cores >= SCALING_CORES ? ""
                                : "; judged with " + SCALING_CORES + "+ cores, this machine has " + cores)));
            }
        }
        SustainedResult sustained = report.sustained(RelayContender.RINGBUS_1.label());
        if (sustained != null) {
            goals.add(sustainedGoal(sustained, rateSource));
        }
        return goals;
    }

    /**
     * Goal 4's test of one sustained run, also the rate search's.
     *
     * @return whether every event came, in order where promised, with p99 within its bound overall
     *         and in every window, the rate held and the backlog bounded
     */
    static boolean holds(SustainedResult r) {
        long worst = r.windows().stream().mapToLong(SustainedResult.Window::p99Micros).max().orElse(0);
        return r.verified() && r.p99Micros() <= P99_MILLIS * 1e3 && worst <= P99_MILLIS * 1e3
                && r.achievedRate() >= RATE_HELD * r.targetRate() && r.backlogMax() <= backlogBound(r);
    }

    private static long backlogBound(SustainedResult r) {
        return Math.max(1, Math.round(r.targetRate() * BACKLOG_MILLIS / 1e3));
    }

    private static Goal sustainedGoal(SustainedResult r, String rateSource) {
        long worst = 0;
        for (SustainedResult.Window w : r.windows()) {
            worst = Math.max(worst, w.p99Micros());
        }
        long backlogBound = backlogBound(r);
        boolean met = holds(r);
        return new Goal("4", String.format(Locale.ROOT, "at %s, p99 commit->delivery <= %.0f ms overall and in every"
                        + " window, rate held (>= %.0f %%), backlog <= %d ms of appends", rateSource, P99_MILLIS,
                RATE_HELD * 100, BACKLOG_MILLIS), met, String.format(Locale.ROOT,
                "%,.0f/s asked, %,.0f/s achieved; p99 %.1f ms, worst window %.1f ms over %d windows; backlog max %,d"
                        + " (bound %,d), at end %,d%s", r.targetRate(), r.achievedRate(), r.p99Micros() / 1e3,
                worst / 1e3, r.windows().size(), r.backlogMax(), backlogBound, r.backlogAtEnd(),
                r.verified() ? "" : "; FAILED: " + r.failure()));
    }
}
