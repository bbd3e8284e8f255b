/**
 * DWARF readers over ELF sections: call frame information ({@code .eh_frame}, {@code .eh_frame_hdr},
 * {@code .debug_frame}), DWARF expressions, line programs ({@code .debug_line}, DWARF 2 to 5) and the
 * function and inlined-call scopes of {@code .debug_info}. gimli and elfutils' libdw are the models.
 * Malformed input raises {@link dev.jompd.core.dwarf.DwarfFormatException} (an
 * {@link dev.jompd.core.elf.ElfFormatException}) and nothing else; every count and loop is bounded.
 */
package dev.jompd.core.dwarf;
