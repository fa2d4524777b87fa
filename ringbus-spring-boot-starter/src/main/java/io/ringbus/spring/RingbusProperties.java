package io.ringbus.spring;

import io.ringbus.core.Scope;
import io.ringbus.core.WaitStrategy;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code ringbus.*} properties: the auto-configured {@link io.ringbus.core.Broker} and the
 * optional embedded server. A property left unset keeps {@link io.ringbus.core.BrokerBuilder}'s
 * (or {@code ServerConfig}'s) default, so the defaults are stated once, in ringbus-core and
 * ringbus-server (docs/core.md, docs/server.md).
 *
 * <p>Durations are text in ringbus' one duration grammar, {@link io.ringbus.core.Durations}
 * ({@code 500ms}, {@code 2s}, {@code 1m}, {@code PT0.5S}), read when the broker is built; a value
 * it refuses fails the context with a message naming the value.
 */
@ConfigurationProperties("ringbus")
public class RingbusProperties {

    /** Whether to auto-configure a Broker (and RingbusTemplate, listeners, server). */
    private boolean enabled = true;

    /** Broker name, shown in thread names and meters. */
    private String name;

    /** Ring slots, a power of two (BrokerBuilder default when unset). */
    private Integer ringSize;

    /** How event loops wait for messages: BLOCKING, SLEEPING, YIELDING, BUSY_SPIN. */
    private WaitStrategy waitStrategy;

    /** Event loop threads. */
    private Integer eventLoops;

    /** Platform threads that run WORKER subscriptions. */
    private Integer workerPoolSize;

    /** Scope of subjects no registered pattern matches. */
    private Scope defaultScope;

    /** Subject patterns and their scopes, registered on the broker at start (orders.> = PRIVATE). */
    private Map<String, Scope> subjects = new LinkedHashMap<>();

    /** How long close() waits for the ring and buffers to drain (duration grammar of Durations). */
    private String shutdownTimeout;

    /** Longest handler call on an event loop before the watchdog warns (duration). */
    private String maxEventLoopExecuteTime;

    /** Longest handler call on a worker thread before the watchdog warns (duration). */
    private String maxWorkerExecuteTime;

    /** Longest handler call on a virtual thread before the watchdog warns (duration). */
    private String maxVirtualExecuteTime;

    /** How often the watchdog looks at running handlers (duration). */
    private String watchdogInterval;

    /** Payload bytes ring slots may hold at once. */
    private Long maxInFlightBytes;

    /** Subjects whose routes are cached. */
    private Integer routeCacheSize;

    /** Whether to bind the application's MeterRegistry to the broker when there is one. */
    private boolean metrics = true;

    /** The embedded ringbus-server. */
    private final Server server = new Server();

    /** Creates the properties with every value unset (Spring binds them). */
    public RingbusProperties() {
    }

    /** @return whether the broker is auto-configured */
    public boolean isEnabled() {
        return enabled;
    }

    /** @param enabled whether the broker is auto-configured */
    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    /** @return the broker name, or {@code null} for the default */
    public String getName() {
        return name;
    }

    /** @param name the broker name */
    public void setName(String name) {
        this.name = name;
    }

    /** @return the ring size, or {@code null} for the default */
    public Integer getRingSize() {
        return ringSize;
    }

    /** @param ringSize ring slots, a power of two */
    public void setRingSize(Integer ringSize) {
        this.ringSize = ringSize;
    }

    /** @return the wait strategy, or {@code null} for the default */
    public WaitStrategy getWaitStrategy() {
        return waitStrategy;
    }

    /** @param waitStrategy how event loops wait */
    public void setWaitStrategy(WaitStrategy waitStrategy) {
        this.waitStrategy = waitStrategy;
    }

    /** @return the event loop count, or {@code null} for the default */
    public Integer getEventLoops() {
        return eventLoops;
    }

    /** @param eventLoops event loop threads */
    public void setEventLoops(Integer eventLoops) {
        this.eventLoops = eventLoops;
    }

    /** @return the worker pool size, or {@code null} for the default */
    public Integer getWorkerPoolSize() {
        return workerPoolSize;
    }

    /** @param workerPoolSize platform threads for WORKER subscriptions */
    public void setWorkerPoolSize(Integer workerPoolSize) {
        this.workerPoolSize = workerPoolSize;
    }

    /** @return the default scope, or {@code null} for the default */
    public Scope getDefaultScope() {
        return defaultScope;
    }

    /** @param defaultScope scope of subjects no pattern matches */
    public void setDefaultScope(Scope defaultScope) {
        this.defaultScope = defaultScope;
    }

    /** @return subject patterns and their scopes, in the order given */
    public Map<String, Scope> getSubjects() {
        return subjects;
    }

    /** @param subjects subject patterns and their scopes */
    public void setSubjects(Map<String, Scope> subjects) {
        this.subjects = subjects;
    }

    /** @return the shutdown timeout as text, or {@code null} for the default */
    public String getShutdownTimeout() {
        return shutdownTimeout;
    }

    /** @param shutdownTimeout how long close() drains, as a duration */
    public void setShutdownTimeout(String shutdownTimeout) {
        this.shutdownTimeout = shutdownTimeout;
    }

    /** @return the event-loop watchdog limit as text, or {@code null} */
    public String getMaxEventLoopExecuteTime() {
        return maxEventLoopExecuteTime;
    }

    /** @param maxEventLoopExecuteTime the event-loop watchdog limit, as a duration */
    public void setMaxEventLoopExecuteTime(String maxEventLoopExecuteTime) {
        this.maxEventLoopExecuteTime = maxEventLoopExecuteTime;
    }

    /** @return the worker watchdog limit as text, or {@code null} */
    public String getMaxWorkerExecuteTime() {
        return maxWorkerExecuteTime;
    }

    /** @param maxWorkerExecuteTime the worker watchdog limit, as a duration */
    public void setMaxWorkerExecuteTime(String maxWorkerExecuteTime) {
        this.maxWorkerExecuteTime = maxWorkerExecuteTime;
    }

    /** @return the virtual-thread watchdog limit as text, or {@code null} */
    public String getMaxVirtualExecuteTime() {
        return maxVirtualExecuteTime;
    }

    /** @param maxVirtualExecuteTime the virtual-thread watchdog limit, as a duration */
    public void setMaxVirtualExecuteTime(String maxVirtualExecuteTime) {
        this.maxVirtualExecuteTime = maxVirtualExecuteTime;
    }

    /** @return the watchdog interval as text, or {@code null} */
    public String getWatchdogInterval() {
        return watchdogInterval;
    }

    /** @param watchdogInterval how often the watchdog checks, as a duration */
    public void setWatchdogInterval(String watchdogInterval) {
        this.watchdogInterval = watchdogInterval;
    }

    /** @return the in-flight byte bound, or {@code null} for the default */
    public Long getMaxInFlightBytes() {
        return maxInFlightBytes;
    }

    /** @param maxInFlightBytes payload bytes ring slots may hold at once */
    public void setMaxInFlightBytes(Long maxInFlightBytes) {
        this.maxInFlightBytes = maxInFlightBytes;
    }

    /** @return the route cache size, or {@code null} for the default */
    public Integer getRouteCacheSize() {
        return routeCacheSize;
    }

    /** @param routeCacheSize subjects whose routes are cached */
    public void setRouteCacheSize(Integer routeCacheSize) {
        this.routeCacheSize = routeCacheSize;
    }

    /** @return whether the application's MeterRegistry is bound to the broker */
    public boolean isMetrics() {
        return metrics;
    }

    /** @param metrics whether to bind the application's MeterRegistry */
    public void setMetrics(boolean metrics) {
        this.metrics = metrics;
    }

    /** @return the embedded server's properties */
    public Server getServer() {
        return server;
    }

    /** The {@code ringbus.server.*} properties: the embedded NATS-protocol server. */
    public static class Server {

        /** Whether to run ringbus-server in front of the broker (needs ringbus-server on the classpath). */
        private boolean enabled;

        /** Address to listen on. */
        private String host;

        /** Client port; 0 picks a free one. */
        private Integer port;

        /** Server name reported to clients and in meters. */
        private String serverName;

        /** Monitoring (HTTP) port: 0 picks a free one, -1 turns it off. */
        private Integer monitorPort = -1;

        /** Scope of clients that present no credentials. */
        private Scope noAuthScope;

        /** Accepted tokens and the scope each grants. */
        private Map<String, Scope> tokens = new LinkedHashMap<>();

        /** Accepted users (name to password and scope). */
        private Map<String, User> users = new LinkedHashMap<>();

        /** Creates the server properties, server off (Spring binds them). */
        public Server() {
        }

        /** @return whether the embedded server runs */
        public boolean isEnabled() {
            return enabled;
        }

        /** @param enabled whether the embedded server runs */
        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        /** @return the listen address, or {@code null} for the default */
        public String getHost() {
            return host;
        }

        /** @param host the listen address */
        public void setHost(String host) {
            this.host = host;
        }

        /** @return the client port, or {@code null} for the default (4222) */
        public Integer getPort() {
            return port;
        }

        /** @param port the client port, 0 for a free one */
        public void setPort(Integer port) {
            this.port = port;
        }

        /** @return the server name, or {@code null} for the default */
        public String getServerName() {
            return serverName;
        }

        /** @param serverName the server name */
        public void setServerName(String serverName) {
            this.serverName = serverName;
        }

        /** @return the monitoring port, -1 when off */
        public Integer getMonitorPort() {
            return monitorPort;
        }

        /** @param monitorPort the monitoring port, 0 for a free one, -1 for none */
        public void setMonitorPort(Integer monitorPort) {
            this.monitorPort = monitorPort;
        }

        /** @return the scope of anonymous clients, or {@code null} for the default */
        public Scope getNoAuthScope() {
            return noAuthScope;
        }

        /** @param noAuthScope the scope of clients without credentials */
        public void setNoAuthScope(Scope noAuthScope) {
            this.noAuthScope = noAuthScope;
        }

        /** @return tokens and their scopes */
        public Map<String, Scope> getTokens() {
            return tokens;
        }

        /** @param tokens tokens and their scopes */
        public void setTokens(Map<String, Scope> tokens) {
            this.tokens = tokens;
        }

        /** @return users by name */
        public Map<String, User> getUsers() {
            return users;
        }

        /** @param users users by name */
        public void setUsers(Map<String, User> users) {
            this.users = users;
        }
    }

    /** A user of the embedded server: {@code ringbus.server.users.<name>.password} and {@code .scope}. */
    public static class User {

        /** The password (plain, or a bcrypt hash starting with $2). */
        private String password;

        /** The scope the user gets. */
        private Scope scope = Scope.PUBLIC;

        /** Creates a user entry (Spring binds it). */
        public User() {
        }

        /** @return the password */
        public String getPassword() {
            return password;
        }

        /** @param password the password, plain or bcrypt */
        public void setPassword(String password) {
            this.password = password;
        }

        /** @return the scope granted */
        public Scope getScope() {
            return scope;
        }

        /** @param scope the scope granted */
        public void setScope(Scope scope) {
            this.scope = scope;
        }
    }
}
