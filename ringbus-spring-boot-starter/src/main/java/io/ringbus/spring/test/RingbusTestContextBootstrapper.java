package io.ringbus.spring.test;

import org.springframework.boot.test.autoconfigure.TestSliceTestContextBootstrapper;

/** Reads {@link RingbusTest#properties()} into the test's environment. */
final class RingbusTestContextBootstrapper extends TestSliceTestContextBootstrapper<RingbusTest> {

    RingbusTestContextBootstrapper() {
    }
}
