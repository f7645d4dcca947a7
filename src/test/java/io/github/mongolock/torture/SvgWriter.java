package io.github.mongolock.torture;

/**
 * A standalone SVG document written element by element, in pixels from the top left corner. Every
 * attribute value and text is escaped here, so a lock name or a checker message cannot break the
 * XML. Not thread-safe: one picture is drawn on one writer, then {@link #finish()}ed once.
 */
final class SvgWriter {

    /** DejaVu Sans first: {@link #textWidth} estimates its widths, and Verdana (most desktops) is as wide. */
    private static final String FONT_FAMILY = "'DejaVu Sans', Verdana, Arial, sans-serif";

    private final StringBuilder out = new StringBuilder(64 * 1024);
    private final int width;
    private final String title;
    private int depth;

    /** @param title the document's {@code <title>}: what a tooltip or a screen reader says of the whole picture */
    SvgWriter(int width, String title) {
        this.width = width;
        this.title = title;
    }

    int width() {
        return width;
    }

    /**
     * An empty element, e.g. {@code element("rect", null, "x", 1, "y", 2)}, with a {@code <title>} child
     * when {@code hover} is not null: browsers show it as a tooltip.
     *
     * @param attributes name, value pairs; numbers are written with at most two decimals
     */
    SvgWriter element(String name, String hover, Object... attributes) {
        out.append('<').append(name);
        attributes(attributes);
        if (hover == null) {
            out.append("/>\n");
        } else {
            out.append("><title>").append(escape(hover)).append("</title></").append(name).append(">\n");
        }
        return this;
    }

    SvgWriter text(double x, double y, String content, Object... attributes) {
        out.append("<text x=\"").append(number(x)).append("\" y=\"").append(number(y)).append('"');
        attributes(attributes);
        out.append('>').append(escape(content)).append("</text>\n");
        return this;
    }

    /** Opens a group ({@code g}, {@code defs}, {@code pattern}...) that {@link #close()} ends. */
    SvgWriter open(String name, Object... attributes) {
        out.append('<').append(name);
        attributes(attributes);
        out.append(">\n");
        depth++;
        return this;
    }

    /** A {@code <title>}: right after {@link #open} it names the whole group, shown as its tooltip. */
    SvgWriter title(String hover) {
        out.append("<title>").append(escape(hover)).append("</title>\n");
        return this;
    }

    SvgWriter close(String name) {
        if (depth == 0) {
            throw new IllegalStateException("no open element to close with </" + name + ">");
        }
        depth--;
        out.append("</").append(name).append(">\n");
        return this;
    }

    /** The whole document, {@code height} pixels tall, on a white background so it reads on a dark page too. */
    String finish(double height) {
        if (depth != 0) {
            throw new IllegalStateException(depth + " element(s) still open");
        }
        long h = (long) Math.ceil(height);
        return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                + "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + width + "\" height=\"" + h + "\" viewBox=\"0 0 "
                + width + " " + h + "\" font-family=\"" + FONT_FAMILY + "\">\n"
                + "<title>" + escape(title) + "</title>\n"
                + "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n"
                + out
                + "</svg>\n";
    }

    /**
     * About how wide {@code text} is in DejaVu Sans at {@code size} pixels, from a few classes of glyph
     * widths in ems, each rounded up: labels laid out with it do not collide in a narrower font.
     */
    static double textWidth(String text, double size) {
        double ems = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            ems += " .,:;'!|()[]ijl".indexOf(c) >= 0 ? 0.34 : "frt-/".indexOf(c) >= 0 ? 0.44
                    : "mwMW%".indexOf(c) >= 0 ? 0.98 : Character.isUpperCase(c) ? 0.74 : 0.64;
        }
        return ems * size;
    }

    private void attributes(Object[] attributes) {
        if (attributes.length % 2 != 0) {
            throw new IllegalArgumentException("attributes come in name, value pairs, got " + attributes.length + " items");
        }
        for (int i = 0; i < attributes.length; i += 2) {
            Object value = attributes[i + 1];
            out.append(' ').append(attributes[i]).append("=\"")
                    .append(value instanceof Number n ? number(n.doubleValue()) : escape(String.valueOf(value))).append('"');
        }
    }

    /** Escapes the XML specials and drops the control characters XML 1.0 does not allow at all. */
    static String escape(String text) {
        StringBuilder escaped = new StringBuilder(text.length() + 8);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '&' -> escaped.append("&amp;");
                case '<' -> escaped.append("&lt;");
                case '>' -> escaped.append("&gt;");
                case '"' -> escaped.append("&quot;");
                default -> {
                    if (c >= 0x20 || c == '\t' || c == '\n') {
                        escaped.append(c);
                    }
                }
            }
        }
        return escaped.toString();
    }

    /** At most two decimals: finer than a hundredth of a pixel only makes the file bigger. */
    static String number(double value) {
        if (!Double.isFinite(value)) {
            throw new IllegalArgumentException("not a drawable number: " + value);
        }
        long hundredths = Math.round(value * 100);
        long whole = Math.abs(hundredths) / 100;
        int fraction = (int) (Math.abs(hundredths) % 100);
        String sign = hundredths < 0 ? "-" : "";
        if (fraction == 0) {
            return sign + whole;
        }
        return sign + whole + (fraction % 10 == 0 ? "." + fraction / 10 : fraction < 10 ? ".0" + fraction : "." + fraction);
    }
}
