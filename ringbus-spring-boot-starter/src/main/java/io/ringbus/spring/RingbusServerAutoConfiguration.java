package io.ringbus.spring;

import io.ringbus.core.Broker;
import io.ringbus.core.Scope;
import io.ringbus.server.RingbusServer;
import io.ringbus.server.ServerConfig;
import java.util.Map;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Runs ringbus-server in front of the broker when {@code ringbus.server.enabled=true} and
 * ringbus-server is on the classpath; see {@link EmbeddedRingbusServer} for its lifecycle.
 */
@AutoConfiguration(after = RingbusAutoConfiguration.class)
@ConditionalOnClass(RingbusServer.class)
@ConditionalOnBean(Broker.class)
@ConditionalOnBooleanProperty("ringbus.server.enabled")
public class RingbusServerAutoConfiguration {

    /** Creates the auto-configuration (Spring does). */
    public RingbusServerAutoConfiguration() {
    }

    /**
     * The embedded server.
     *
     * @param broker     the broker to serve
     * @param properties the {@code ringbus.server.*} properties
     * @return the server bean; binds at context start
     * @throws IllegalArgumentException naming the value when a property is out of range
     */
    @Bean
    @ConditionalOnMissingBean
    public EmbeddedRingbusServer ringbusServer(Broker broker, RingbusProperties properties) {
        return new EmbeddedRingbusServer(broker, config(properties.getServer()));
    }

    static ServerConfig config(RingbusProperties.Server p) {
        ServerConfig.Builder b = ServerConfig.builder();
        if (p.getHost() != null) {
            b.host(p.getHost());
        }
        if (p.getPort() != null) {
            b.port(p.getPort());
        }
        if (p.getServerName() != null) {
            b.serverName(p.getServerName());
        }
        if (p.getMonitorPort() != null) {
            b.monitorPort(p.getMonitorPort());
        }
        if (p.getNoAuthScope() != null) {
            b.noAuthScope(p.getNoAuthScope());
        }
        for (Map.Entry<String, Scope> token : p.getTokens().entrySet()) {
            b.token(token.getKey(), token.getValue());
        }
        for (Map.Entry<String, RingbusProperties.User> user : p.getUsers().entrySet()) {
            b.user(user.getKey(), user.getValue().getPassword(), user.getValue().getScope());
        }
        return b.build();
    }
}
