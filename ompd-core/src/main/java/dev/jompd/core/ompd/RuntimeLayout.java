package dev.jompd.core.ompd;

import dev.jompd.core.elf.ElfFile;
import dev.jompd.core.memory.TargetMemory;
import dev.jompd.core.ompd.LayoutCatalogue.Field;
import dev.jompd.core.ompd.profile.RuntimeProfile;
import dev.jompd.core.target.AddressSpace;
import dev.jompd.core.target.LoadedModule;
import dev.jompd.core.target.TargetException;
import dev.jompd.core.target.TargetSymbol;
import dev.jompd.core.target.debug.DebugFileOrigin;
import dev.jompd.core.target.debug.DebugFileSearch;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * libomp's layout as the runtime itself describes it: offsets, sizes and bit masks read from its OMPD
 * breadcrumb globals in the target's memory (filled by {@code ompd_init()} at start-up), cached per
 * address space. Only names in {@link LayoutCatalogue} may be asked for.
 */
public final class RuntimeLayout {
    /** The global whose presence identifies an OMPD-enabled libomp (and the module that holds it). */
    static final String RUNTIME_MARKER_SYMBOL = "ompd_dll_locations";

    private final AddressSpace target;
    private final TargetMemory memory;
    private final String runtimeModule;
    private final Map<String, Long> breadcrumbs = new ConcurrentHashMap<>();
    private final Map<String, Long> typeSizes = new ConcurrentHashMap<>();
    private final Map<String, Long> globalSizes = new ConcurrentHashMap<>();
    private final Map<String, Long> bitMasks = new ConcurrentHashMap<>();
    /** offset and size by type, then field: the hot path, without building symbol names. */
    private final Map<String, Map<String, long[]>> fields = new ConcurrentHashMap<>();
    private final Map<String, Optional<TargetSymbol>> symbols = new ConcurrentHashMap<>();
    private final Map<String, Optional<TargetSymbol>> runtimeSymbols = new ConcurrentHashMap<>();
    /** Set when the runtime has no symbols and is read through a runtime profile. */
    private final Optional<ProfiledRuntime> profiled;
    private final RuntimeReading reading;

    private RuntimeLayout(AddressSpace target, TargetMemory memory, String runtimeModule,
                          Optional<ProfiledRuntime> profiled, RuntimeReading reading) {
        this.target = target;
        this.memory = memory;
        this.runtimeModule = runtimeModule;
        this.profiled = profiled;
        this.reading = reading;
    }

    /** Globals without which nothing can be shown: a profile that cannot validate them does not fit the runtime. */
    private static final List<String> PROFILE_CORE_GLOBALS = List.of("ompd_state", "__kmp_threads");

    /**
     * Finds the OMPD-enabled runtime in the target: through its symbols (its own, or a debug file's), or,
     * when libomp is stripped and no debug file is found, through the runtime profile that fits its memory
     * (the version its path names is a hint only: {@link ProfiledRuntime#choose}).
     *
     * @throws OmpdException {@code unavailable} when no OpenMP runtime is loaded; {@code incompatible}
     *                       when libomp carries no breadcrumbs (built without OMPD support), or is
     *                       stripped and no runtime profile fits it
     */
    public static RuntimeLayout locate(AddressSpace target, TargetMemory memory) {
        // the shipped profiles are parsed only for a stripped runtime (a cold start's ~20 ms otherwise)
        return locate(target, memory, RuntimeProfile::shipped);
    }

    /** {@link #locate(AddressSpace, TargetMemory)} with these runtime profiles for a stripped runtime. */
    public static RuntimeLayout locate(AddressSpace target, TargetMemory memory, List<RuntimeProfile> profiles) {
        return locate(target, memory, () -> profiles);
    }

    private static RuntimeLayout locate(AddressSpace target, TargetMemory memory,
                                        Supplier<List<RuntimeProfile>> profiles) {
        // The module named like libomp first: a stripped one then goes to its profile without opening
        // every other library's symbol tables in search of the marker.
        Optional<LoadedModule> libompModule = ProfiledRuntime.libompModule(target);
        Optional<TargetSymbol> marker = libompModule
                .flatMap(m -> target.lookupSymbol(RUNTIME_MARKER_SYMBOL, m.path().getFileName().toString()))
                .or(() -> libompModule.isPresent() ? Optional.empty() : target.lookupSymbol(RUNTIME_MARKER_SYMBOL));
        Optional<LoadedModule> libomp = marker.isEmpty() ? libompModule : Optional.empty();
        if (libomp.isPresent()) {
            ProfiledRuntime.Choice choice = ProfiledRuntime.choose(target, memory, libomp.get(), profiles.get(),
                    PROFILE_CORE_GLOBALS, candidate -> candidate.attach(new RuntimeLayout(target, memory,
                            candidate.moduleName(), Optional.of(candidate), RuntimeReading.profile(candidate.profile().version()))));
            ProfiledRuntime runtime = choice.runtime();
            RuntimeLayout layout = new RuntimeLayout(target, memory, runtime.moduleName(), Optional.of(runtime),
                    RuntimeReading.profile(runtime.profile().version(), choice.note()));
            runtime.attach(layout);
            return layout;
        }
        if (marker.isEmpty()) {
            LibgompRuntimeException.libgompOf(target).ifPresent(libgomp -> {
                throw new LibgompRuntimeException(libgomp);
            });
            boolean openmpLoaded = target.lookupSymbol("__kmp_threads").isPresent()
                    || target.lookupSymbol("omp_get_thread_num").isPresent()
                    || target.modules().stream().anyMatch(m -> m.path().getFileName().toString().matches("lib(i?omp|gomp).*"));
            if (openmpLoaded) {
                throw new OmpdException(OmpdRc.INCOMPATIBLE, "the OpenMP runtime in " + target.name()
                        + " has no OMPD breadcrumbs (symbol " + RUNTIME_MARKER_SYMBOL + " not found): it is "
                        + "stripped (as Debian's libomp5 is) or was built without LIBOMP_OMPD_SUPPORT; use a "
                        + "libomp built with -DLIBOMP_OMPD_SUPPORT=ON that keeps its symbol table "
                        + "(scripts/build-runtime.sh builds one)");
            }
            throw new OmpdException(OmpdRc.UNAVAILABLE, target.described() + " has no OpenMP runtime loaded (no libomp "
                    + "among its modules: a program without OpenMP, or one that has not loaded it yet)");
        }
        return new RuntimeLayout(target, memory, marker.get().module(), Optional.empty(),
                readingOf(target, marker.get().module()));
    }

    /** Symbols of the runtime's own file, or of a separate debug file (found on disk or from debuginfod). */
    private static RuntimeReading readingOf(AddressSpace target, String moduleName) {
        Optional<LoadedModule> module = target.modules().stream()
                .filter(m -> m.path().getFileName() != null && m.path().getFileName().toString().equals(moduleName)).findFirst();
        Optional<DebugFileOrigin> origin = module.flatMap(LoadedModule::buildId).flatMap(DebugFileSearch::originOf);
        if (origin.isEmpty()) {
            return RuntimeReading.symbols();
        }
        try (ElfFile file = ElfFile.open(target.moduleFile(module.get()).orElse(module.get().path()))) {
            if (file.symbolTable().lookup(RUNTIME_MARKER_SYMBOL).isPresent()) {
                return RuntimeReading.symbols();
            }
        } catch (IOException | TargetException unreadable) {
            // the file is not where the target had it: the debug file is what was read
        }
        return origin.get().kind() == DebugFileOrigin.Kind.DEBUGINFOD
                ? new RuntimeReading(RuntimeReading.Source.DEBUGINFOD, origin.get().server().map(Object::toString))
                : new RuntimeReading(RuntimeReading.Source.DEBUG_FILE, Optional.of(origin.get().file().toString()));
    }

    /** How the runtime's layout was read (symbols, a debug file, or a runtime profile). */
    public RuntimeReading reading() {
        return reading;
    }

    /** How a runtime profile placed a global ({@code __kmp_thread_pool-0x48}), once validated. */
    public Optional<String> profilePlacement(String name) {
        return profiled.flatMap(runtime -> runtime.placement(name)).map(Object::toString);
    }

    /** Why a global is absent, when a runtime profile could not place or validate it. */
    public Optional<String> whyAbsent(String name) {
        return profiled.flatMap(runtime -> runtime.whyUnavailable(name));
    }

    /** The file name of the module holding the runtime (libomp.so). */
    public String runtimeModule() {
        return runtimeModule;
    }

    /** A global of the runtime (symbol lookup within libomp first, then anywhere). */
    public Optional<TargetSymbol> symbol(String name) {
        // Not computeIfAbsent: placing a profiled global reads breadcrumbs, which are symbols too.
        Optional<TargetSymbol> known = symbols.get(name);
        if (known != null) {
            return known;
        }
        Optional<TargetSymbol> found = resolve(name);
        symbols.put(name, found);
        return found;
    }

    /**
     * A symbol of the runtime itself (a function or global of libomp's own, such as a static GOMP wrapper):
     * within libomp (its file's or debug file's symbols, or its profile's placement), never another module's.
     * Unlike {@link #symbol}, a name libomp lacks does not send the look-up through every other module's symbol
     * tables (a job's rank maps some sixty files).
     */
    public Optional<TargetSymbol> runtimeSymbol(String name) {
        Optional<TargetSymbol> known = runtimeSymbols.get(name);
        if (known != null) {
            return known;
        }
        Optional<TargetSymbol> inRuntime = target.lookupSymbol(name, runtimeModule);
        Optional<TargetSymbol> found = inRuntime.isPresent() || profiled.isEmpty() ? inRuntime : profiled.get().symbol(name);
        runtimeSymbols.put(name, found);
        return found;
    }

    private Optional<TargetSymbol> resolve(String name) {
        Optional<TargetSymbol> inRuntime = target.lookupSymbol(name, runtimeModule);
        if (inRuntime.isPresent()) {
            return inRuntime;
        }
        if (profiled.isPresent()) {
            return profiled.get().symbol(name);
        }
        return target.lookupSymbol(name);
    }

    public long symbolAddress(String name) {
        return symbol(name).orElseThrow(() -> whyAbsent(name)
                .map(why -> new OmpdException(OmpdRc.UNAVAILABLE, name + " unavailable: " + why))
                .orElseGet(() -> new OmpdException(OmpdRc.UNSUPPORTED, "the runtime has no global " + name))).address();
    }

    /** offsetof(type, field). */
    public long offset(String type, String field) {
        return member(type, field)[0];
    }

    /** sizeof(((type *)0)->field). */
    public long fieldSize(String type, String field) {
        return member(type, field)[1];
    }

    private long[] member(String type, String field) {
        long[] known = fields.computeIfAbsent(type, t -> new ConcurrentHashMap<>()).get(field);
        if (known != null) {
            return known;
        }
        require(LayoutCatalogue.FIELD_SET.contains(new Field(type, field)), type + "." + field);
        long[] resolved = {breadcrumb("ompd_access__" + type + "__" + field),
                breadcrumb("ompd_sizeof__" + type + "__" + field)};
        fields.get(type).put(field, resolved);
        return resolved;
    }

    /** sizeof(type). */
    public long typeSize(String type) {
        Long known = typeSizes.get(type);
        if (known != null) {
            return known;
        }
        require(LayoutCatalogue.TYPE_SIZE_SET.contains(type), type);
        long size = breadcrumb("ompd_sizeof__" + type);
        typeSizes.put(type, size);
        return size;
    }

    /** sizeof(global). */
    public long globalSize(String global) {
        Long known = globalSizes.get(global);
        if (known != null) {
            return known;
        }
        require(LayoutCatalogue.GLOBAL_SIZE_SET.contains(global), global);
        long size = breadcrumb("ompd_sizeof__" + global); // "__kmp_x" gives ompd_sizeof____kmp_x
        globalSizes.put(global, size);
        return size;
    }

    /** The mask of one flag in {@code kmp_tasking_flags_t}. */
    public long bitMask(String flag) {
        Long known = bitMasks.get(flag);
        if (known != null) {
            return known;
        }
        require(LayoutCatalogue.BITFIELD_SET.contains(new Field("kmp_tasking_flags_t", flag)), flag);
        long mask = breadcrumb("ompd_bitfield__kmp_tasking_flags_t__" + flag);
        bitMasks.put(flag, mask);
        return mask;
    }

    /** Whether the runtime describes this field (older runtimes lack some): ask, don't version-check. */
    public boolean hasField(String type, String field) {
        try {
            offset(type, field);
            return true;
        } catch (OmpdException missing) {
            return false;
        }
    }

    /** The size of a global that has no breadcrumb, from its symbol table entry; empty when unknown. */
    public OptionalLong symbolSize(String name) {
        return symbol(name).filter(s -> s.size() > 0).map(s -> OptionalLong.of(s.size())).orElse(OptionalLong.empty());
    }

    private long breadcrumb(String symbolName) {
        Long cached = breadcrumbs.get(symbolName);
        if (cached != null) {
            return cached;
        }
        TargetSymbol symbol = symbol(symbolName).orElseThrow(() -> new OmpdException(OmpdRc.INCOMPATIBLE,
                "the runtime does not describe " + symbolName.replaceFirst("^ompd_[a-z]+__", "")
                        + " (no breadcrumb " + symbolName + "): older or different libomp"));
        long value;
        try {
            value = memory.readUnsigned(symbol.address(), 8);
        } catch (TargetException e) {
            throw new OmpdException(OmpdRc.DEVICE_READ_ERROR, "cannot read breadcrumb " + symbolName + ": "
                    + e.getMessage(), OptionalLong.of(symbol.address()), e);
        }
        if (value < 0 || value > (1L << 24)) {
            throw new OmpdException(OmpdRc.ERROR, "breadcrumb " + symbolName + " holds implausible value " + value
                    + " (memory corrupt, or the runtime not initialised)");
        }
        breadcrumbs.put(symbolName, value);
        return value;
    }

    private static void require(boolean catalogued, String name) {
        if (!catalogued) {
            throw new IllegalArgumentException(name + " is not in LayoutCatalogue: add it there first");
        }
    }
}
