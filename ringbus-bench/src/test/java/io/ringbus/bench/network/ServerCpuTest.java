package io.ringbus.bench.network;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The server's CPU time from clock ticks, per message; and a reading of this JVM's own. */
class ServerCpuTest {
    @Test
    void dividesTheServersTicksByItsOperations() {
        ServerCpu cpu = new ServerCpu(100);

        assertThat(cpu.microsPerMessage(1_000, 1_250, 50_000)).as("2.5 s over 50,000").isEqualTo(50.0);
        assertThat(cpu.microsPerMessage(-1, 1_250, 50_000)).isNaN();
        assertThat(cpu.microsPerMessage(1_000, 1_250, 0)).isNaN();
        assertThatThrownBy(() -> new ServerCpu(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ticksPerSecond=0");
    }

    @Test
    void turnsTicksIntoNanosecondsAndUnknownIntoMinusOne() {
        ServerCpu cpu = new ServerCpu(100);

        assertThat(cpu.nanos(1_000, 1_250)).as("250 ticks of 10 ms").isEqualTo(2_500_000_000L);
        assertThat(cpu.nanos(-1, 1_250)).isEqualTo(-1);
        assertThat(cpu.nanos(1_250, 1_000)).as("a counter never goes back").isEqualTo(-1);
        assertThat(ServerCpu.nanosPer(2_500_000_000L, 5_000_000)).isEqualTo(500.0);
        assertThat(ServerCpu.nanosPer(-1, 5_000_000)).isNaN();
        assertThat(ServerCpu.nanosPer(1_000, 0)).isNaN();
    }

    @Test
    void readsThisJvmsOwnTicks() {
        ServerCpu cpu = ServerCpu.ofThisMachine();

        assertThat(cpu.ticksPerSecond()).isPositive();
        assertThat(cpu.ticks(ProcessHandle.current().pid())).as("this JVM has run some code").isPositive();
    }
}
