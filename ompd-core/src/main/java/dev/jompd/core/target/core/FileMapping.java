package dev.jompd.core.target.core;

/**
 * One file-backed mapping of the target, from the core's NT_FILE note.
 *
 * @param start      first address (inclusive)
 * @param end        end address (exclusive); unsigned, above {@code start}
 * @param fileOffset byte offset in the file that {@code start} maps (already multiplied by the page
 *                   size the note records)
 * @param path       the path the target mapped, as the kernel printed it (may end in " (deleted)")
 */
record FileMapping(long start, long end, long fileOffset, String path) {

    boolean contains(long address) {
        return Long.compareUnsigned(address, start) >= 0 && Long.compareUnsigned(address, end) < 0;
    }

    @Override
    public String toString() {
        return "0x%x-0x%x @0x%x %s".formatted(start, end, fileOffset, path);
    }
}
