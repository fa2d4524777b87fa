package io.ringbus.bench.network;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code /proc/<pid>/stat} read as proc(5) lays it out. */
class ProcStatusTest {
    @Test
    void addsUserAndSystemTicks() {
        String stat = "4242 (nats-server) S 1 4242 4242 0 -1 4194560 1523 0 0 0 731 208 0 0 20 0 9 0 123456 "
                + "1269760000 5000 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0";

        assertThat(ProcStatus.cpuTicksOf(stat)).isEqualTo(731 + 208);
    }

    @Test
    void countsFieldsAfterACommandNameWithSpacesAndParentheses() {
        String stat = "77 (Java Thread (x) 1) R 1 77 77 0 -1 4194560 10 0 0 0 5 3 99 98 20 0 40 0 1 2 3\n";

        assertThat(ProcStatus.cpuTicksOf(stat)).as("utime 5 + stime 3, not cutime or cstime").isEqualTo(8);
    }

    @Test
    void refusesTextThatIsNoStatLine() {
        assertThatThrownBy(() -> ProcStatus.cpuTicksOf("no such line")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no such line");
        assertThatThrownBy(() -> ProcStatus.cpuTicksOf("1 (x) S 1 1 1 0 -1 0 0 0 0 0 u s"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("utime or stime");
    }

    @Test
    void readsThisProcess() {
        long pid = ProcessHandle.current().pid();

        assertThat(ProcStatus.cpuTicks(pid)).as("this JVM has run some code").isPositive();
        assertThat(ProcStatus.cpuTicks(-1)).isEqualTo(-1);
    }
}
