package io.github.mongolock.benchmark.chart;

/** A point's shape: a second cue besides colour, for grey prints and colour-blind readers. */
public enum Marker {
    CIRCLE, SQUARE, DIAMOND, TRIANGLE;

    /** Draws the shape centred on (x, y), about {@code radius} from its centre to its edge. */
    void draw(SvgCanvas canvas, double x, double y, double radius, String colour, double fillOpacity) {
        switch (this) {
            case CIRCLE -> canvas.circle(x, y, radius, colour, fillOpacity);
            case SQUARE -> {
                double half = radius * 0.9;
                canvas.polygon(colour, fillOpacity, x - half, y - half, x + half, y - half, x + half, y + half, x - half, y + half);
            }
            case DIAMOND -> {
                double reach = radius * 1.25;
                canvas.polygon(colour, fillOpacity, x, y - reach, x + reach, y, x, y + reach, x - reach, y);
            }
            case TRIANGLE -> {
                double reach = radius * 1.2;
                canvas.polygon(colour, fillOpacity, x, y - reach, x + reach, y + reach * 0.8, x - reach, y + reach * 0.8);
            }
        }
    }
}
