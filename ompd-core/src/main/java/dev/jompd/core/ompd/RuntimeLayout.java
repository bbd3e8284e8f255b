package dev.jompd.core.ompd;

import dev.jompd.core.memory.TargetMemory;
import dev.jompd.core.ompd.LayoutCatalogue.Field;
import dev.jompd.core.target.AddressSpace;
import dev.jompd.core.target.TargetException;
import dev.jompd.core.target.TargetSymbol;

import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;

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

    private RuntimeLayout(AddressSpace target, TargetMemory memory, String runtimeModule) {
        this.target = target;
        this.memory = memory;
        this.runtimeModule = runtimeModule;
    }

    /**
     * Finds the OMPD-enabled runtime in the target.
     *
     * @throws OmpdException {@code unavailable} when no OpenMP runtime is loaded; {@code incompatible}
     *                       when libomp is there but carries no breadcrumbs (stripped, or built
     *                       without OMPD support)
     */
    public static RuntimeLayout locate(AddressSpace target, TargetMemory memory) {
        Optional<TargetSymbol> marker = target.lookupSymbol(RUNTIME_MARKER_SYMBOL);
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
            throw new OmpdException(OmpdRc.UNAVAILABLE, target.name() + " has no OpenMP runtime loaded");
        }
        return new RuntimeLayout(target, memory, marker.get().module());
    }

    /** The file name of the module holding the runtime (libomp.so). */
    public String runtimeModule() {
        return runtimeModule;
    }

    /** A global of the runtime (symbol lookup within libomp first, then anywhere). */
    public Optional<TargetSymbol> symbol(String name) {
        return symbols.computeIfAbsent(name, n -> {
            Optional<TargetSymbol> inRuntime = target.lookupSymbol(n, runtimeModule);
            return inRuntime.isPresent() ? inRuntime : target.lookupSymbol(n);
        });
    }

    public long symbolAddress(String name) {
        return symbol(name).orElseThrow(() -> new OmpdException(OmpdRc.UNSUPPORTED,
                "the runtime has no global " + name)).address();
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
