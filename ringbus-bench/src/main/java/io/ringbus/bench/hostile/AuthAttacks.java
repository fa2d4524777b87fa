package io.ringbus.bench.hostile;

import java.io.IOException;
import java.util.List;
import java.util.Set;

/** Attacks on authentication; nats-server gets the same users and the same bytes. */
final class AuthAttacks {
    private AuthAttacks() {
    }

    /** @return the attacks */
    static List<Attack> all() {
        return List.of(
                Attack.of("bcrypt-flood", "rounds of 60 connections, each a wrong password for the bcrypt user",
                        Set.of("CONNECT"), true, AuthAttacks::bcryptFlood),
                Attack.of("silent-connections", "1,000 connections that never send CONNECT, replaced as they are"
                        + " closed", Set.of("CONNECT"), true, AuthAttacks::silentConnections));
    }

    private static void bcryptFlood(Target target, long deadline) throws Exception {
        String wrong = Wire.connectLine("\"user\":\"carol\",\"pass\":\"guess\"") + "PING\r\n";
        while (!Attack.over(deadline)) {
            try (Held held = new Held(deadline)) {
                for (int i = 0; i < 60; i++) {
                    try {
                        Wire wire = held.add(Wire.open(target.port()));
                        wire.send(wrong);
                        wire.discardInput();
                    } catch (IOException refused) {
                        // counted by the server
                    }
                }
                // The next round 400 ms later: the server closes these meanwhile.
                long roundEnd = System.nanoTime() + 400_000_000L;
                while (!Attack.over(deadline) && !Attack.over(roundEnd)) {
                    Thread.sleep(20);
                }
            }
        }
    }

    private static void silentConnections(Target target, long deadline) throws Exception {
        try (Held held = new Held(deadline)) {
            while (!Attack.over(deadline)) {
                held.dropClosed();
                while (held.size() < 1_000 && !Attack.over(deadline)) {
                    try {
                        held.add(Wire.open(target.port())).discardInput();
                    } catch (IOException refused) {
                        break;
                    }
                }
                Thread.sleep(100);
            }
        }
    }
}
