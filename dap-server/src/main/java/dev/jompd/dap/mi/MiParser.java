package dev.jompd.dap.mi;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * Parses one line of GDB/MI output (GDB manual, "GDB/MI Output Syntax") into an {@link MiRecord}.
 * A hand-written recursive descent parser: no regular expressions, exact positions in errors, repeated
 * names kept, C strings decoded as bytes and then UTF-8. Nesting is bounded so that hostile input cannot
 * exhaust the stack.
 */
public final class MiParser {
    /** Deeper nesting than gdb ever prints means garbage. */
    static final int MAX_DEPTH = 256;

    private final String line;
    private int pos;

    private MiParser(String line) {
        this.line = line;
    }

    /**
     * Parses {@code line} (without its line terminator; a trailing CR is ignored).
     *
     * @throws MiParseException when the line starts like an MI record but is malformed
     */
    public static MiRecord parse(String line) {
        String text = line.endsWith("\r") ? line.substring(0, line.length() - 1) : line;
        return new MiParser(text).record();
    }

    private MiRecord record() {
        if (line.equals("(gdb)") || line.equals("(gdb) ")) {
            return new MiRecord.Prompt();
        }
        int tokenEnd = 0;
        while (tokenEnd < line.length() && Character.isDigit(line.charAt(tokenEnd))) {
            tokenEnd++;
        }
        if (tokenEnd >= line.length() || "^*+=~@&".indexOf(line.charAt(tokenEnd)) < 0) {
            return new MiRecord.Unrecognized(line);
        }
        OptionalLong token = OptionalLong.empty();
        if (tokenEnd > 0) {
            if (tokenEnd > 18) {
                throw new MiParseException(line, 0, "a token of at most 18 digits");
            }
            token = OptionalLong.of(Long.parseLong(line.substring(0, tokenEnd)));
        }
        char kind = line.charAt(tokenEnd);
        pos = tokenEnd + 1;
        MiRecord record = switch (kind) {
            case '^' -> new MiRecord.ResultRecord(token, identifier("result class"), tailResults());
            case '*' -> new MiRecord.AsyncRecord(token, MiRecord.AsyncKind.EXEC, identifier("async class"), tailResults());
            case '+' -> new MiRecord.AsyncRecord(token, MiRecord.AsyncKind.STATUS, identifier("async class"), tailResults());
            case '=' -> new MiRecord.AsyncRecord(token, MiRecord.AsyncKind.NOTIFY, identifier("async class"), tailResults());
            default -> {
                if (token.isPresent()) {
                    throw new MiParseException(line, 0, "no token before a stream record");
                }
                MiRecord.StreamKind stream = switch (kind) {
                    case '~' -> MiRecord.StreamKind.CONSOLE;
                    case '@' -> MiRecord.StreamKind.TARGET;
                    default -> MiRecord.StreamKind.LOG;
                };
                MiStrings.Decoded decoded = MiStrings.decode(line, pos);
                pos = decoded.end();
                yield new MiRecord.StreamRecord(stream, decoded.text());
            }
        };
        if (pos != line.length()) {
            throw new MiParseException(line, pos, "end of line");
        }
        return record;
    }

    /** {@code ("," result)*} up to the end of the line. */
    private MiValue.Tuple tailResults() {
        List<MiValue.Result> results = new ArrayList<>();
        while (pos < line.length()) {
            expect(',');
            results.add(result(0));
        }
        return new MiValue.Tuple(results);
    }

    private MiValue.Result result(int depth) {
        String name = variable();
        expect('=');
        return new MiValue.Result(name, value(depth));
    }

    private MiValue value(int depth) {
        if (depth > MAX_DEPTH) {
            throw new MiParseException(line, pos, "nesting of at most " + MAX_DEPTH);
        }
        if (pos >= line.length()) {
            throw new MiParseException(line, pos, "a value");
        }
        char c = line.charAt(pos);
        return switch (c) {
            case '"' -> {
                MiStrings.Decoded decoded = MiStrings.decode(line, pos);
                pos = decoded.end();
                yield new MiValue.Const(decoded.text());
            }
            case '{' -> tuple(depth);
            case '[' -> list(depth);
            default -> throw new MiParseException(line, pos, "a value ('\"', '{' or '[')");
        };
    }

    private MiValue.Tuple tuple(int depth) {
        expect('{');
        List<MiValue.Result> results = new ArrayList<>();
        if (peek('}')) {
            pos++;
            return new MiValue.Tuple(results);
        }
        while (true) {
            results.add(result(depth + 1));
            if (peek(',')) {
                pos++;
            } else {
                expect('}');
                return new MiValue.Tuple(results);
            }
        }
    }

    private MiValue.ListValue list(int depth) {
        expect('[');
        List<MiValue.Result> results = new ArrayList<>();
        if (peek(']')) {
            pos++;
            return new MiValue.ListValue(results);
        }
        // A list holds either values or results, never both.
        boolean named = pos < line.length() && isVariableChar(line.charAt(pos));
        while (true) {
            results.add(named ? result(depth + 1) : new MiValue.Result(null, value(depth + 1)));
            if (peek(',')) {
                pos++;
            } else {
                expect(']');
                return new MiValue.ListValue(results);
            }
        }
    }

    private String identifier(String what) {
        int start = pos;
        while (pos < line.length() && isVariableChar(line.charAt(pos))) {
            pos++;
        }
        if (start == pos) {
            throw new MiParseException(line, pos, what);
        }
        return line.substring(start, pos);
    }

    private String variable() {
        return identifier("a result name");
    }

    private static boolean isVariableChar(char c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_';
    }

    private boolean peek(char c) {
        return pos < line.length() && line.charAt(pos) == c;
    }

    private void expect(char c) {
        if (!peek(c)) {
            throw new MiParseException(line, pos, "'" + c + "'");
        }
        pos++;
    }
}
