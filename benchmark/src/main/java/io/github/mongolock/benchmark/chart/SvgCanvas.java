package io.github.mongolock.benchmark.chart;

import java.util.Locale;

/**
 * One standalone SVG document being drawn, in pixels from the top left corner. Text stays SVG
 * text (selectable, searchable, sharp at any zoom) and is escaped here; the document carries its
 * own white background, so it reads the same on a light or a dark page. Not thread-safe: one
 * chart draws on one canvas, then renders it once.
 */
public final class SvgCanvas {

    /**
     * DejaVu Sans first: {@link TextMetrics} estimates its widths; Verdana (on most desktops) is as
     * wide, and the narrower fallbacks only leave more room.
     */
    static final String FONT_FAMILY = "'DejaVu Sans', Verdana, Arial, Helvetica, sans-serif";

    private final int width;
    private final int height;
    private final String title;
    private final StringBuilder body = new StringBuilder();

    /** @param title the document's {@code <title>}: what a screen reader or a tooltip says */
    public SvgCanvas(int width, int height, String title) {
        this.width = width;
        this.height = height;
        this.title = title;
    }

    public int width() {
        return width;
    }

    public int height() {
        return height;
    }

    public void rect(double x, double y, double w, double h, String fill) {
        body.append("<rect x=\"").append(n(x)).append("\" y=\"").append(n(y)).append("\" width=\"").append(n(w))
                .append("\" height=\"").append(n(h)).append("\" fill=\"").append(fill).append("\"/>\n");
    }

    /** A filled rectangle with a thin outline, e.g. white, to keep touching segments apart. */
    public void rect(double x, double y, double w, double h, String fill, String stroke) {
        body.append("<rect x=\"").append(n(x)).append("\" y=\"").append(n(y)).append("\" width=\"").append(n(w))
                .append("\" height=\"").append(n(h)).append("\" fill=\"").append(fill).append("\" stroke=\"")
                .append(stroke).append("\" stroke-width=\"1\"/>\n");
    }

    public void line(double x1, double y1, double x2, double y2, String stroke, double strokeWidth) {
        line(x1, y1, x2, y2, stroke, strokeWidth, false);
    }

    public void line(double x1, double y1, double x2, double y2, String stroke, double strokeWidth, boolean dashed) {
        body.append("<line x1=\"").append(n(x1)).append("\" y1=\"").append(n(y1)).append("\" x2=\"").append(n(x2))
                .append("\" y2=\"").append(n(y2)).append("\" stroke=\"").append(stroke).append("\" stroke-width=\"")
                .append(n(strokeWidth)).append('"').append(dashed ? " stroke-dasharray=\"6 4\"" : "").append("/>\n");
    }

    /** A shape outlined in its own colour and filled with it at {@code fillOpacity}, so overlaps show as darker. */
    public void circle(double cx, double cy, double r, String colour, double fillOpacity) {
        body.append("<circle cx=\"").append(n(cx)).append("\" cy=\"").append(n(cy)).append("\" r=\"").append(n(r))
                .append("\" fill=\"").append(colour).append("\" fill-opacity=\"").append(n(fillOpacity))
                .append("\" stroke=\"").append(colour).append("\" stroke-width=\"1\"/>\n");
    }

    /** As {@link #circle}, for any polygon given as x, y pairs. */
    public void polygon(String colour, double fillOpacity, double... xy) {
        if (xy.length < 6 || xy.length % 2 != 0) {
            throw new IllegalArgumentException("a polygon needs at least 3 x, y pairs, got " + xy.length + " numbers");
        }
        StringBuilder points = new StringBuilder();
        for (int i = 0; i < xy.length; i += 2) {
            points.append(i == 0 ? "" : " ").append(n(xy[i])).append(',').append(n(xy[i + 1]));
        }
        body.append("<polygon points=\"").append(points).append("\" fill=\"").append(colour).append("\" fill-opacity=\"")
                .append(n(fillOpacity)).append("\" stroke=\"").append(colour).append("\" stroke-width=\"1\"/>\n");
    }

    /** Text whose baseline starts, is centred or ends at (x, y), as the style's anchor says. */
    public void text(double x, double y, String content, TextStyle style) {
        body.append("<text x=\"").append(n(x)).append("\" y=\"").append(n(y)).append("\" font-size=\"")
                .append(n(style.size())).append("\" fill=\"").append(style.colour()).append('"');
        if (style.anchor() != TextStyle.Anchor.START) {
            body.append(" text-anchor=\"").append(style.anchor().svg).append('"');
        }
        if (style.bold()) {
            body.append(" font-weight=\"bold\"");
        }
        if (style.halo()) {
            // A white outline painted under the glyphs: the text stays readable where it crosses a line.
            body.append(" stroke=\"#ffffff\" stroke-width=\"3\" stroke-linejoin=\"round\" paint-order=\"stroke\"");
        }
        if (style.rotation() != 0) {
            body.append(" transform=\"rotate(").append(n(style.rotation())).append(' ').append(n(x)).append(' ')
                    .append(n(y)).append(")\"");
        }
        body.append('>').append(escape(content)).append("</text>\n");
    }

    /** The whole document, with the XML declaration and the SVG namespace. */
    public String render() {
        return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                + "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + width + "\" height=\"" + height
                + "\" viewBox=\"0 0 " + width + " " + height + "\" font-family=\"" + FONT_FAMILY + "\">\n"
                + "<title>" + escape(title) + "</title>\n"
                + "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n"
                + body
                + "</svg>\n";
    }

    /**
     * Escapes the five XML specials; drops control characters, which XML 1.0 does not allow even
     * escaped (a stray one from a measured label would make the whole picture unreadable).
     */
    static String escape(String text) {
        StringBuilder escaped = new StringBuilder(text.length() + 16);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '&' -> escaped.append("&amp;");
                case '<' -> escaped.append("&lt;");
                case '>' -> escaped.append("&gt;");
                case '"' -> escaped.append("&quot;");
                case '\'' -> escaped.append("&apos;");
                default -> {
                    if (c >= 0x20 || c == '\t' || c == '\n' || c == '\r') {
                        escaped.append(c);
                    }
                }
            }
        }
        return escaped.toString();
    }

    /** A coordinate with at most two decimals (finer than a pixel is noise in the file). */
    private static String n(double value) {
        if (!Double.isFinite(value)) {
            throw new IllegalArgumentException("not a drawable coordinate: " + value);
        }
        String text = String.format(Locale.ROOT, "%.2f", value).replaceAll("\\.?0+$", "");
        return text.equals("-0") ? "0" : text;
    }
}
