package io.ringbus.spring.test.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbus.core.Broker;
import io.ringbus.spring.RingbusTemplate;
import io.ringbus.spring.test.RingbusTest;
import io.ringbus.spring.test.RingbusTestMessages;
import io.ringbus.testkit.Await;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.ApplicationContext;

@RingbusTest(properties = "ringbus.name=slice")
class RingbusSliceTest {

    @Autowired
    Broker broker;

    @Autowired
    RingbusTemplate template;

    @Autowired
    OrderListener listener;

    @Autowired
    ApplicationContext context;

    @Value("${ringbus.name}")
    String name;

    @Test
    void aPublishedMessageReachesTheListenerComponent() {
        template.publish("orders.created", "o-1");
        Await.until("o-1 received", () -> listener.received.contains("o-1"));
        assertThat(template.client()).isSameAs(broker);
        assertThat(name).isEqualTo("slice");
    }

    @Test
    void componentsWithoutListenersAndOtherAutoConfigurationAreNotLoaded() {
        assertThat(context.getBeanNamesForType(OrderService.class)).isEmpty();
        assertThat(context.getBeanNamesForType(SliceApplication.class)).hasSize(1);
        assertThat(context.getBeanNamesForType(Broker.class)).hasSize(1);
        assertThat(context.getBeanNamesForType(RingbusTestMessages.class)).as("the slice's await helper").hasSize(1);
        // nothing but the slice's auto-configuration: no web server, DataSource, Jackson, task executors
        assertThat(context.getBeanDefinitionNames())
                .filteredOn(n -> n.matches(".*AutoConfiguration(\\$.*)?"))
                .allMatch(n -> n.startsWith("io.ringbus.spring."), "only ringbus auto-configuration");
    }
}
