package dev.jompd.gdb;

import dev.jompd.core.elf.ElfFile;
import dev.jompd.core.elf.ProgramHeader;
import dev.jompd.core.target.MemoryReadException;
import dev.jompd.core.target.TargetException;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A local process that gdb holds stopped, read through {@code /proc/PID/mem} (the engine never
 * ptraces it: gdb is its tracer): memory from /proc/PID/mem, modules from /proc/PID/maps, symbols from
 * the mapped files, threads and pthread ids from gdb.
 */
final class ProcPidAddressSpace extends InferiorAddressSpace {
    private static final long PAGE_SIZE = 4096;

    private final long pid;
    private final FileChannel mem;

    private ProcPidAddressSpace(long pid, FileChannel mem, GdbThreads threads) {
        super("pid:" + pid, threads);
        this.pid = pid;
        this.mem = mem;
    }

    /**
     * Opens /proc/PID/mem and checks that it reads.
     *
     * @throws TargetException when the process is gone or its memory cannot be read (permissions:
     *                         the caller then reads through gdb instead)
     */
    static ProcPidAddressSpace open(long pid, GdbThreads threads) {
        FileChannel channel;
        try {
            channel = FileChannel.open(Path.of("/proc", Long.toString(pid), "mem"), StandardOpenOption.READ);
        } catch (IOException | SecurityException e) {
            throw new TargetException("pid:" + pid + ": cannot open /proc/" + pid + "/mem: " + e.getMessage(), e);
        }
        ProcPidAddressSpace space = new ProcPidAddressSpace(pid, channel, threads);
        try {
            // The first mapping must read: otherwise /proc/PID/mem is of no use (EPERM, EIO).
            List<Mapping> mappings = space.mappings();
            if (!mappings.isEmpty()) {
                space.read(mappings.getFirst().start(), new byte[8], 0, 8);
            }
        } catch (TargetException e) {
            space.close();
            throw e;
        }
        return space;
    }

    @Override
    public void read(long address, byte[] buffer, int offset, int length) throws MemoryReadException {
        Objects.checkFromIndexSize(offset, length, buffer.length);
        ByteBuffer target = ByteBuffer.wrap(buffer, offset, length);
        long position = address;
        try {
            while (target.hasRemaining()) {
                if (position < 0) {
                    throw new MemoryReadException(name(), address, length, "beyond user space");
                }
                int read = mem.read(target, position);
                if (read <= 0) {
                    throw new MemoryReadException(name(), address, length, "0x%x is not mapped".formatted(position));
                }
                position += read;
            }
        } catch (IOException e) {
            throw new MemoryReadException(name(), address, length, "/proc/" + pid + "/mem: " + e.getMessage()
                    + " at 0x" + Long.toHexString(position));
        }
    }

    /** One line of /proc/PID/maps that maps a file. */
    record Mapping(long start, long end, long fileOffset, String path) {}

    List<Mapping> mappings() {
        List<String> lines;
        try {
            lines = Files.readAllLines(Path.of("/proc", Long.toString(pid), "maps"));
        } catch (IOException e) {
            throw new TargetException(name() + ": cannot read /proc/" + pid + "/maps: " + e.getMessage(), e);
        }
        return parseMaps(lines);
    }

    /** Parses maps lines: {@code start-end perms offset dev inode path}; keeps only file mappings. */
    static List<Mapping> parseMaps(List<String> lines) {
        List<Mapping> mappings = new ArrayList<>();
        for (String line : lines) {
            String[] fields = line.trim().split("\\s+", 6);
            if (fields.length < 6 || !fields[5].startsWith("/")) {
                continue;
            }
            int dash = fields[0].indexOf('-');
            if (dash < 0) {
                continue;
            }
            try {
                mappings.add(new Mapping(Long.parseUnsignedLong(fields[0].substring(0, dash), 16),
                        Long.parseUnsignedLong(fields[0].substring(dash + 1), 16),
                        Long.parseUnsignedLong(fields[2], 16), fields[5]));
            } catch (NumberFormatException malformed) {
                // a line we do not understand maps nothing we need
            }
        }
        return mappings;
    }

    @Override
    ModuleSymbols discoverModules() {
        Optional<Path> executable;
        try {
            executable = Optional.of(Files.readSymbolicLink(Path.of("/proc", Long.toString(pid), "exe")));
        } catch (IOException e) {
            executable = Optional.empty();
        }
        // Where each file's offset 0 is mapped: its ELF header, the base its load bias is taken from.
        Map<String, Long> bases = new LinkedHashMap<>();
        for (Mapping mapping : mappings()) {
            if (mapping.fileOffset() == 0 && !mapping.path().endsWith(" (deleted)")) {
                bases.putIfAbsent(mapping.path(), mapping.start());
            }
        }
        List<ModuleSymbols.Module> modules = new ArrayList<>();
        String executablePath = executable.map(Path::toString).orElse("");
        if (bases.containsKey(executablePath)) {
            modules.add(new ModuleSymbols.Module(Path.of(executablePath), loadBias(Path.of(executablePath), bases.get(executablePath))));
        }
        bases.forEach((path, base) -> {
            if (!path.equals(executablePath)) {
                Optional<Long> bias = elfLoadBias(Path.of(path), base);
                bias.ifPresent(b -> modules.add(new ModuleSymbols.Module(Path.of(path), b)));
            }
        });
        return new ModuleSymbols(modules);
    }

    private static long loadBias(Path file, long base) {
        return elfLoadBias(file, base).orElse(base);
    }

    /** base − the page of the first PT_LOAD (the segment that maps file offset 0); empty if not ELF. */
    static Optional<Long> elfLoadBias(Path file, long base) {
        try (ElfFile elf = ElfFile.open(file)) {
            return elf.programHeaders(ProgramHeader.PT_LOAD).stream().findFirst()
                    .map(load -> base - (load.virtualAddress() & -PAGE_SIZE));
        } catch (IOException | TargetException notElf) {
            return Optional.empty(); // data files, fonts, locale archives: not modules
        }
    }

    @Override
    public synchronized void close() {
        super.close();
        try {
            mem.close();
        } catch (IOException ignored) {
            // nothing to release beyond the descriptor
        }
    }
}
