package io.ringbus.jetstream;

import io.ringbus.server.RingbusServerMain;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A bad {@code jetstream.*} value in the configuration file stops ringbus-server's start as every
 * other bad value does: one line naming the key and the value, exit status 2, no stack trace (the
 * extension's settings are read before the store opens, outside the server's start).
 */
@Timeout(30)
class JetStreamBadSettingsTest {

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "jetstream.max_streams = lots | jetstream.max_streams must be a number: 'lots'",
        "jetstream.max_pending_bytes = 4m | jetstream.max_pending_bytes must be a number: '4m'",
        "jetstream.max_streams = -5 | jetstream.max_streams must be positive: -5",
        "jetstream.enabled = yes | jetstream.enabled must be true or false: 'yes'",
        "jetstream.max_stream = 8 | unknown key jetstream.max_stream (",
    })
    void aBadValueIsOneLineNamingItAndStatus2(String line, String expected, @TempDir Path dir) throws Exception {
        Path file = dir.resolve("ringbus.properties");
        Files.writeString(file, line + "\n");
        PrintStream original = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        int status;
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            status = new CommandLine(new RingbusServerMain()).execute("--config", file.toString(),
                    "--host", "127.0.0.1", "--port", "0", "--http-port", "0",
                    "--storage-dir", dir.resolve("data").toString());
        } finally {
            System.setErr(original);
        }
        String err = captured.toString(StandardCharsets.UTF_8);
        assertThat(status).as(err).isEqualTo(2);
        assertThat(err.strip().lines()).as(err).hasSize(1)
                .first().asString().startsWith("ringbus-server: " + expected);
    }
}
