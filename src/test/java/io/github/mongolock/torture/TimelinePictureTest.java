package io.github.mongolock.torture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.mongolock.torture.SectionRecord.CloseOutcome;
import io.github.mongolock.torture.SectionRecord.WriteOutcome;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;
import org.xml.sax.InputSource;
import org.xml.sax.SAXParseException;
import org.xml.sax.helpers.DefaultHandler;

/**
 * The timeline drawn from a small made-up history: two workers on one lock, one killed inside a section
 * and replaced, an overlap the checker flags, a holder told it lost its lease, an outage and network
 * faults. The picture is read back with the JDK's XML parser and its elements are looked for by what
 * they say (their hover titles and texts), as a reader would find them.
 */
class TimelinePictureTest {

    private static final String SVG = "http://www.w3.org/2000/svg";
    /** The scenario's start; every time below is seconds from it. */
    private static final long ORIGIN = 1_000_000_000_000L;

    private static long at(double seconds) {
        return ORIGIN + (long) (seconds * 1e9);
    }

    private static SectionRecord held(String process, long token, double start, double end) {
        return new SectionRecord(process, "lock-0", token, process + ":n:" + token, at(start), at(end), false,
                WriteOutcome.ACCEPTED, WriteOutcome.ACCEPTED, true, CloseOutcome.OK, false);
    }

    private static final List<SectionRecord> SECTIONS = List.of(
            held("w0.0", 1, 1.0, 1.2),
            held("w1.0", 2, 1.3, 1.5),
            // w0.0 dies inside token 3's work: its section ends at the death.
            held("w0.0", 3, 1.6, 0).endedByDeath(at(2.0)),
            held("w1.0", 4, 3.6, 3.8),
            // Token 6 starts while token 5 is still protected: the checker's overlap.
            held("w1.0", 5, 4.0, 4.5),
            held("w0.1", 6, 4.2, 4.4),
            // Told its lease was lost: token 8 running meanwhile is no overlap.
            new SectionRecord("w1.0", "lock-0", 7, "w1.0:n:7", at(5.0), at(6.0), false, WriteOutcome.SKIPPED,
                    WriteOutcome.SKIPPED, false, CloseOutcome.LOST, true),
            held("w0.1", 8, 5.5, 5.7));

    private static final FaultEvent KILL = new FaultEvent(FaultEvent.Kind.KILL, "w0.0", "lock-0", 3, at(1.9), at(1.91),
            at(2.0), at(3.7));
    private static final FaultEvent OUTAGE = new FaultEvent(FaultEvent.Kind.OUTAGE, "", "", 0, at(6.5), at(6.5), at(7.5),
            at(7.6));
    private static final List<NetworkFault> NETWORK = List.of(new NetworkFault(NetworkFault.Kind.CUT, at(2.5), at(2.5)),
            new NetworkFault(NetworkFault.Kind.STALL, at(3.0), at(3.4)));

    private static Timeline timeline() {
        CheckReport report = HistoryChecker.check(SECTIONS, List.of(), List.of(KILL, OUTAGE),
                List.of(new CounterState("lock-0", 7, 7, 7, 7, 8)), 0, true);
        ScenarioResult result = new ScenarioResult(Scenario.MIXED, report, Duration.ofSeconds(8),
                Duration.ofMillis(2300), List.of(KILL, OUTAGE), NETWORK.size(), 0);
        return Timeline.ofSections("made-up history", ORIGIN, List.of("w1.0", "w0.1", "w0.0"), List.of("lock-0"), SECTIONS,
                List.of(KILL, OUTAGE), NETWORK, List.of(), TimelineWriter.verdict(result));
    }

    @Test
    void theTimelineIsWellFormedSvgShowingEverySectionTheKillTheOverlapAndTheFaults() throws Exception {
        Timeline timeline = timeline();
        Element svg = parse(TimelinePicture.render(timeline, ORIGIN, timeline.end(), "whole run"));

        assertEquals(SVG, svg.getNamespaceURI());
        assertEquals("svg", svg.getLocalName());
        assertEquals("0 0 " + svg.getAttribute("width") + " " + svg.getAttribute("height"), svg.getAttribute("viewBox"));

        // Every section is a bar, in the overview and again in the zoom on the kill where it falls in it.
        for (SectionRecord section : SECTIONS) {
            List<Element> bars = titled("rect", "lock-0 token " + section.token() + ", " + section.process() + ", ", svg);
            assertTrue(bars.size() >= 1, "no bar for token " + section.token());
            assertEquals(TimelinePicture.TOKEN_COLOURS.get((int) section.token() % 6), bars.get(0).getAttribute("fill"));
        }
        assertNotEquals(bar(svg, 5).getAttribute("fill"), bar(svg, 6).getAttribute("fill"), "neighbouring tokens look alike");
        assertEquals("0.3", bar(svg, 7).getAttribute("fill-opacity"), "the holder told it lost its lease is not drawn pale");
        assertTrue(title(bar(svg, 7)).contains("told it lost the lease"));
        assertTrue(title(bar(svg, 3)).contains("1.600 to 2.000 s (400 ms), process killed inside its work"));

        // One lane per process, the replacement labelled as such and ordered under the one it replaced.
        List<String> labels = texts(svg).stream().filter(t -> t.matches("w\\d\\.\\d.*")).distinct().toList();
        assertEquals(List.of("w0.0", "w0.1 replaces w0.0", "w1.0"), labels);

        List<Element> kills = titled("g", "w0.0 killed (kill -9) at 2.000 s", svg);
        assertEquals(2, kills.size(), "the kill is crossed on the victim's lane, in the overview and in the zoom");
        assertEquals(2, titled("rect", "w0.0 stopped (SIGSTOP), then killed (kill -9) 1.900 to 2.000 s", svg).size());

        List<Element> overlaps = titled("rect", "overlap on lock-0: token 6 (w0.1) ran while token 5 (w1.0) still held the lock",
                svg);
        assertEquals(1, overlaps.size(), "the overlap is framed once (it is outside the zoom)");
        assertEquals(TimelinePicture.OVERLAP, overlaps.get(0).getAttribute("stroke"));
        assertTrue(texts(svg).contains("overlap"));
        assertTrue(titled("rect", "overlap on lock-0: token 8", svg).isEmpty(), "a section told of its loss is no overlap");

        // The outage comes after the zoom; the reset and the stall fall in it too.
        assertEquals(1, titled("rect", "MongoDB unavailable (outage) 6.500 to 7.500 s", svg).size());
        assertEquals(2, titled("line", "a connection reset at 2.500 s", svg).size());
        assertEquals(2, titled("rect", "a connection stalled 3.000 to 3.400 s", svg).size());

        List<String> texts = texts(svg);
        assertTrue(texts.contains("Detail: 1.50 to 4.10 s, around the first kill here: w0.0 held lock-0 with token 3"), texts::toString);
        // The next grant, by the earlier of the harness's poll (3.7 s) and the next section's start (3.6 s).
        assertTrue(texts.contains("lock-0 granted again 1700 ms after the SIGSTOP"), texts::toString);
        assertTrue(texts.stream().anyMatch(t -> t.startsWith("Checker: 1 overlap, 0 token-order violations")), texts::toString);
        assertTrue(texts.contains("seconds since start"));
        assertTrue(texts.containsAll(List.of("0", "1", "2", "3", "4", "5", "6", "7")), "axis ticks: " + texts);
        for (String legend : List.of("process killed (kill -9)", "MongoDB unavailable (outage)", "a connection reset",
                "pale: its worker was told it lost the lease (not protected to its end)")) {
            assertTrue(texts.contains(legend), "legend lacks " + legend);
        }
        assertTrue(texts.stream().noneMatch(t -> t.contains("database clock")), "no clock step, no clock strip");
    }

    @Test
    void theReplicaSetLayersStaleWindowsLostAnswersAndRollbacksAreDrawnInTheNetworkStrip() throws Exception {
        List<NetworkFault> layer = List.of(new NetworkFault(NetworkFault.Kind.STALE_WINDOW, at(2.0), at(3.5)),
                new NetworkFault(NetworkFault.Kind.LOST_REPLY, at(2.5), at(2.5)),
                new NetworkFault(NetworkFault.Kind.ROLLED_BACK, at(4.0), at(4.0)));
        Timeline timeline = Timeline.ofSections("made-up stale reads", ORIGIN, List.of("w0.0", "w1.0"), List.of("lock-0"),
                List.of(held("w0.0", 1, 1.0, 1.2), held("w1.0", 2, 4.5, 4.7)), List.of(), layer, List.of(), "Checker: made up.");
        Element svg = parse(TimelinePicture.render(timeline, ORIGIN, timeline.end(), "whole run"));

        // Each in the overview, and again in the zoom on two seconds of the middle where it falls in it.
        assertFalse(titled("rect", "an election: majority reads answered from an older snapshot 2.000 to 3.500 s", svg).isEmpty());
        assertFalse(titled("circle", "a write applied and its answer lost at 2.500 s", svg).isEmpty());
        assertFalse(titled("circle", "a write applied, its answer lost, rolled back by an election at 4.000 s", svg).isEmpty());
        List<String> texts = texts(svg);
        for (String legend : List.of("after an election: majority reads stale",
                "a write applied, its answer lost (filled: rolled back by an election)")) {
            assertTrue(texts.contains(legend), "legend lacks " + legend + ": " + texts);
        }
        assertTrue(texts.stream().anyMatch(t -> t.contains("1 election with stale reads, 1 write whose answer was lost,"
                + " 1 write rolled back")), texts::toString);
    }

    @Test
    void aLongRunIsWrittenInPartsOfAtMostThirtySecondsAndAShortOneInOne(@TempDir Path directory) throws Exception {
        List<SectionRecord> sections = new ArrayList<>();
        for (int i = 0; i < 700; i++) {
            sections.add(held(i % 2 == 0 ? "w0.0" : "w1.0", i + 1, i * 0.1, i * 0.1 + 0.05));
        }
        Timeline long70 = Timeline.ofSections("long", ORIGIN, List.of("w0.0", "w1.0"), List.of("lock-0"), sections,
                List.of(), List.of(), List.of(), "Checker: made up.");
        Path longDirectory = Files.createDirectory(directory.resolve("long"));
        List<Path> parts = TimelineWriter.write(longDirectory, long70);
        assertEquals(List.of("timeline-1-of-3.svg", "timeline-2-of-3.svg", "timeline-3-of-3.svg"),
                parts.stream().map(p -> p.getFileName().toString()).toList());
        int drawn = 0;
        for (Path part : parts) {
            Element svg = parse(Files.readString(part));
            drawn += titled("rect", "lock-0 token ", svg).size();
        }
        // Each bar once per part it reaches into, plus those in each part's two-second zoom.
        assertTrue(drawn >= 700, "bars drawn: " + drawn);
        try (Stream<Path> files = Files.list(longDirectory)) {
            assertEquals(3, files.count());
        }

        Path shortDirectory = Files.createDirectory(directory.resolve("short"));
        Timeline short2 = Timeline.ofSections("short", ORIGIN, List.of("w0.0", "w1.0"), List.of("lock-0"),
                sections.subList(0, 20), List.of(), List.of(), List.of(), "Checker: made up.");
        assertEquals(List.of(shortDirectory.resolve("timeline.svg")), TimelineWriter.write(shortDirectory, short2));
    }

    @Test
    void anElectionIsDrawnAsTermsAndNothingOfTheMarkupIsLeftUnescaped() throws Exception {
        LeaderHistory history = new LeaderHistory(List.of(new LeaderHistory.Answer("w0.0", 1, at(1.0), at(1.001)),
                new LeaderHistory.Answer("w0.0", 1, at(2.0), at(2.001)), new LeaderHistory.Answer("w1.0", 2, at(4.0), at(4.002))),
                List.of(), List.of(new LeaderHistory.Notice("w0.0", 1, "LEASE_LOST <&\"'>", at(2.5))));
        Timeline timeline = Timeline.ofElection("election <&>", ORIGIN, List.of("w0.0", "w1.0"), "leader", history,
                List.of(), List.of(), "Checker: 0 double leaders.");
        Element svg = parse(TimelinePicture.render(timeline, ORIGIN, timeline.end(), "whole run"));
        Element term = titled("rect", "leader term 1, w0.0, 1.000 to 2.001 s", svg).get(0);
        assertTrue(title(term).endsWith("2 yes answers recorded, revoked: LEASE_LOST <&\"'>"), title(term));
        assertEquals(1, titled("rect", "leader term 2, w1.0", svg).size());
        assertTrue(texts(svg).contains("election <&>"));
    }

    private static Element bar(Element svg, long token) {
        return titled("rect", "lock-0 token " + token + ", ", svg).get(0);
    }

    /** The elements named {@code name} whose {@code <title>} starts with {@code prefix}. */
    private static List<Element> titled(String name, String prefix, Element svg) {
        List<Element> found = new ArrayList<>();
        NodeList all = svg.getElementsByTagNameNS(SVG, name);
        for (int i = 0; i < all.getLength(); i++) {
            Element element = (Element) all.item(i);
            if (title(element).startsWith(prefix)) {
                found.add(element);
            }
        }
        return found;
    }

    private static String title(Element element) {
        for (Node child = element.getFirstChild(); child != null; child = child.getNextSibling()) {
            if (child instanceof Element e && e.getLocalName().equals("title")) {
                return e.getTextContent();
            }
        }
        return "";
    }

    private static List<String> texts(Element svg) {
        List<String> texts = new ArrayList<>();
        NodeList all = svg.getElementsByTagNameNS(SVG, "text");
        for (int i = 0; i < all.getLength(); i++) {
            texts.add(all.item(i).getTextContent());
        }
        return texts;
    }

    /** Parses with the JDK's parser, namespace-aware, refusing a DOCTYPE; any error fails the test. */
    private static Element parse(String svg) throws Exception {
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setNamespaceAware(true);
        factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        factory.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
        var builder = factory.newDocumentBuilder();
        builder.setErrorHandler(new DefaultHandler() {
            @Override
            public void error(SAXParseException e) throws SAXParseException {
                throw e;
            }

            @Override
            public void fatalError(SAXParseException e) throws SAXParseException {
                throw e;
            }
        });
        Document document = builder.parse(new InputSource(new StringReader(svg)));
        return document.getDocumentElement();
    }
}
