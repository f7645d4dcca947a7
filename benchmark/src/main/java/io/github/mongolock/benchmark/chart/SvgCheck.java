package io.github.mongolock.benchmark.chart;

import java.io.StringReader;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Element;
import org.xml.sax.InputSource;
import org.xml.sax.SAXParseException;
import org.xml.sax.helpers.DefaultHandler;

/**
 * Reads a written chart back with the JDK's XML parser: it must be well-formed XML whose root is
 * an {@code svg} element in the SVG namespace, with a size. A chart that fails this would show as
 * a broken image on GitHub, so the run fails instead of committing it.
 */
public final class SvgCheck {

    private static final String SVG_NAMESPACE = "http://www.w3.org/2000/svg";

    private SvgCheck() {
    }

    /** @throws IllegalStateException naming the chart and what is wrong with it */
    public static void check(String name, String svg) {
        Element root;
        try {
            DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            factory.setNamespaceAware(true);
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            factory.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            DocumentBuilder builder = factory.newDocumentBuilder();
            // Throw, do not print: the default handler also writes "[Fatal Error]" lines to stderr.
            builder.setErrorHandler(new DefaultHandler() {
                @Override
                public void error(SAXParseException e) throws SAXParseException {
                    throw e;
                }
            });
            root = builder.parse(new InputSource(new StringReader(svg))).getDocumentElement();
        } catch (Exception notXml) {
            throw new IllegalStateException(name + " is not well-formed XML: " + notXml.getMessage(), notXml);
        }
        if (!"svg".equals(root.getLocalName()) || !SVG_NAMESPACE.equals(root.getNamespaceURI())) {
            throw new IllegalStateException(name + ": root element is {" + root.getNamespaceURI() + "}" + root.getLocalName()
                    + ", not {" + SVG_NAMESPACE + "}svg");
        }
        for (String attribute : new String[] {"width", "height", "viewBox"}) {
            if (root.getAttribute(attribute).isEmpty()) {
                throw new IllegalStateException(name + ": the svg element has no " + attribute);
            }
        }
    }
}
