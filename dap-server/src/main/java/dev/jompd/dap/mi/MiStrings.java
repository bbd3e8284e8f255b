package dev.jompd.dap.mi;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * C-string quoting for MI: gdb escapes bytes ({@code \n}, {@code \"}, octal {@code \303\251}), so a
 * string is decoded to bytes first and then read as UTF-8; commands quote their parameters the same way.
 */
public final class MiStrings {
    private MiStrings() {}

    /**
     * {@code text} as an MI C-string parameter, quotes included, safe for any content: quotes,
     * backslashes and control characters are escaped; other characters pass as they are (UTF-8).
     */
    public static String quote(String text) {
        StringBuilder out = new StringBuilder(text.length() + 2).append('"');
        text.codePoints().forEach(c -> {
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20 || c == 0x7f) {
                        out.append('\\').append(String.format("%03o", c));
                    } else {
                        out.appendCodePoint(c);
                    }
                }
            }
        });
        return out.append('"').toString();
    }

    /**
     * Decodes the C string starting at {@code start} (its opening quote) in {@code line}.
     *
     * @return the decoded text and the index just past the closing quote
     */
    static Decoded decode(String line, int start) {
        if (start >= line.length() || line.charAt(start) != '"') {
            throw new MiParseException(line, start, "expected '\"'");
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int i = start + 1;
        while (true) {
            if (i >= line.length()) {
                throw new MiParseException(line, i, "unterminated string");
            }
            char c = line.charAt(i);
            if (c == '"') {
                return new Decoded(bytes.toString(StandardCharsets.UTF_8), i + 1);
            }
            if (c != '\\') {
                int codePoint = line.codePointAt(i);
                bytes.writeBytes(new String(Character.toChars(codePoint)).getBytes(StandardCharsets.UTF_8));
                i += Character.charCount(codePoint);
                continue;
            }
            i++;
            if (i >= line.length()) {
                throw new MiParseException(line, i, "escape at end of line");
            }
            char e = line.charAt(i);
            switch (e) {
                case 'n' -> { bytes.write('\n'); i++; }
                case 't' -> { bytes.write('\t'); i++; }
                case 'r' -> { bytes.write('\r'); i++; }
                case 'a' -> { bytes.write(7); i++; }
                case 'b' -> { bytes.write('\b'); i++; }
                case 'f' -> { bytes.write('\f'); i++; }
                case 'v' -> { bytes.write(11); i++; }
                case 'e' -> { bytes.write(27); i++; }
                case '"', '\\', '\'', '?' -> { bytes.write(e); i++; }
                case 'x' -> {
                    int j = i + 1;
                    int value = 0;
                    while (j < line.length() && j < i + 3 && Character.digit(line.charAt(j), 16) >= 0) {
                        value = value * 16 + Character.digit(line.charAt(j), 16);
                        j++;
                    }
                    if (j == i + 1) {
                        throw new MiParseException(line, i, "hex digits after \\x");
                    }
                    bytes.write(value);
                    i = j;
                }
                default -> {
                    if (e >= '0' && e <= '7') {
                        int j = i;
                        int value = 0;
                        while (j < line.length() && j < i + 3 && line.charAt(j) >= '0' && line.charAt(j) <= '7') {
                            value = value * 8 + (line.charAt(j) - '0');
                            j++;
                        }
                        bytes.write(value & 0xff);
                        i = j;
                    } else {
                        throw new MiParseException(line, i, "unknown escape \\" + e);
                    }
                }
            }
        }
    }

    record Decoded(String text, int end) {}
}
