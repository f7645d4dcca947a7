package io.github.mongolock.benchmark.chart;

/**
 * How a piece of text is drawn: size in pixels, anchor, weight, colour, an optional white halo
 * (for labels that may cross lines) and rotation in degrees about the anchor point. Immutable;
 * the {@code with} methods return changed copies.
 */
public record TextStyle(double size, Anchor anchor, boolean bold, String colour, boolean halo, double rotation) {

    /** Where the text's x lies: its start, its middle or its end. */
    public enum Anchor {
        START("start"), MIDDLE("middle"), END("end");

        final String svg;

        Anchor(String svg) {
            this.svg = svg;
        }
    }

    public static TextStyle of(double size) {
        return new TextStyle(size, Anchor.START, false, Palette.TEXT, false, 0);
    }

    public TextStyle anchored(Anchor newAnchor) {
        return new TextStyle(size, newAnchor, bold, colour, halo, rotation);
    }

    public TextStyle bolded() {
        return new TextStyle(size, anchor, true, colour, halo, rotation);
    }

    public TextStyle coloured(String newColour) {
        return new TextStyle(size, anchor, bold, newColour, halo, rotation);
    }

    public TextStyle haloed() {
        return new TextStyle(size, anchor, bold, colour, true, rotation);
    }

    public TextStyle rotated(double degrees) {
        return new TextStyle(size, anchor, bold, colour, halo, degrees);
    }
}
