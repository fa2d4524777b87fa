package io.ringbus.test;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.testkit.engine.EngineExecutionResults;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Events;

import java.io.IOException;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

/**
 * The extension's lifecycle, seen from outside: sample test classes run on the Jupiter engine
 * (EngineTestKit) record the servers they got; after the run those servers must refuse
 * connections. The samples are nested classes, which Surefire does not run by itself.
 */
class ExtensionLifecycleTest {
    static final List<RingbusServerHandle> SEEN = new CopyOnWriteArrayList<>();

    @Test
    void oneServerServesTheWholeClassAndStopsAfterIt() {
        SEEN.clear();
        run(ClassScoped.class).testEvents().assertStatistics(stats -> stats.started(3).succeeded(3));

        assertThat(SEEN).hasSize(3).containsOnly(SEEN.get(0));
        assertRefusesConnections(SEEN.get(0).port());
        assertThat(SEEN.get(0).broker().isClosed()).isTrue();
    }

    @Test
    void perMethodGivesEachTestAFreshServerAndBroker() {
        SEEN.clear();
        run(MethodScoped.class).testEvents().assertStatistics(stats -> stats.started(2).succeeded(2));

        assertThat(SEEN).hasSize(2);
        assertThat(SEEN.get(0).port()).isNotEqualTo(SEEN.get(1).port());
        assertThat(SEEN.get(0).broker()).isNotSameAs(SEEN.get(1).broker());
        for (RingbusServerHandle handle : SEEN) {
            assertRefusesConnections(handle.port());
            assertThat(handle.broker().isClosed()).isTrue();
        }
    }

    @Test
    void aBadAnnotationFailsTheClassNamingTheSetting() {
        Events failed = run(UserWithoutPassword.class).containerEvents().failed();
        assertThat(failed.count()).isEqualTo(1);
        assertThat(failed.list().get(0).getPayload(TestExecutionResult.class)
                .flatMap(TestExecutionResult::getThrowable).orElseThrow())
                .isInstanceOf(ExtensionConfigurationException.class)
                .hasMessageContaining("user='bob'");
    }

    @Test
    void anInstanceFieldExtensionStartsAServerPerMethod() {
        SEEN.clear();
        run(InstanceFieldPerMethod.class).testEvents().assertStatistics(stats -> stats.started(1).succeeded(1));

        assertThat(SEEN).hasSize(1);
        assertRefusesConnections(SEEN.get(0).port());
    }

    @Test
    void anInstanceFieldExtensionWithoutPerMethodFailsTheTestSayingWhy() {
        Events failed = run(InstanceFieldPerClass.class).testEvents().failed();
        assertThat(failed.count()).isEqualTo(1);
        assertThat(failed.list().get(0).getPayload(TestExecutionResult.class)
                .flatMap(TestExecutionResult::getThrowable).orElseThrow())
                .isInstanceOf(ExtensionConfigurationException.class)
                .hasMessageContaining("perMethod()");
    }

    @Test
    void aComposedAnnotationCarriesTheSettings() {
        SEEN.clear();
        run(Composed.class).testEvents().assertStatistics(stats -> stats.started(1).succeeded(1));

        assertThat(SEEN).hasSize(1);
        assertThat(SEEN.get(0).monitorPort()).isPositive();
    }

    private static EngineExecutionResults run(Class<?> sample) {
        return EngineTestKit.engine("junit-jupiter").selectors(selectClass(sample)).execute();
    }

    private static void assertAcceptsConnections(int port) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 2_000);
        }
    }

    private static void assertRefusesConnections(int port) {
        assertThatThrownBy(() -> assertAcceptsConnections(port)).isInstanceOf(ConnectException.class);
    }

    @RingbusServerTest
    static class ClassScoped {
        @Test
        void first(RingbusServerHandle server) throws IOException {
            record(server);
        }

        @Test
        void second(RingbusServerHandle server) throws IOException {
            record(server);
        }

        @Nested
        class Inner {
            @Test
            void sharesTheEnclosingServer(RingbusServerHandle server) throws IOException {
                record(server);
            }
        }
    }

    @RingbusServerTest(perMethod = true)
    static class MethodScoped {
        @Test
        void first(RingbusServerHandle server) throws IOException {
            record(server);
        }

        @Test
        void second(RingbusServerHandle server) throws IOException {
            record(server);
        }
    }

    @RingbusServerTest(user = "bob")
    static class UserWithoutPassword {
        @Test
        void neverRuns() {
        }
    }

    static class InstanceFieldPerMethod {
        @RegisterExtension
        final RingbusServerExtension server = RingbusServerExtension.builder().perMethod().build();

        @Test
        void getsItsServer(RingbusServerHandle handle) throws IOException {
            assertThat(handle).isSameAs(server.handle());
            record(handle);
        }
    }

    static class InstanceFieldPerClass {
        @RegisterExtension
        final RingbusServerExtension server = RingbusServerExtension.builder().build();

        @Test
        void neverGetsAServer() {
        }
    }

    @Retention(RetentionPolicy.RUNTIME)
    @RingbusServerTest(monitor = true)
    @interface MonitoredNats {
    }

    @MonitoredNats
    static class Composed {
        @Test
        void getsAMonitoredServer(RingbusServerHandle handle) throws IOException {
            record(handle);
        }
    }

    private static void record(RingbusServerHandle server) throws IOException {
        assertAcceptsConnections(server.port());
        assertThat(server.broker().isClosed()).isFalse();
        SEEN.add(server);
    }
}
