package io.ringbus.bench.hostile;

import java.io.IOException;
import java.net.InetAddress;

/**
 * The healthy clients measured during every attack: {@link #roundTrip} (a logged-in client's
 * PING/PONG, every 10 ms), {@link #login} (a new connection logs in with a valid bcrypt
 * password and gets its first PONG, every 250 ms, from the second loopback address 127.0.0.2 so
 * that it is another source than the attacker's 127.0.0.1) and {@link #healthz} (an
 * unauthenticated {@code GET /healthz}, every 100 ms).
 */
final class Probes {
    private Probes() {
    }

    /** @return a probe of alice's round trip on one long-lived connection */
    static Probe roundTrip(Target target) {
        return new Probe("round trip", 10) {
            private Wire wire;

            @Override
            void ask() throws IOException {
                if (wire == null) {
                    wire = target.login("alice");
                }
                wire.send("PING\r\n");
                wire.expectPong();
            }

            @Override
            void reset() {
                if (wire != null) {
                    wire.close();
                    wire = null;
                }
            }
        };
    }

    /** @return a probe of carol's login, a new connection each time */
    static Probe login(Target target) {
        InetAddress second = secondLoopback();
        return new Probe("valid login", 250) {
            @Override
            void ask() throws IOException {
                try (Wire wire = Wire.open(target.port(), second, 0)) {
                    wire.readLine();
                    wire.send(Wire.connectLine(HostileConfig.login("carol")) + "PING\r\n");
                    wire.expectPong();
                }
            }
        };
    }

    /**
     * @return a probe of {@code GET /healthz} without credentials, a new connection each time (as
     *         a liveness probe asks)
     */
    static Probe healthz(Target target) {
        return new Probe("/healthz", 100) {
            @Override
            void ask() throws IOException {
                try (Wire wire = Wire.open(target.monitorPort())) {
                    wire.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
                    String status = wire.readLine();
                    if (!status.startsWith("HTTP/1.1 200")) {
                        throw new IOException("/healthz answered " + status);
                    }
                }
            }
        };
    }

    private static InetAddress secondLoopback() {
        try {
            return InetAddress.getByAddress(new byte[] {127, 0, 0, 2});
        } catch (IOException e) {
            throw new IllegalStateException("127.0.0.2 is not an address", e);
        }
    }
}
