package dev.jompd.core.target;

import java.util.List;
import java.util.Optional;

/**
 * A backend that opens its modules' files itself (the core-file and live backends): a symbol is the first
 * definition in the dynamic linker's load order ({@link LinkMap}), and the target is x86-64 Linux, the only
 * one jompd reads. What such a backend adds is how it finds its modules and reads its memory.
 */
public interface FileBackedAddressSpace extends AddressSpace {

    /** The modules, the executable first, then in the order the dynamic linker loaded them. */
    List<? extends LinkMap.Module> modulesInLoadOrder();

    @Override
    default TargetArchitecture architecture() {
        return TargetArchitecture.X86_64_LINUX;
    }

    @Override
    default Optional<TargetSymbol> lookupSymbol(String symbolName) {
        return LinkMap.findSymbol(modulesInLoadOrder(), symbolName);
    }

    @Override
    default Optional<TargetSymbol> lookupSymbol(String symbolName, String moduleNameFragment) {
        return LinkMap.findSymbol(modulesInLoadOrder(), symbolName, moduleNameFragment);
    }

    @Override
    default List<LoadedModule> modules() {
        return modulesInLoadOrder().stream().map(LinkMap.Module::toLoadedModule).toList();
    }
}
