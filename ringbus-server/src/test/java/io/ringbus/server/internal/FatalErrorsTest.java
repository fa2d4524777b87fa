package io.ringbus.server.internal;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which errors stop the standalone server. (The halt itself is installed only by
 * {@code RingbusServerMain}; here, not installed, a fatal error is only reported.)
 */
class FatalErrorsTest {
    @Test
    void anOutOfMemoryErrorAnywhereInTheCauseChainIsFatal() {
        assertThat(FatalErrors.check(new OutOfMemoryError("Java heap space"), "test")).isTrue();
        assertThat(FatalErrors.check(new StackOverflowError(), "test")).isTrue();
        assertThat(FatalErrors.check(new IllegalStateException("wrapped", new OutOfMemoryError("Direct buffer memory")),
                "test")).isTrue();
    }

    @Test
    void ordinaryExceptionsAreNot() {
        assertThat(FatalErrors.check(new UncheckedIOException(new IOException("Connection reset")), "test")).isFalse();
        assertThat(FatalErrors.check(new IllegalArgumentException("bad"), "test")).isFalse();
        assertThat(FatalErrors.check(new AssertionError("not a VirtualMachineError"), "test")).isFalse();
    }
}
