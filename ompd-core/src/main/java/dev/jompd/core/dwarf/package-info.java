/**
 * DWARF readers over ELF sections: call frame information ({@code .eh_frame}, {@code .eh_frame_hdr},
 * {@code .debug_frame}), DWARF expressions, line programs ({@code .debug_line}, DWARF 2 to 5) and
 * {@code .debug_info}: {@code DebugInfoReader} (units, abbreviations, entries, forms as typed
 * {@code AttributeValue}s, range lists; numbers in {@code DwarfConstants}) under {@link
 * dev.jompd.core.dwarf.FunctionScopes} (functions and inlined calls by address), {@code DwarfNames} (function
 * names as gdb spells them) and {@code CallSites}. gimli and elfutils' libdw are the models.
 * Malformed input raises {@link dev.jompd.core.dwarf.DwarfFormatException} (an
 * {@link dev.jompd.core.elf.ElfFormatException}) and nothing else; every count and loop is bounded.
 */
package dev.jompd.core.dwarf;
