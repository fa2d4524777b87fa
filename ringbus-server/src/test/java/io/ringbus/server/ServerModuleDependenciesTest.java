package io.ringbus.server;

import org.junit.jupiter.api.Test;

import java.lang.module.ModuleDescriptor;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The server module stands alone: what an embedder of ringbus-server gets, read from the module
 * descriptors it requires (transitively), holds neither ringbus-federation nor jnats. Federation and
 * the JetStream store plug in at run time ({@code io.ringbus.core.spi}).
 */
class ServerModuleDependenciesTest {

    @Test
    void theServerModuleRequiresNeitherTheFederationNorJnats() {
        Module server = RingbusServer.class.getModule();
        assertThat(server.isNamed()).as("the tests run inside the module (module path)").isTrue();
        assertThat(server.getDescriptor().requires()).extracting(ModuleDescriptor.Requires::name)
                .contains("io.ringbus.core").doesNotContain("io.ringbus.federation", "io.nats.jnats");
        assertThat(server.getDescriptor().uses())
                .contains("io.ringbus.core.spi.FederationProvider", "io.ringbus.core.spi.StorageProvider");
    }

    @Test
    void nothingTheServerRequiresBringsJnatsTransitively() {
        Set<String> reached = requiredClosure(RingbusServer.class.getModule());
        assertThat(reached).contains("io.ringbus.core", "io.netty.handler")
                .doesNotContain("io.ringbus.federation", "io.nats.jnats");
    }

    /** The modules the server's descriptor requires, and theirs, as far as the boot layer has them. */
    private static Set<String> requiredClosure(Module root) {
        Set<String> seen = new HashSet<>();
        Deque<ModuleDescriptor> todo = new ArrayDeque<>();
        todo.add(root.getDescriptor());
        while (!todo.isEmpty()) {
            for (ModuleDescriptor.Requires requires : todo.pop().requires()) {
                if (requires.modifiers().contains(ModuleDescriptor.Requires.Modifier.STATIC) || !seen.add(requires.name())) {
                    continue;
                }
                Optional<Module> found = ModuleLayer.boot().findModule(requires.name());
                found.map(Module::getDescriptor).ifPresent(todo::add);
            }
        }
        return seen;
    }
}
