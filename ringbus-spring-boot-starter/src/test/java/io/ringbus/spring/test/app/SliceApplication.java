package io.ringbus.spring.test.app;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/** The application whose package {@link RingbusSliceTest} scans, as a real application's would be. */
@SpringBootApplication
public class SliceApplication {
}
