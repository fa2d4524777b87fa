package io.ringbus.testsuite.deploy;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

/** deploy/prometheus/prometheus.yml: scrapes ringbus-server's monitoring port, and promtool accepts it. */
class PrometheusConfigTest {
    static final Path CONFIG = Path.of("..", "deploy", "prometheus", "prometheus.yml");

    @Test
    void scrapesTheServerMonitoringPortEveryFiveSeconds() throws Exception {
        String config = Files.readString(CONFIG, StandardCharsets.UTF_8);

        assertThat(config).contains("- job_name: ringbus-server")
                .contains("scrape_interval: 5s")
                .contains("metrics_path: /metrics")
                .contains("targets: [\"127.0.0.1:8222\"]")
                .contains("# - job_name: ringbus-app");
    }

    @Test
    void promtoolAcceptsIt() throws Exception {
        Path promtool = Path.of("/usr/bin/promtool");
        assumeThat(Files.isExecutable(promtool)).as("promtool is installed (bin/deploy-check installs it)").isTrue();

        Process p = new ProcessBuilder(promtool.toString(), "check", "config", CONFIG.toString())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);

        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        assertThat(out).contains("SUCCESS");
    }
}
