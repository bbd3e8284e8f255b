package dev.jompd.dap.gdb;

import dev.jompd.dap.mi.MiValue;

/**
 * gdb's answer to one command: the result class ({@code done}, {@code running}, {@code connected},
 * {@code exit}), its results, and the console output gdb printed while executing it.
 */
public record GdbResult(String resultClass, MiValue.Tuple results, String console) {}
