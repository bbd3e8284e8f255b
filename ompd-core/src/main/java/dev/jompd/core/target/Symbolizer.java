package dev.jompd.core.target;

import dev.jompd.core.elf.ElfFile;
import dev.jompd.core.elf.ElfSymbol;
import dev.jompd.core.elf.ElfSymbolTable;

import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Maps code addresses back to function names ({@code main.omp_outlined+0x12}) through the symbol tables
 * of the target's modules on disk. Works for every backend: it needs only {@link AddressSpace#modules()}.
 */
public final class Symbolizer implements AutoCloseable {
    /**
     * A function containing an address: its module (file name and path), its name, the offset into it,
     * and the address as the module's file sees it (its debug information's address).
     */
    public record Location(String module, java.nio.file.Path modulePath, String function, long offset,
                           long moduleOffset) {
        @Override
        public String toString() {
            return offset == 0 ? function : function + "+0x" + Long.toHexString(offset);
        }
    }

    private record Function(long start, long size, String name) {}

    private final List<LoadedModule> modules;
    private final Map<LoadedModule, List<Function>> functions = new HashMap<>();
    private final Optional<ModuleFileCache> shared;

    public Symbolizer(AddressSpace target) {
        this.modules = target.modules();
        this.shared = Optional.empty();
    }

    /**
     * A symbolizer whose function tables come from {@code shared}, which the caller owns: targets that map the same
     * files (the ranks of one job) read each file's symbol table once.
     */
    public Symbolizer(AddressSpace target, ModuleFileCache shared) {
        this.modules = target.modules();
        this.shared = Optional.of(shared);
    }

    /** The target's modules this symbolizer reads. */
    public List<LoadedModule> modules() {
        return modules;
    }

    /** The function containing {@code address}, when some module's symbol table has it. */
    public Optional<Location> locate(long address) {
        if (address == 0) {
            return Optional.empty(); // NULL: not worth opening every module's symbol table
        }
        for (LoadedModule module : modules) {
            List<Function> table = functions.computeIfAbsent(module, this::table);
            long fileAddress = address - module.loadBias();
            Function best = null;
            int low = 0;
            int high = table.size() - 1;
            while (low <= high) {
                int mid = (low + high) >>> 1;
                if (Long.compareUnsigned(table.get(mid).start(), fileAddress) <= 0) {
                    best = table.get(mid);
                    low = mid + 1;
                } else {
                    high = mid - 1;
                }
            }
            if (best != null && Long.compareUnsigned(fileAddress - best.start(), Math.max(best.size(), 1)) < 0) {
                return Optional.of(new Location(module.path().getFileName().toString(), module.path(), best.name(),
                        fileAddress - best.start(), fileAddress));
            }
        }
        return Optional.empty();
    }

    /**
     * Whether {@code address} is the first instruction of a function named by a symbol table (what a
     * code pointer read from memory must be before jompd names it).
     */
    public boolean isFunctionStart(long address) {
        return locate(address).filter(location -> location.offset() == 0).isPresent();
    }

    /**
     * The machine code of the function that starts at {@code address}, at most {@code maxBytes} of it, as
     * its module's file holds it (a live process may carry a debugger's breakpoints in its own copy).
     * Empty when no symbol table names a function there or the file cannot be read.
     */
    public Optional<byte[]> functionCode(long address, int maxBytes) {
        Optional<Location> location = locate(address).filter(l -> l.offset() == 0);
        if (location.isEmpty()) {
            return Optional.empty();
        }
        LoadedModule module = modules.stream().filter(m -> m.path().equals(location.get().modulePath()))
                .findFirst().orElseThrow();
        long fileAddress = location.get().moduleOffset();
        long size = functions.get(module).stream().filter(f -> f.start() == fileAddress).mapToLong(Function::size)
                .findFirst().orElse(0);
        int length = (int) Math.min(Math.max(size, 1), maxBytes);
        try (ElfFile elf = ElfFile.open(module.path())) {
            for (var segment : elf.programHeaders(dev.jompd.core.elf.ProgramHeader.PT_LOAD)) {
                long into = fileAddress - segment.virtualAddress();
                if (into >= 0 && into + length <= segment.fileSize()) {
                    var bytes = elf.segmentBytes(segment);
                    byte[] code = new byte[length];
                    for (int i = 0; i < length; i++) {
                        code[i] = (byte) bytes.u8(into + i);
                    }
                    return Optional.of(code);
                }
            }
        } catch (IOException | TargetException unreadable) {
            return Optional.empty(); // a file we cannot read shows no code: the caller names what it has
        }
        return Optional.empty();
    }

    private List<Function> table(LoadedModule module) {
        return shared.isPresent() ? shared.get().derived(module.file(), "functions", () -> load(module)) : load(module);
    }

    private static List<Function> load(LoadedModule module) {
        List<Function> table = new ArrayList<>();
        if (!Files.isRegularFile(module.file())) {
            return List.of();
        }
        try (ElfFile elf = ElfFile.open(module.file())) {
            for (ElfSymbolTable symbols : List.of(elf.symbolTable(), elf.dynamicSymbolTable())) {
                for (ElfSymbol symbol : symbols.all()) {
                    if (symbol.type() == ElfSymbol.STT_FUNC && symbol.value() != 0 && !symbol.name().isEmpty()) {
                        table.add(new Function(symbol.value(), symbol.size(), symbol.name()));
                    }
                }
                if (!table.isEmpty()) {
                    break; // .symtab has everything .dynsym has
                }
            }
        } catch (IOException | TargetException unreadable) {
            return List.of(); // a module we cannot read simply names nothing
        }
        // Aliases at one address: the greatest name wins, as in gdb's minimal symbols (clone3, not __clone3).
        // (a lambda of ours, not Comparator.comparingLong(…).thenComparing(…): the ahead-of-time cache holds
        // ours, not those the JDK's default methods make)
        table.sort((a, b) -> {
            int byStart = Long.compare(a.start(), b.start());
            return byStart != 0 ? byStart : a.name().compareTo(b.name());
        });
        return List.copyOf(table);
    }

    @Override
    public void close() {
        functions.clear();
    }
}
