package io.ringbus.server.internal;

import io.ringbus.core.BrokerBuilder;
import io.ringbus.core.Scope;
import io.ringbus.server.Permissions;
import io.ringbus.server.ServerConfig;

import java.util.Map;

/**
 * What one configuration file sets: the server's, the broker's, the store's and the federation's
 * builders, and the subject scopes and permissions it collects. Filled by {@link ConfigFile}, one
 * key at a time, on the thread that starts the server.
 *
 * @param server      the server's settings
 * @param broker      the {@code broker.*} settings
 * @param storage     the {@code storage.*} settings and durable subjects
 * @param federation  the {@code federation.*} settings
 * @param subjects    the {@code subject.<pattern>} scopes, in file order
 * @param permissions the {@code permissions.<name>.*} lists, by user or token
 */
record ConfigTargets(ServerConfig.Builder server, BrokerBuilder broker, StorageSettings storage,
                     FederationSettings federation, Map<String, Scope> subjects,
                     Map<String, Permissions.Builder> permissions) {

    /** @param name a user or token @return its permissions, started on first use */
    Permissions.Builder permissionsOf(String name) {
        return permissions.computeIfAbsent(name, n -> Permissions.builder());
    }
}
