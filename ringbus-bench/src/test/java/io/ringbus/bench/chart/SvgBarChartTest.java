package io.ringbus.bench.chart;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import org.xml.sax.InputSource;

import javax.xml.parsers.DocumentBuilderFactory;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class SvgBarChartTest {
    @Test
    void isWellFormedSvgWithOneBarPerValueProportionalToIt() throws Exception {
        SvgBarChart chart = new SvgBarChart("throughput", List.of("2 cores"));
        chart.panel("M dispatches/s", "M/s").row("a", 80).row("b", 40).note("0.50x a").row("c", 10);

        Document svg = parse(chart.render());

        assertThat(svg.getDocumentElement().getLocalName()).isEqualTo("svg");
        assertThat(svg.getDocumentElement().getNamespaceURI()).isEqualTo("http://www.w3.org/2000/svg");
        List<Element> bars = bars(svg);
        assertThat(bars).hasSize(3);
        double a = width(bars.get(0));
        assertThat(a).isPositive();
        assertThat(width(bars.get(1)) / a).isCloseTo(0.5, within(1e-3));
        assertThat(width(bars.get(2)) / a).isCloseTo(0.125, within(1e-3));
        assertThat(bars.get(1).getAttribute("data-value")).isEqualTo("40.0");
        assertThat(texts(svg)).contains("throughput", "2 cores", "a", "b", "c", "80", "40 (0.50x a)");
    }

    @Test
    void groupsOneBarPerSeriesInEachRowWithALegend() throws Exception {
        SvgBarChart chart = new SvgBarChart("network", List.of());
        chart.panel("deliveries/s", "ringbus-server", "nats-server").row("1->1", 1.2e6, 1.0e6).row("1->4", 2.7e6, Double.NaN);

        Document svg = parse(chart.render());

        List<Element> bars = bars(svg);
        assertThat(bars).extracting(b -> b.getAttribute("data-series"))
                .containsExactly("ringbus-server", "nats-server", "ringbus-server");
        assertThat(width(bars.get(1)) / width(bars.get(0))).isCloseTo(1.0 / 1.2, within(1e-3));
        assertThat(width(bars.get(2)) / width(bars.get(0))).isCloseTo(2.7 / 1.2, within(1e-3));
        assertThat(texts(svg)).contains("ringbus-server", "nats-server", "1.2M", "no result");
    }

    @Test
    void escapesText() throws Exception {
        String nasty = "<b>&\"it's\"</b>\u0007";
        SvgBarChart chart = new SvgBarChart(nasty, List.of(nasty));
        chart.panel(nasty, nasty).row(nasty, 1).note(nasty).reference(nasty, 0.5);

        String rendered = chart.render();
        Document svg = parse(rendered);

        assertThat(rendered).doesNotContain("<b>");
        assertThat(texts(svg)).contains("<b>&\"it's\"</b>?");
        assertThat(bars(svg).getFirst().getAttribute("data-series")).isEqualTo("<b>&\"it's\"</b>?");
    }

    @Test
    void drawsTheReferenceLineWhereItsValueFalls() throws Exception {
        SvgBarChart chart = new SvgBarChart("t", List.of());
        chart.panel("p", "v").row("fast", 100).row("baseline", 50).reference("baseline = 1.00x", 50);

        Document svg = parse(chart.render());

        NodeList lines = svg.getElementsByTagNameNS("*", "line");
        Element reference = null;
        for (int i = 0; i < lines.getLength(); i++) {
            Element e = (Element) lines.item(i);
            if (e.getAttribute("class").equals("reference")) {
                reference = e;
            }
        }
        assertThat(reference).isNotNull();
        Element fast = bars(svg).getFirst();
        double x0 = Double.parseDouble(fast.getAttribute("x"));
        double at = Double.parseDouble(reference.getAttribute("x1")) - x0;
        assertThat(at / width(fast)).isCloseTo(0.5, within(1e-3));
        assertThat(texts(svg)).contains("baseline = 1.00x");
    }

    @Test
    void rejectsRowsThatDoNotMatchTheSeries() {
        SvgBarChart.Panel panel = new SvgBarChart("t", List.of()).panel("p", "a", "b");

        assertThatThrownBy(() -> panel.row("r", 1)).hasMessageContaining("values=1, series=2");
        assertThatThrownBy(() -> panel.row("r", -1, 1)).hasMessageContaining("value=-1.0");
        assertThatThrownBy(() -> new SvgBarChart("t", List.of()).panel("p")).hasMessageContaining("series=0");
        assertThatThrownBy(() -> panel.note("n")).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void formatsValuesWithThreeSignificantDigitsAndASuffix() {
        assertThat(SvgBarChart.format(77.7200028)).isEqualTo("77.7");
        assertThat(SvgBarChart.format(5982)).isEqualTo("5.98k");
        assertThat(SvgBarChart.format(1_206_161)).isEqualTo("1.21M");
        assertThat(SvgBarChart.format(0.9745)).isEqualTo(String.format(Locale.ROOT, "%.3f", 0.9745));
        assertThat(SvgBarChart.format(0)).isEqualTo("0");
        assertThat(SvgBarChart.format(2_000)).isEqualTo("2k");
    }

    static Document parse(String svg) throws Exception {
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setNamespaceAware(true);
        factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        return factory.newDocumentBuilder().parse(new InputSource(new StringReader(svg)));
    }

    static List<Element> bars(Document svg) {
        List<Element> bars = new ArrayList<>();
        NodeList rects = svg.getElementsByTagNameNS("http://www.w3.org/2000/svg", "rect");
        for (int i = 0; i < rects.getLength(); i++) {
            Element e = (Element) rects.item(i);
            if (e.getAttribute("class").equals("bar")) {
                bars.add(e);
            }
        }
        return bars;
    }

    static List<String> texts(Document svg) {
        List<String> texts = new ArrayList<>();
        NodeList nodes = svg.getElementsByTagNameNS("http://www.w3.org/2000/svg", "text");
        for (int i = 0; i < nodes.getLength(); i++) {
            texts.add(nodes.item(i).getTextContent());
        }
        return texts;
    }

    private static double width(Element bar) {
        return Double.parseDouble(bar.getAttribute("width"));
    }
}
