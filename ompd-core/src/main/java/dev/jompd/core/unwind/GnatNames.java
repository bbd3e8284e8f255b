package dev.jompd.core.unwind;

import java.util.Optional;

/**
 * How gdb prints a function symbol that is not C++ and has no debug information. gdb offers every minimal
 * symbol's name to each language's demangler in turn ({@code symbol_find_demangled_name}, gdb/symtab.c); the
 * last is Ada's, which takes any name its GNAT decoder ({@code ada_decode}, gdb/ada-lang.c) changes into one not
 * in angle brackets, and the frame then shows the decoded name. So clang's and gcc's helper symbols of C and C++
 * programs built without -g read, in gdb's backtrace: {@code .omp_task_entry.} as {@code omp_task_entry[]},
 * {@code .omp_task_entry..3} as {@code omp_task_entry.}, gcc's {@code main._omp_fn.0} as {@code main._omp_fn},
 * {@code f.cold} as {@code f[cold]}, {@code f.part.0} as {@code f.part}, {@code my__name} as {@code my.name};
 * {@code main.omp_outlined}, {@code __kmp_x} or any name with a capital letter stay as they are.
 * <p>This follows {@code ada_decode} with gdb's defaults, checked against gdb 13's backtraces of such symbols.
 * Where its answer depends on gdb's character sets (a GNAT wide-character escape, {@code U}/{@code W} and hex
 * digits, of a non-ASCII character) the name is not decoded here, so the frame shows the symbol itself.
 */
final class GnatNames {
    /** GNAT's operator names and how gdb writes them ({@code ada_opname_table}). */
    private static final String[][] OPERATORS = {
            {"Oadd", "\"+\""}, {"Osubtract", "\"-\""}, {"Omultiply", "\"*\""}, {"Odivide", "\"/\""},
            {"Omod", "\"mod\""}, {"Orem", "\"rem\""}, {"Oexpon", "\"**\""}, {"Olt", "\"<\""}, {"Ole", "\"<=\""},
            {"Ogt", "\">\""}, {"Oge", "\">=\""}, {"Oeq", "\"=\""}, {"One", "\"/=\""}, {"Oand", "\"and\""},
            {"Oor", "\"or\""}, {"Oxor", "\"xor\""}, {"Oconcat", "\"&\""}, {"Oabs", "\"abs\""}, {"Onot", "\"not\""}};

    private GnatNames() {}

    /** The name gdb prints for a non-C++ minimal symbol: the decoded one where its Ada decoder claims it. */
    static String gdbPrintName(String symbol) {
        return decoded(symbol).filter(name -> !name.isEmpty() && !name.equals(symbol)).orElse(symbol);
    }

    /**
     * {@code ada_decode(symbol)}; empty where gdb would wrap the name in angle brackets (not a GNAT name: its
     * Ada decoder then leaves it to the others), and where the answer depends on gdb's character sets.
     */
    private static Optional<String> decoded(String symbol) {
        for (int i = 0; i < symbol.length(); i++) {
            if (symbol.charAt(i) >= 0x80) {
                return Optional.empty(); // C's ctype of bytes past ASCII depends on the locale
            }
        }
        Name encoded = new Name(symbol);
        encoded.skip(".");       // PPC64 function descriptors' ".FN"
        encoded.skip("_ada_");   // the Ada main procedure
        encoded.skip("___ghost_");
        if (encoded.at(0) == '_' || encoded.at(0) == '<') {
            return Optional.empty();
        }
        int end = encoded.length();
        int suffix = -1;
        // A compiler's suffix of letters (.cold): shown in brackets after the decoded name.
        int dot = end - 1;
        while (dot > 0 && isAlpha(encoded.at(dot))) {
            dot--;
        }
        if (dot > 0 && encoded.at(dot) == '.') {
            end = dot;
            suffix = dot + 1;
        }
        end = withoutTrailingDigits(encoded, end);
        if (end > 1 && encoded.at(end - 1) == 'N' && (isDigit(encoded.at(end - 2)) || isLower(encoded.at(end - 2)))) {
            end--; // a protected object's subprogram
        }
        int triple = encoded.text().indexOf("___");
        if (triple >= 0 && triple < end - 3) {
            if (encoded.at(triple + 3) != 'X') {
                return Optional.empty();
            }
            end = triple;
        }
        if (end > 3 && encoded.startsWith("TKB", end - 3)) {
            end -= 3;
        }
        if (end > 2 && encoded.startsWith("TB", end - 2)) {
            end -= 2;
        }
        if (end > 1 && encoded.at(end - 1) == 'B') {
            end -= 1;
        }
        if (end > 1 && isDigit(encoded.at(end - 1))) { // __{digits} or ${digits}
            int i = end - 2;
            while ((i >= 0 && isDigit(encoded.at(i))) || (i >= 1 && encoded.at(i) == '_' && isDigit(encoded.at(i - 1)))) {
                i--;
            }
            if (i > 1 && encoded.at(i) == '_' && encoded.at(i - 1) == '_') {
                end = i - 1;
            } else if (i >= 0 && encoded.at(i) == '$') {
                end = i;
            }
        }
        StringBuilder decoded = new StringBuilder();
        int i = 0;
        for (; i < end && !isAlpha(encoded.at(i)); i++) {
            decoded.append(encoded.at(i));
        }
        boolean atStartOfName = true;
        while (i < end) {
            if (atStartOfName && encoded.at(i) == 'O') {
                String operator = operatorAt(encoded, i);
                if (operator != null) {
                    decoded.append(operator.substring(operator.indexOf('"')));
                    i += operator.indexOf('"');
                    atStartOfName = false;
                    continue;
                }
            }
            atStartOfName = false;
            if (i < end - 4 && encoded.startsWith("TK__", i)) {
                i += 2;
            }
            if (end - i > 5 && encoded.startsWith("__B_", i) && isDigit(encoded.at(i + 4))) {
                int k = i + 5; // an anonymous block's __B_{digits}__
                while (k < end && isDigit(encoded.at(k))) {
                    k++;
                }
                if (end - k > 2 && encoded.startsWith("__", k)) {
                    i = k;
                }
            }
            if (end - i > 3 && encoded.at(i) == '_' && encoded.at(i + 1) == 'E' && isDigit(encoded.at(i + 2))) {
                int k = i + 3; // an entry's _E{digits}[bs]
                while (k < end && isDigit(encoded.at(k))) {
                    k++;
                }
                if (k < end && (encoded.at(k) == 'b' || encoded.at(k) == 's')) {
                    k++;
                    if (k == end || encoded.at(k) == '_') {
                        i = k;
                    }
                }
            }
            if (i < end + 3 && encoded.at(i) == 'N' && encoded.at(i + 1) == '_' && encoded.at(i + 2) == '_') {
                int back = i - 1; // a protected object's N__
                while (back >= 0 && (isDigit(encoded.at(back)) || isLower(encoded.at(back)))) {
                    back--;
                }
                if (back < 0 || (back > 0 && encoded.at(back) == '_' && encoded.at(back - 1) == '_')) {
                    i++;
                }
            }
            int hexDigits = 0;
            int escape = 0;
            if (i < end + 3 && encoded.at(i) == 'U' && isHexDigit(encoded.at(i + 1))) {
                hexDigits = 2;
                escape = 1;
            } else if (i < end + 5 && encoded.at(i) == 'W' && isHexDigit(encoded.at(i + 1))) {
                hexDigits = 4;
                escape = 1;
            } else if (i < end + 10 && encoded.at(i) == 'W' && encoded.at(i + 1) == 'W' && isHexDigit(encoded.at(i + 2))) {
                hexDigits = 8;
                escape = 2;
            }
            if (hexDigits > 0) {
                long value = hex(encoded, i + escape, hexDigits);
                if (value >= 0x80) {
                    return Optional.empty(); // its character in gdb's host and Ada source character sets
                }
                if (value >= 0) {
                    if (value > 0) {
                        decoded.append((char) value);
                    }
                    i += escape + hexDigits;
                    continue;
                }
            }
            if (encoded.at(i) == 'X' && i != 0 && isAlphanumeric(encoded.at(i - 1))) {
                do {
                    i++;
                } while (i < end && (encoded.at(i) == 'b' || encoded.at(i) == 'n'));
                if (i < end) {
                    return Optional.empty();
                }
            } else if (i < end - 2 && encoded.at(i) == '_' && encoded.at(i + 1) == '_') {
                decoded.append('.');
                atStartOfName = true;
                i += 2;
            } else {
                decoded.append(encoded.at(i));
                i++;
            }
        }
        for (int c = 0; c < decoded.length(); c++) {
            if (isUpper(decoded.charAt(c)) || decoded.charAt(c) == ' ') {
                return Optional.empty();
            }
        }
        if (suffix >= 0) {
            decoded.append('[').append(encoded.text(), suffix, encoded.length()).append(']');
        }
        return Optional.of(decoded.toString());
    }

    /** The end of the name without a compiler's numeric suffix: .{digits}, ${digits}, ___{digits}, __{digits}. */
    private static int withoutTrailingDigits(Name encoded, int end) {
        if (end > 1 && isDigit(encoded.at(end - 1))) {
            int i = end - 2;
            while (i > 0 && isDigit(encoded.at(i))) {
                i--;
            }
            if (i >= 0 && (encoded.at(i) == '.' || encoded.at(i) == '$')) {
                return i;
            }
            if (i >= 2 && encoded.startsWith("___", i - 2)) {
                return i - 2;
            }
            if (i >= 1 && encoded.startsWith("__", i - 1)) {
                return i - 1;
            }
        }
        return end;
    }

    /** The operator row ({@code Oadd"+"}: encoded name then gdb's) whose name is at {@code i}; null if none. */
    private static String operatorAt(Name encoded, int i) {
        for (String[] operator : OPERATORS) {
            String name = operator[0];
            if (encoded.startsWith(name.substring(1), i + 1) && !isAlphanumeric(encoded.at(i + name.length()))) {
                return name + operator[1];
            }
        }
        return null;
    }

    /** The value of {@code digits} hex digits at {@code start}; -1 where one is not a hex digit. */
    private static long hex(Name encoded, int start, int digits) {
        long value = 0;
        for (int d = 0; d < digits; d++) {
            int digit = Character.digit(encoded.at(start + d), 16);
            if (digit < 0 || encoded.at(start + d) >= 0x80) {
                return -1;
            }
            value = value << 4 | digit;
        }
        return value;
    }

    /** The name being decoded; past either end it reads NUL, as C's string does past its end. */
    private static final class Name {
        private String text;

        Name(String text) {
            this.text = text;
        }

        void skip(String prefix) {
            if (text.startsWith(prefix)) {
                text = text.substring(prefix.length());
            }
        }

        String text() {
            return text;
        }

        int length() {
            return text.length();
        }

        char at(int index) {
            return index >= 0 && index < text.length() ? text.charAt(index) : '\0';
        }

        boolean startsWith(String prefix, int index) {
            return index >= 0 && text.startsWith(prefix, index);
        }
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    private static boolean isLower(char c) {
        return c >= 'a' && c <= 'z';
    }

    private static boolean isUpper(char c) {
        return c >= 'A' && c <= 'Z';
    }

    private static boolean isAlpha(char c) {
        return isLower(c) || isUpper(c);
    }

    private static boolean isAlphanumeric(char c) {
        return isAlpha(c) || isDigit(c);
    }

    private static boolean isHexDigit(char c) {
        return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    }
}
