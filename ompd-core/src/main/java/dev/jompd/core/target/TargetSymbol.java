package dev.jompd.core.target;

/**
 * A symbol of a loaded module.
 *
 * @param address run-time address (load bias applied); for a thread-local symbol, the offset in its
 *                module's TLS block
 * @param size    the symbol's size in bytes as the symbol table gives it (0 when unknown)
 * @param module  the file name of the module that defines it
 * @param threadLocal whether the symbol is thread-local (STT_TLS)
 */
public record TargetSymbol(String name, long address, long size, String module, boolean threadLocal) {}
