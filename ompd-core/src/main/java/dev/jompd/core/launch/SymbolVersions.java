package dev.jompd.core.launch;

import dev.jompd.core.elf.ByteView;
import dev.jompd.core.elf.ElfFile;
import dev.jompd.core.elf.ElfSymbol;
import dev.jompd.core.elf.SectionHeader;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * GNU symbol versioning, as far as the dynamic linker checks it before a program starts: the versions a
 * program needs from each library ({@code .gnu.version_r}, per symbol through {@code .gnu.version}) and the
 * versions a library defines ({@code .gnu.version_d}). A program built by gcc 12 against libgomp needs,
 * say, {@code omp_get_max_teams@OMP_5.1}; a library that defines no {@code OMP_5.1} version cannot stand
 * in for libgomp ({@code version `OMP_5.1' not found}). Every walk is bounded by its section's size.
 */
final class SymbolVersions {
    /** One versioned symbol a program needs from a library. */
    record Need(String library, String version, String symbol) {}

    private static final int MAX_ENTRIES = 1 << 16;

    private SymbolVersions() {}

    /** Every undefined dynamic symbol of {@code program} that needs a named version, with its library. */
    static List<Need> needs(ElfFile program) {
        Optional<SectionHeader> verneed = program.section(".gnu.version_r");
        Optional<SectionHeader> versym = program.section(".gnu.version");
        Optional<SectionHeader> dynstr = program.section(".dynstr");
        if (verneed.isEmpty() || versym.isEmpty() || dynstr.isEmpty()) {
            return List.of();
        }
        ByteView needs = program.sectionBytes(verneed.get());
        ByteView strings = program.sectionBytes(dynstr.get());
        // vna_other (the index .gnu.version uses) -> library and version name
        Map<Integer, String[]> byIndex = new HashMap<>();
        long at = 0;
        for (int entries = 0; entries < MAX_ENTRIES && needs.contains(at, 16); entries++) {
            int count = needs.u16(at + 2);
            String file = strings.cString(needs.u32(at + 4), 4096);
            long aux = at + needs.u32(at + 8);
            for (int i = 0; i < count && i < MAX_ENTRIES && needs.contains(aux, 16); i++) {
                int other = needs.u16(aux + 6);
                byIndex.put(other, new String[] {file, strings.cString(needs.u32(aux + 8), 4096)});
                long next = needs.u32(aux + 12);
                if (next == 0) {
                    break;
                }
                aux += next;
            }
            long next = needs.u32(at + 12);
            if (next == 0) {
                break;
            }
            at += next;
        }
        ByteView indices = program.sectionBytes(versym.get());
        var table = program.dynamicSymbolTable();
        List<Need> result = new ArrayList<>();
        for (int i = 1; i < table.size() && indices.contains(2L * i, 2); i++) { // .gnu.version parallels .dynsym
            ElfSymbol symbol = table.symbol(i);
            String[] need = byIndex.get(indices.u16(2L * i) & 0x7fff);
            if (need != null && !symbol.isDefined() && !symbol.name().isEmpty()) {
                result.add(new Need(need[0], need[1], symbol.name()));
            }
        }
        return result;
    }

    /** The version names {@code library} defines (its own soname's node included). */
    static Set<String> definitions(ElfFile library) {
        Set<String> versions = new TreeSet<>();
        Optional<SectionHeader> verdef = library.section(".gnu.version_d");
        Optional<SectionHeader> dynstr = library.section(".dynstr");
        if (verdef.isEmpty() || dynstr.isEmpty()) {
            return versions;
        }
        ByteView definitions = library.sectionBytes(verdef.get());
        ByteView strings = library.sectionBytes(dynstr.get());
        long at = 0;
        for (int entries = 0; entries < MAX_ENTRIES && definitions.contains(at, 20); entries++) {
            long aux = at + definitions.u32(at + 12);
            if (definitions.contains(aux, 8)) {
                versions.add(strings.cString(definitions.u32(aux), 4096));
            }
            long next = definitions.u32(at + 16);
            if (next == 0) {
                break;
            }
            at += next;
        }
        return versions;
    }
}
