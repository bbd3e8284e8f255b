package dev.jompd.core.unwind;

import java.util.OptionalInt;

/** A source position from the line table or an inlined call site: file path, line, column when known. */
public record SourceLocation(String file, int line, OptionalInt column) {
    /** The file's last path element, as gdb's short form shows it. */
    public String fileName() {
        int slash = file.lastIndexOf('/');
        return slash < 0 ? file : file.substring(slash + 1);
    }

    @Override
    public String toString() {
        return file + ":" + line;
    }
}
