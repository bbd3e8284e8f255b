package dev.jompd.testkit;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/** Whether host offload can be built and run here (Debian's LLVM 19: libomp-19-dev, clang-tools-19). */
public final class Offload {
    /** Where Debian's libomp, libomptarget and its host plugin live. */
    public static final Path RUNTIME_DIRECTORY = Path.of("/usr/lib/llvm-19/lib");

    private Offload() {}

    /** Why offload fixtures cannot run here, or empty when they can. */
    public static Optional<String> unavailableReason() {
        if (!Files.isRegularFile(RUNTIME_DIRECTORY.resolve("libomptarget.so"))) {
            return Optional.of("no " + RUNTIME_DIRECTORY.resolve("libomptarget.so")
                    + " (install libomp-19-dev: scripts/setup-system.sh)");
        }
        if (!Commands.available("clang-offload-packager-19") && !Commands.available("clang-offload-packager")) {
            return Optional.of("no clang-offload-packager (install clang-tools-19: scripts/setup-system.sh)");
        }
        return Optional.empty();
    }
}
