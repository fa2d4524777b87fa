package io.ringbus.bench.hostile;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** Attacks on the HTTP monitor. */
final class MonitorAttacks {
    /** Every monitoring path, with the heaviest queries each takes. */
    static final List<String> HEAVY_PATHS = List.of("/", "/varz", "/connz?limit=1000000&subs=detail&auth=1",
            "/subsz?subs=1&limit=1000000", "/healthz", "/metrics", "/dashz",
            "/jsz?accounts=true&streams=true&consumers=true&config=true&limit=1000000", "/" + "u".repeat(8_000));

    private MonitorAttacks() {
    }

    /** @return the attacks */
    static List<Attack> all() {
        return List.of(
                Attack.of("monitor-bcrypt", "8 connections of 40 pipelined GET /varz, each a wrong password for the"
                        + " bcrypt user", Set.of("GET /varz"), false, MonitorAttacks::monitorBcrypt),
                Attack.of("monitor-queries", "4 connections pipelining every monitoring path with its heaviest"
                        + " query and a ROOT credential", Set.of("GET /", "GET /varz", "GET /connz", "GET /subsz",
                        "GET /healthz", "GET /metrics", "GET /dashz", "GET /jsz"), true, MonitorAttacks::monitorQueries));
    }

    private static void monitorBcrypt(Target target, long deadline) throws Exception {
        String request = get("/varz", Target.basic("carol", "guess"));
        pipeline(target, deadline, 8, List.of(request.repeat(40)));
    }

    private static void monitorQueries(Target target, long deadline) throws Exception {
        StringBuilder all = new StringBuilder();
        for (String path : HEAVY_PATHS) {
            all.append(get(path, Target.basic("root", "root-secret")));
        }
        pipeline(target, deadline, 4, List.of(all.toString()));
    }

    private static void pipeline(Target target, long deadline, int connections, List<String> batches)
            throws Exception {
        List<Thread> senders = new ArrayList<>();
        try (Held held = new Held(deadline)) {
            for (int c = 0; c < connections; c++) {
                senders.add(Thread.ofVirtual().start(() -> {
                    while (!Attack.over(deadline)) {
                        try {
                            Wire wire = held.add(Wire.open(target.monitorPort()));
                            wire.discardInput();
                            while (!Attack.over(deadline)) {
                                for (String batch : batches) {
                                    wire.send(batch.getBytes(StandardCharsets.US_ASCII));
                                }
                                Thread.sleep(50);
                            }
                        } catch (IOException closed) {
                            held.dropClosed();
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                }));
            }
            for (Thread sender : senders) {
                sender.join();
            }
        }
    }

    private static String get(String path, String authorization) {
        return "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: " + authorization + "\r\n\r\n";
    }
}
