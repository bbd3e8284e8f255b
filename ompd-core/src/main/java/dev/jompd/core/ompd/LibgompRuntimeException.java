package dev.jompd.core.ompd;

import dev.jompd.core.target.AddressSpace;
import dev.jompd.core.target.LoadedModule;

import java.nio.file.Path;
import java.util.Optional;

/**
 * The program runs on GCC's OpenMP runtime, libgomp, which has no OpenMP debugging interface at all (no
 * OMPD, no breadcrumbs, no thread table to read). Such a program runs unchanged on LLVM's libomp, which
 * implements the GOMP ABI: {@code jompd run} starts it so.
 */
public final class LibgompRuntimeException extends OmpdException {
    private final Path library;

    public LibgompRuntimeException(Path library) {
        super(OmpdRc.INCOMPATIBLE, "this program runs on GCC's libgomp (" + library + "), which has no OpenMP "
                + "debugging interface; run it on jompd's libomp: `jompd run -- PROGRAM ARGS`");
        this.library = library;
    }

    /** The libgomp the program loaded. */
    public Path library() {
        return library;
    }

    /**
     * GCC's libgomp among the target's modules: a {@code libgomp.so*} that is not libomp under that name
     * (libomp defines {@code __kmpc_fork_call}; libgomp never does).
     */
    public static Optional<Path> libgompOf(AddressSpace target) {
        for (LoadedModule module : target.modules()) {
            String name = module.path().getFileName().toString();
            if (name.startsWith("libgomp.so") && target.lookupSymbol("__kmpc_fork_call", name).isEmpty()
                    && target.lookupSymbol("ompd_dll_locations", name).isEmpty()) {
                return Optional.of(module.path());
            }
        }
        return Optional.empty();
    }
}
