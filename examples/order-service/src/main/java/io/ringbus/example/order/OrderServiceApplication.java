package io.ringbus.example.order;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * The order service, an example of ringbus-spring-boot-starter: {@code POST /orders} stores an
 * order and publishes {@link OrderPlaced} in one transaction (a guaranteed subject, through the
 * outbox on the application's PostgreSQL), {@link OrderConfirmationListener} confirms the order
 * when the event arrives, and NATS clients subscribe to {@code orders.>} through the embedded
 * ringbus-server. Configuration in {@code application.properties}; {@code bin/run example}
 * starts it.
 */
@SpringBootApplication
public class OrderServiceApplication {

    /**
     * Starts the service.
     *
     * @param args Spring Boot arguments, e.g. {@code --server.port=8081 --ringbus.server.port=4333}
     */
    public static void main(String[] args) {
        SpringApplication.run(OrderServiceApplication.class, args);
    }
}
