package io.ringbus.bench.hostile;

import java.util.ArrayList;
import java.util.List;

/**
 * Every attack of the standing hostile-client harness. A request the server starts to accept
 * (a verb, an API subject, a monitoring path: {@code io.ringbus.server.ServerRequests}) needs an
 * attack here that {@link Attack#covers() covers} it: the harness's own test fails until it has one.
 */
public final class Attacks {
    private Attacks() {
    }

    /** @return every attack, protocol first */
    static List<Attack> all() {
        List<Attack> all = new ArrayList<>();
        all.addAll(ProtocolAttacks.all());
        all.addAll(ApiAttacks.all());
        all.addAll(JetStreamAttacks.all());
        all.addAll(ConsumerAttacks.all());
        all.addAll(StorageAttacks.all());
        all.addAll(RollupAttacks.all());
        all.addAll(AdmissionAttacks.all());
        all.addAll(StoreFillAttacks.all());
        all.addAll(ConsumerLoadAttacks.all());
        all.addAll(AuthAttacks.all());
        all.addAll(MonitorAttacks.all());
        return List.copyOf(all);
    }

    /**
     * @param names attack names, or empty for all
     * @return those attacks, in catalogue order
     * @throws IllegalArgumentException naming an unknown attack and listing the known ones
     */
    static List<Attack> named(List<String> names) {
        if (names.isEmpty()) {
            return all();
        }
        List<String> known = all().stream().map(Attack::name).toList();
        for (String name : names) {
            if (!known.contains(name)) {
                throw new IllegalArgumentException("unknown attack: only=" + name + " (known: "
                        + String.join(", ", known) + ")");
            }
        }
        return all().stream().filter(attack -> names.contains(attack.name())).toList();
    }
}
