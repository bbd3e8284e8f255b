package dev.jompd.dap.gdb;

import dev.jompd.dap.mi.MiValue;

import java.util.Optional;
import java.util.OptionalLong;

/**
 * One stack frame as gdb reports it ({@code frame={level,addr,func,file,fullname,line,from,arch}}).
 *
 * @param function the function name, or empty when gdb knows none
 * @param file     the source file as compiled, when there is debug info
 * @param fullname the absolute source path, when gdb found it
 * @param line     the line, 0 without debug info
 * @param library  the shared object ({@code from}) when there is no source
 */
public record GdbFrame(int level, OptionalLong address, Optional<String> function, Optional<String> file,
                       Optional<String> fullname, int line, Optional<String> library) {

    public static GdbFrame parse(MiValue frame) {
        return new GdbFrame(
                frame.string("level").map(Integer::parseInt).orElse(0),
                frame.string("addr").map(GdbFrame::address).orElse(OptionalLong.empty()),
                frame.string("func").filter(f -> !f.equals("??")),
                frame.string("file"),
                frame.string("fullname"),
                frame.string("line").map(Integer::parseInt).orElse(0),
                frame.string("from"));
    }

    static Optional<Long> addressOf(String text) {
        try {
            return Optional.of(text.startsWith("0x") ? Long.parseUnsignedLong(text.substring(2), 16) : Long.parseLong(text));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    private static OptionalLong address(String text) {
        return addressOf(text).map(OptionalLong::of).orElse(OptionalLong.empty());
    }

    /** The name a user sees: the function, else the address. */
    public String displayName() {
        return function.orElseGet(() -> address.isPresent() ? "0x" + Long.toHexString(address.getAsLong()) : "??");
    }
}
