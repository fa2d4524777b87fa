package io.ringbus.outbox;

import io.ringbus.testkit.Await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbus.core.Headers;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * {@code append(DataSource, ...)} joins the transaction Spring manages: the business write and the
 * outbox row commit or roll back together (real Spring JDBC transaction management, PostgreSQL).
 */
class SpringTransactionTest {
    @RegisterExtension
    final OutboxOnPostgres db = new OutboxOnPostgres();
    private Relay relay;
    private final RecordingSink sink = new RecordingSink();

    @BeforeEach
    void open() {
        new JdbcTemplate(db.outbox().dataSource()).execute("CREATE TABLE " + db.schema() + ".orders (id TEXT PRIMARY KEY)");
        relay = db.outbox().relay().sink(sink).pollInterval(Duration.ofMillis(20)).start();
    }

    @AfterEach
    void close() {
        relay.close();
    }

    @Test
    void rowCommitsAndRollsBackWithTheSpringTransaction() throws Exception {
        DataSource transactional = new TransactionAwareDataSourceProxy(db.outbox().dataSource());
        JdbcTemplate jdbc = new JdbcTemplate(transactional);
        TransactionTemplate tx = new TransactionTemplate(new DataSourceTransactionManager(db.outbox().dataSource()));

        tx.executeWithoutResult(status -> {
            jdbc.update("INSERT INTO " + db.schema() + ".orders VALUES ('o-1')");
            append(transactional, "o-1");
            status.setRollbackOnly();
        });
        assertThatThrownBy(() -> tx.executeWithoutResult(status -> {
            jdbc.update("INSERT INTO " + db.schema() + ".orders VALUES ('o-2')");
            append(transactional, "o-2");
            throw new IllegalStateException("business rule failed after the append");
        })).hasMessageContaining("business rule");
        tx.executeWithoutResult(status -> {
            jdbc.update("INSERT INTO " + db.schema() + ".orders VALUES ('o-3')");
            append(transactional, "o-3");
        });

        Await.until("the committed row", () -> sink.received.size() == 1);
        Thread.sleep(300);
        assertThat(sink.received).extracting(OutboxEvent::key).containsExactly("o-3");
        assertThat(jdbc.queryForList("SELECT id FROM " + db.schema() + ".orders", String.class)).containsExactly("o-3");
    }

    @Test
    void appendOutsideATransactionIsRefused() {
        DataSource transactional = new TransactionAwareDataSourceProxy(db.outbox().dataSource());
        assertThatThrownBy(() -> db.outbox().append(transactional, "orders.created", "o-9", new byte[1], Headers.EMPTY))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("auto-commit");
    }

    private void append(DataSource transactional, String orderId) {
        try {
            db.outbox().append(transactional, "orders.created", orderId, orderId.getBytes(StandardCharsets.UTF_8), Headers.EMPTY);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
