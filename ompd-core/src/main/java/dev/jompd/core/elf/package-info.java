/**
 * A reader for ELF64 little-endian files (executables, shared libraries, debug files, cores) on
 * memory-mapped files: headers, program and section headers, notes, symbol tables, build-ids.
 * Malformed input raises {@link dev.jompd.core.elf.ElfFormatException}, and only that.
 */
package dev.jompd.core.elf;
