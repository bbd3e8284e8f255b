package dev.jompd.dap.mi;

/** A line that is not valid GDB/MI output: the line, the position and what was expected there. */
public final class MiParseException extends MiFormatException {
    private final String line;
    private final int position;

    public MiParseException(String line, int position, String expected) {
        super("malformed MI output at column " + position + ": " + expected + " in: " + abbreviate(line));
        this.line = line;
        this.position = position;
    }

    public String line() {
        return line;
    }

    public int position() {
        return position;
    }

    private static String abbreviate(String line) {
        return line.length() <= 200 ? line : line.substring(0, 200) + "...";
    }
}
