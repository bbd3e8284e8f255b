package dev.jompd.dap.session;

import java.util.List;
import java.util.stream.Collectors;

/** POSIX shell quoting: gdb starts the program through /bin/sh, which must see each argument as is. */
final class ShellQuoting {
    private ShellQuoting() {}

    /** {@code 'text'}, with embedded single quotes as {@code '\''}. */
    static String quote(String text) {
        return "'" + text.replace("'", "'\\''") + "'";
    }

    static String join(List<String> arguments) {
        return arguments.stream().map(ShellQuoting::quote).collect(Collectors.joining(" "));
    }
}
