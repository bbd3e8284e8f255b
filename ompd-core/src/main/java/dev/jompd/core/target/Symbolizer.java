package dev.jompd.core.target;

import dev.jompd.core.elf.ElfFile;
import dev.jompd.core.elf.ElfSymbol;
import dev.jompd.core.elf.ElfSymbolTable;

import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Comparator;
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
     * and the address as the module's file sees it (what addr2line wants).
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

    public Symbolizer(AddressSpace target) {
        this.modules = target.modules();
    }

    /** The function containing {@code address}, when some module's symbol table has it. */
    public Optional<Location> locate(long address) {
        if (address == 0) {
            return Optional.empty(); // NULL: not worth opening every module's symbol table
        }
        for (LoadedModule module : modules) {
            List<Function> table = functions.computeIfAbsent(module, Symbolizer::load);
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

    private static List<Function> load(LoadedModule module) {
        List<Function> table = new ArrayList<>();
        if (!Files.isRegularFile(module.file())) {
            return table;
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
            return table; // a module we cannot read simply names nothing
        }
        // Aliases at one address: the greatest name wins, as in gdb's minimal symbols (clone3, not __clone3).
        table.sort(Comparator.comparingLong(Function::start).thenComparing(Function::name));
        return table;
    }

    @Override
    public void close() {
        functions.clear();
    }
}
