package io.ringbus.outbox;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/** What a relay's builder refuses, and how its messages name the value without giving secrets away. */
class RelayBuilderChecksTest {

    @Test
    void aWalUrlThatIsNotPostgreSqlIsNamedWithItsPasswordHidden() throws SQLException {
        try (Outbox outbox = Outbox.builder().jdbcUrl(TestDatabases.h2Url()).open()) {
            // A common slip: jdbc:postgres: for jdbc:postgresql:, with the password in the URL.
            assertThatThrownBy(() -> outbox.relay().wal("s", "jdbc:postgres://db/app?user=u&password=hunter2&ssl=true",
                    null, null))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("jdbcUrl=jdbc:postgres://db/app?user=u&password=***&ssl=true")
                    .hasMessageNotContaining("hunter2");
            assertThatThrownBy(() -> outbox.relay().wal("s", "jdbc:h2:mem:x;PASSWORD=hunter2", null, null))
                    .hasMessageNotContaining("hunter2");
        }
    }
}
