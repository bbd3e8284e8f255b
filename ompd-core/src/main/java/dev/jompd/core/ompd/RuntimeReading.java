package dev.jompd.core.ompd;

import java.util.Optional;

/**
 * How jompd read the runtime's layout, for reports: from the runtime's own symbol table, from a separate
 * debug file (found on disk or downloaded from a debuginfod server), or, with no symbols anywhere, through
 * a runtime profile of its version.
 *
 * @param source the kind of reading
 * @param detail the debug file's path, the debuginfod server's URL, or the profile's libomp version
 * @param note   what a reader should know about how the profile was chosen (its path named another
 *               version; other profiles fit as well), if anything
 */
public record RuntimeReading(Source source, Optional<String> detail, Optional<String> note) {
    public enum Source { SYMBOLS, DEBUG_FILE, DEBUGINFOD, PROFILE }

    public RuntimeReading(Source source, Optional<String> detail) {
        this(source, detail, Optional.empty());
    }

    public static RuntimeReading symbols() {
        return new RuntimeReading(Source.SYMBOLS, Optional.empty());
    }

    public static RuntimeReading profile(String version) {
        return new RuntimeReading(Source.PROFILE, Optional.of(version));
    }

    public static RuntimeReading profile(String version, Optional<String> note) {
        return new RuntimeReading(Source.PROFILE, Optional.of(version), note);
    }

    /**
     * {@code symbols}, {@code debug file PATH}, {@code debuginfod URL}, {@code profile libomp 19.1.7}, with the
     * note in parentheses ({@code profile libomp 19.1.7 (its path names llvm-16, but ...)}).
     */
    @Override
    public String toString() {
        return switch (source) {
            case SYMBOLS -> "symbols";
            case DEBUG_FILE -> "debug file " + detail.orElse("?");
            case DEBUGINFOD -> "debuginfod " + detail.orElse("?");
            case PROFILE -> "profile libomp " + detail.orElse("?");
        } + note.map(text -> " (" + text + ")").orElse("");
    }
}
