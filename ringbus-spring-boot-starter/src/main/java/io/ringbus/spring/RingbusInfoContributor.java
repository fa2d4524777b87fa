package io.ringbus.spring;

import io.ringbus.core.Broker;
import io.ringbus.core.BrokerStats;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;
import org.springframework.boot.actuate.info.Info;
import org.springframework.boot.actuate.info.InfoContributor;

/**
 * Adds {@code ringbus} to the info endpoint: the ring size, the subscriptions by pattern and
 * mode, the registered subjects' scopes, and the embedded server's port when there is one.
 */
public class RingbusInfoContributor implements InfoContributor {

    private final Broker broker;
    private final RingbusProperties properties;
    private final Supplier<EmbeddedRingbusServer> server;

    /**
     * @param broker     the broker
     * @param properties the {@code ringbus.*} properties
     * @param server     the embedded server, or a supplier of {@code null} without one
     */
    public RingbusInfoContributor(Broker broker, RingbusProperties properties, Supplier<EmbeddedRingbusServer> server) {
        this.broker = broker;
        this.properties = properties;
        this.server = server;
    }

    /** @param builder the info being built */
    @Override
    public void contribute(Info.Builder builder) {
        BrokerStats stats = broker.stats();
        Map<String, Object> ringbus = new LinkedHashMap<>();
        ringbus.put("ringSize", stats.ringSize());
        Map<String, String> subscriptions = new LinkedHashMap<>();
        for (BrokerStats.SubscriptionStats s : stats.subscriptions()) {
            subscriptions.merge(s.pattern(), s.mode().name(), (a, b) -> a + "," + b);
        }
        ringbus.put("subscriptions", subscriptions);
        ringbus.put("subjects", properties.getSubjects());
        EmbeddedRingbusServer embedded = server.get();
        if (embedded != null) {
            ringbus.put("serverPort", embedded.port());
        }
        builder.withDetail("ringbus", ringbus);
    }
}
