package dev.jompd.core.dwarf;

import java.util.Optional;
import java.util.OptionalLong;

/**
 * A call the compiler described ({@code DW_TAG_call_site}): its return address, whether it is a tail call
 * (a jump), and its target function: its entry address when the same unit defines it, and its name (for
 * the symbol tables) otherwise.
 */
public record CallSite(long returnPc, boolean tailCall, OptionalLong targetEntry, Optional<String> targetName) {}
