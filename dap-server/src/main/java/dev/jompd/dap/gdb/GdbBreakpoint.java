package dev.jompd.dap.gdb;

import dev.jompd.dap.mi.MiValue;

import java.util.Optional;
import java.util.OptionalLong;

/**
 * A breakpoint gdb created ({@code bkpt={number,type,...}}).
 *
 * @param number   gdb's breakpoint number
 * @param pending  whether it waits for a library to load (no location yet)
 * @param file     the source file of its (first) location
 * @param line     the line of its (first) location, 0 when unknown
 * @param function the function of its (first) location
 * @param address  its address, when it has exactly one location
 */
public record GdbBreakpoint(int number, boolean pending, Optional<String> file, int line, Optional<String> function,
                            OptionalLong address) {

    public static GdbBreakpoint parse(MiValue bkpt) {
        int number = (int) Double.parseDouble(bkpt.requireString("number"));
        boolean pending = bkpt.get("pending").isPresent();
        // several locations (mi3: locations=[{number="1.1",...},...]): describe the first
        MiValue location = bkpt.string("line").isPresent() ? bkpt
                : bkpt.get("locations").map(MiValue::items).filter(list -> !list.isEmpty())
                        .map(java.util.List::getFirst).orElse(bkpt);
        return new GdbBreakpoint(number, pending,
                location.string("fullname").or(() -> location.string("file")),
                location.string("line").map(Integer::parseInt).orElse(0),
                location.string("func"),
                bkpt.string("addr").flatMap(GdbFrame::addressOf).map(OptionalLong::of).orElse(OptionalLong.empty()));
    }
}
