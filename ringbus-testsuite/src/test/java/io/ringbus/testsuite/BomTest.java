package io.ringbus.testsuite;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * ringbus-bom, which has no parent (so that importing it brings no Netty, Jackson or Spring
 * versions), stays in step with the reactor: its version is the reactor's, it lists every module
 * that is installed (a module is, unless its pom sets {@code maven.install.skip}) and nothing
 * else, and the BOM import the README shows is the one of docs/spring.md's application pom,
 * which bin/app-check builds.
 */
class BomTest {
    private static final Pattern MODULE = Pattern.compile("<module>([^<]+)</module>");
    private static final Pattern ARTIFACT = Pattern.compile("<artifactId>(ringbus-[a-z-]+)</artifactId>");
    private static final Pattern XML_BLOCK = Pattern.compile("```xml\\n(.*?)```", Pattern.DOTALL);
    private static final String APP_POM_MARKER = "<!-- app-check: pom.xml -->\n";

    @Test
    void theBomHasTheReactorsVersion() throws IOException {
        Path root = DurationGrammarEnforcementTest.repositoryRoot();
        assertThat(ownVersion(read(root.resolve("ringbus-bom/pom.xml"))))
                .as("ringbus-bom's version")
                .isEqualTo(ownVersion(read(root.resolve("pom.xml"))));
    }

    @Test
    void theBomListsEveryInstalledModuleAndNothingElse() throws IOException {
        Path root = DurationGrammarEnforcementTest.repositoryRoot();
        List<String> installed = new ArrayList<>();
        Matcher module = MODULE.matcher(read(root.resolve("pom.xml")));
        while (module.find()) {
            String pom = read(root.resolve(module.group(1)).resolve("pom.xml"));
            if (!pom.contains("<maven.install.skip>true</maven.install.skip>")
                    && !module.group(1).equals("ringbus-bom")) {
                installed.add(ownArtifactId(pom));
            }
        }
        String bom = read(root.resolve("ringbus-bom/pom.xml"));
        String managed = bom.substring(bom.indexOf("<dependencyManagement>"), bom.indexOf("</dependencyManagement>"));
        List<String> listed = new ArrayList<>();
        Matcher artifact = ARTIFACT.matcher(managed);
        while (artifact.find()) {
            listed.add(artifact.group(1));
        }
        assertThat(installed).as("modules installed").contains("ringbus-core", "ringbus-spring-boot-starter")
                .doesNotContain("ringbus-bench", "ringbus-testsuite");
        assertThat(listed).as("the artifacts ringbus-bom manages").containsExactlyInAnyOrderElementsOf(installed);
        assertThat(managed).as("ringbus-bom manages ringbus's own artifacts only").doesNotContain("io.netty", "jackson");
    }

    @Test
    void theReadmesBomImportIsTheOneTheCheckedApplicationUses() throws IOException {
        Path root = DurationGrammarEnforcementTest.repositoryRoot();
        String spring = read(root.resolve("docs/spring.md"));
        int marker = spring.indexOf(APP_POM_MARKER);
        assertThat(marker).as("docs/spring.md marks the application's pom for bin/app-check").isNotNegative();
        Matcher appPom = XML_BLOCK.matcher(spring);
        assertThat(appPom.find(marker + APP_POM_MARKER.length())).isTrue();
        Matcher readme = XML_BLOCK.matcher(read(root.resolve("README.md")));
        List<String> imports = new ArrayList<>();
        while (readme.find()) {
            if (readme.group(1).contains("<artifactId>ringbus-bom</artifactId>")) {
                imports.add(readme.group(1));
            }
        }
        assertThat(imports).as("README.md's BOM import").hasSize(1);
        assertThat(squeeze(appPom.group(1))).as("docs/spring.md's application pom (built by bin/app-check)")
                .contains(squeeze(imports.get(0)));
    }

    private static String ownVersion(String pom) {
        // the project's own version: the first <version> after its own artifactId (the parent's comes before it)
        int own = pom.indexOf("<artifactId>", pom.indexOf("</parent>") + 1);
        int start = pom.indexOf("<version>", own) + "<version>".length();
        return pom.substring(start, pom.indexOf("</version>", start));
    }

    private static String ownArtifactId(String pom) {
        int own = pom.indexOf("<artifactId>", pom.indexOf("</parent>") + 1) + "<artifactId>".length();
        return pom.substring(own, pom.indexOf("</artifactId>", own));
    }

    private static String squeeze(String xml) {
        return xml.replaceAll("\\s+", "");
    }

    private static String read(Path file) throws IOException {
        return Files.readString(file, StandardCharsets.UTF_8);
    }
}
