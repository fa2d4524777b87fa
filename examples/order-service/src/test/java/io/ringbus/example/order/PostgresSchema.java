package io.ringbus.example.order;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.springframework.test.context.DynamicPropertyRegistry;

/**
 * A schema of the test class's own on the machine's PostgreSQL (127.0.0.1:5432, database
 * {@code test}, trust auth; {@code RINGBUS_TEST_PG_URL} overrides, as the other modules' tests),
 * so that builds running at once never share a table: the application's tables and the outbox's
 * go there, and it is dropped after the class. Declare the extension before {@code @SpringBootTest}:
 * its {@code afterAll} then runs after Spring closed the context (with {@code @DirtiesContext}),
 * so no relay still polls the schema it drops.
 */
final class PostgresSchema implements AfterAllCallback {

    static final String PG_URL = System.getenv().getOrDefault("RINGBUS_TEST_PG_URL",
            "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");

    /** One per test JVM: unique across concurrent builds. */
    static final String NAME = "order_service_" + Long.toHexString(System.nanoTime()) + "_"
            + ThreadLocalRandom.current().nextInt(1_000_000);

    /**
     * Creates the schema and points the application's data source, its table script and the
     * outbox at it.
     *
     * @param registry the test's {@code @DynamicPropertySource} registry
     */
    static void register(DynamicPropertyRegistry registry) {
        execute("CREATE SCHEMA IF NOT EXISTS " + NAME);
        registry.add("spring.datasource.url", () -> PG_URL + (PG_URL.contains("?") ? "&" : "?") + "currentSchema=" + NAME);
        registry.add("ringbus.outbox.schema", () -> NAME);
        // only the tables: the schema is this one, not the application's order_service (db/schema.sql)
        registry.add("spring.sql.init.schema-locations", () -> "classpath:db/tables.sql");
    }

    @Override
    public void afterAll(ExtensionContext context) {
        execute("DROP SCHEMA IF EXISTS " + NAME + " CASCADE");
    }

    private static void execute(String sql) {
        try (Connection connection = DriverManager.getConnection(PG_URL);
             Statement statement = connection.createStatement()) {
            statement.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }
}
