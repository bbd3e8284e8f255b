package dev.jompd.core.target.core;

import dev.jompd.core.elf.ByteView;
import dev.jompd.core.elf.ElfHeader;
import dev.jompd.core.elf.ProgramHeader;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;

/**
 * Checks of a file that should be a core, made before opening it ({@link CoreFileAddressSpace}): whether it is an ELF
 * file at all (to pick a job's cores out of a directory), and whether it is cut short. They read the ELF and program
 * headers only, with the same parsers the core backend uses, so a directory of thousands of cores is checked quickly.
 */
public final class CoreFileChecks {
    /** Bound on the program headers read (a core has one per mapping; the kernel's limit is 65,535 mappings). */
    private static final int MAX_PROGRAM_HEADERS = 1 << 20;

    private CoreFileChecks() {}

    /** Whether {@code file} starts with ELF's magic number; false when it cannot be read. */
    public static boolean isElf(Path file) {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer magic = ByteBuffer.allocate(4);
            channel.read(magic, 0);
            return ElfHeader.hasElfMagic(ByteView.of(magic.array(), file.toString()));
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Why a core is cut short, or empty when every segment's bytes are in the file (an ELF64 core: its program
     * headers give each segment's file offset and size).
     */
    public static Optional<String> truncation(Path core) {
        try (FileChannel channel = FileChannel.open(core, StandardOpenOption.READ)) {
            long size = channel.size();
            ByteBuffer headerBytes = ByteBuffer.allocate(ElfHeader.SIZE);
            int read = channel.read(headerBytes, 0);
            ByteView header = ByteView.of(headerBytes.array(), core.toString());
            if (read < ElfHeader.SIZE || !ElfHeader.hasElfMagic(header)) {
                return Optional.of("core " + core + " is not an ELF file (" + size + " bytes)");
            }
            if (header.u8(4) != 2 || header.u8(5) != 1) {
                return Optional.of("core " + core + " is not a 64-bit little-endian ELF file");
            }
            ElfHeader elf = ElfHeader.parse(header);
            long phoff = elf.programHeaderOffset();
            int phentsize = elf.programHeaderEntrySize();
            int phnum = elf.programHeaderCount();
            if (phentsize < ProgramHeader.SIZE || phnum == 0 || phoff <= 0 || phoff + (long) phentsize * phnum > size
                    || (long) phentsize * phnum > MAX_PROGRAM_HEADERS * (long) ProgramHeader.SIZE) {
                return Optional.of("core " + core + " is cut short: its program headers (at " + phoff + ", " + phnum
                        + " of them) are not within its " + size + " bytes");
            }
            ByteBuffer headers = ByteBuffer.allocate(phentsize * phnum);
            channel.read(headers, phoff);
            ByteView table = ByteView.of(headers.array(), core.toString());
            long needed = 0;
            for (int i = 0; i < phnum; i++) {
                ProgramHeader segment = ProgramHeader.parse(table.slice((long) i * phentsize, ProgramHeader.SIZE,
                        "program header " + i), i);
                needed = Math.max(needed, segment.offset() + segment.fileSize());
            }
            if (needed > size) {
                return Optional.of("core " + core + " is cut short: " + size + " of the " + needed
                        + " bytes its segments need (a dump that stopped early: disk full, ulimit -c, a killed gcore)");
            }
            return Optional.empty();
        } catch (IOException e) {
            return Optional.of("core " + core + " cannot be read: " + e.getMessage());
        } catch (RuntimeException malformed) { // ElfFormatException: an unknown ELF version
            return Optional.of("core " + core + " cannot be read: " + malformed.getMessage());
        }
    }
}
