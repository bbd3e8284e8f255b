package dev.jompd.core.dwarf;

import dev.jompd.core.elf.ElfFormatException;

/** Malformed DWARF data: a bad length, an unknown form or opcode, a reference outside its section. */
public class DwarfFormatException extends ElfFormatException {
    public DwarfFormatException(String source, String problem) {
        super(source, problem);
    }
}
