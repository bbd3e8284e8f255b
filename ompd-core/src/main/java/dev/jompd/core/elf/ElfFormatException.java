package dev.jompd.core.elf;

import dev.jompd.core.target.TargetException;

/**
 * A file that is not a well-formed ELF64 little-endian file (or core file): a truncated header, an
 * offset or size beyond the end of the file, an inconsistent table, a note that does not fit. This is
 * the only exception the ELF reader and the core-file backend throw for bad file contents; they never
 * let an index, allocation or arithmetic error escape for them.
 */
public class ElfFormatException extends TargetException {
    private final String source;
    private final String problem;

    /**
     * @param source  what was being read, usually the file's path
     * @param problem what is wrong with it
     */
    public ElfFormatException(String source, String problem) {
        super(source + ": " + problem);
        this.source = source;
        this.problem = problem;
    }

    /** What was being read, usually the file's path. */
    public String source() { return source; }

    /** What is wrong, without the source. */
    public String problem() { return problem; }
}
