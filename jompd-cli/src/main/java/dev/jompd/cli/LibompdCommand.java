package dev.jompd.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/**
 * {@code jompd libompd}: where this distribution's standard OMPD library is ({@code lib/libompd.so}, the C
 * shim over jompd's engine; docs/libompd.md) and how a debugger that loads OMPD through its C ABI (LLVM's gdb
 * plugin, TotalView) is made to load it instead of another.
 */
@Command(name = "libompd", mixinStandardHelpOptions = true,
        description = {"Where jompd's standard OMPD library (libompd.so) is, and how to make a debugger load it.",
                "A debugger loads the first libompd.so it finds for the names the program's libomp gives "
                        + "(ompd_dll_locations: \"libompd.so\", then the file beside libomp)."})
class LibompdCommand implements Callable<Integer> {
    @Option(names = "--path", description = "print the library's path only (for scripts)")
    boolean pathOnly;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Path library = RunCommand.distributionHome().resolve("lib").resolve("libompd.so").toAbsolutePath().normalize();
        if (!Files.isRegularFile(library)) {
            err.println("jompd libompd: this distribution has no " + library
                    + " (a build without the libompd module: mvn -pl libompd -am package)");
            return ExitCode.BAD_INPUT;
        }
        if (pathOnly) {
            out.println(library);
            return ExitCode.OK;
        }
        Path directory = library.getParent();
        out.println("jompd's OMPD library: " + library);
        out.println();
        out.println("Make the debugger load it, either way:");
        out.println("  1. first on the debugger's library path:");
        out.println("       LD_LIBRARY_PATH=" + directory + " gdb ./program");
        out.println("     then, with LLVM's gdb plugin (Debian: libomp-19-dev):");
        out.println("       (gdb) source /usr/lib/llvm-19/share/gdb/python/ompd/__init__.py");
        out.println("       (gdb) ompd init");
        out.println("  2. beside the libomp the program runs on, for every debugger with no configuration:");
        out.println("       ln -s " + library + " /path/to/the/libomp/directory/libompd.so");
        out.println();
        out.println("The program needs an OMPD-enabled libomp with its symbol table (jompd run builds one)");
        out.println("and OMP_DEBUG=enabled for thread states. The engine's log: ~/.cache/jompd/libompd-engine.log.");
        out.println("Details: docs/libompd.md.");
        return ExitCode.OK;
    }
}
