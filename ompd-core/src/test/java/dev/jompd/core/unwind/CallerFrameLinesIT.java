package dev.jompd.core.unwind;

import dev.jompd.core.target.LoadedModule;
import dev.jompd.testkit.Commands;
import dev.jompd.testkit.Prerequisite;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The frames of a caller at every return address of a module (the address after each call instruction, as
 * objdump lists them) against gdb's: jompd's scope frames at the return address less one (the function and
 * the calls inlined into it there, each with its file and line) and gdb's for the same address, from gdb's
 * own reading of the debug information through its Python API: {@code gdb.find_pc_line(pc - 1)} for the
 * innermost scope (gdb's {@code find_frame_sal} looks a caller frame's pc less one up in its line table) and,
 * for each scope it is inlined into, the inlined function symbol's own line and file (which gdb takes from
 * {@code DW_AT_call_line}/{@code DW_AT_call_file}; {@code find_frame_sal} gives a frame with inlined callees
 * that call site). What a core's stacks show wherever a thread waits in a call, without having to catch one
 * there: glibc (its separate debug file, libc6-dbg), built -O2 with much inlining.
 */
class CallerFrameLinesIT {
    private static final DebugInfoCache CACHE = new DebugInfoCache();

    /** Each return address, then its scopes innermost first as name@file:line, " | " between them. */
    private static final String SCRIPT = """
            import gdb

            def frame_name(name):
                # gdb's find_frame_funname names a C++ frame without its parameter list (cp_remove_params)
                stripped = name
                for qualifier in (" const", " volatile", " &&", " &"):
                    if stripped.endswith(qualifier):
                        stripped = stripped[:-len(qualifier)]
                if not stripped.endswith(")"):
                    return name
                depth = 0
                for i in range(len(stripped) - 1, -1, -1):
                    depth += {")": 1, "(": -1}.get(stripped[i], 0)
                    if depth == 0:
                        return stripped[:i] if i > 0 else name
                return name

            out = open(OUT_PATH, "w")
            for text in open(IN_PATH):
                pc = int(text, 16) - 1
                try:
                    block = gdb.block_for_pc(pc)
                except RuntimeError:
                    block = None
                sal = gdb.find_pc_line(pc)
                file = sal.symtab.filename if sal.symtab is not None else ""
                line = sal.line if sal.symtab is not None else 0
                scopes = []
                while block is not None and not block.is_static:
                    if block.function is not None:
                        scopes.append("%s@%s:%d" % (frame_name(block.function.print_name), file.rsplit("/", 1)[-1], line))
                        symtab = block.function.symtab
                        file = symtab.filename if symtab is not None and block.function.line != 0 else ""
                        line = block.function.line
                    block = block.superblock
                out.write("%x\\t%s\\n" % (pc + 1, " | ".join(scopes)))
            out.close()
            """;

    @AfterAll
    static void closeCache() {
        CACHE.close();
    }

    static Stream<Arguments> modules() {
        return Stream.of(Arguments.of("glibc", libc()));
    }

    /** The libc this JVM runs on (its own mapping: the machine's glibc). */
    private static Path libc() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/maps"))) {
                int slash = line.indexOf('/');
                if (slash > 0 && line.substring(slash).matches(".*/libc\\.so\\.6")) {
                    return Path.of(line.substring(slash)).toRealPath();
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        throw new IllegalStateException("no libc.so.6 in /proc/self/maps");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("modules")
    void everyCallersFramesMatchGdb(String label, Path module) throws IOException {
        Prerequisite.require(Commands.available("objdump") && Commands.available("gdb"), "objdump and gdb are needed");
        LoadedModule loaded = new LoadedModule(module, 0, Optional.empty());
        Prerequisite.require(CACHE.of(loaded).hasDebugFile(),
                () -> module + " has no separate debug file: install libc6-dbg (scripts/setup-system.sh does)");
        List<Long> returnAddresses = returnAddresses(module);
        assertThat(returnAddresses).as("call instructions in " + module).hasSizeGreaterThan(1000);

        Map<Long, String> gdb = gdbScopes(module, returnAddresses);
        ModuleMap modules = new ModuleMap(List.of(loaded), CACHE);
        SourceLocator locator = new SourceLocator(modules);
        List<String> differences = new ArrayList<>();
        for (long returnAddress : returnAddresses) {
            String ours = modules.at(returnAddress - 1).map(mapping -> scopesText(locator.scopeFrames(mapping, returnAddress - 1)))
                    .orElse("");
            String theirs = gdb.getOrDefault(returnAddress, "(gdb gave nothing)");
            if (!ours.equals(theirs)) {
                differences.add("0x%x: gdb %s%n         jompd %s".formatted(returnAddress, theirs, ours));
            }
        }
        System.out.printf("%s: %d return addresses compared, %d differ%n", label, returnAddresses.size(), differences.size());
        assertThat(differences).as("%d of %d return addresses", differences.size(), returnAddresses.size()).isEmpty();
    }

    private static String scopesText(List<SourceLocator.ScopeFrame> scopes) {
        List<String> texts = new ArrayList<>();
        for (SourceLocator.ScopeFrame scope : scopes) {
            if (scope.function().isEmpty()) {
                continue; // no debug information there: gdb lists no block either
            }
            texts.add("%s@%s:%d".formatted(scope.function().get(), scope.source().map(SourceLocation::fileName).orElse(""),
                    scope.source().map(SourceLocation::line).orElse(0)));
        }
        return String.join(" | ", texts);
    }

    private static final Pattern INSTRUCTION = Pattern.compile("^\\s*([0-9a-f]+):\\t(\\S+)");

    /** The address after each call instruction of the module's code, from objdump's disassembly. */
    private static List<Long> returnAddresses(Path module) throws IOException {
        Commands.Result disassembly = Commands.run(List.of("objdump", "-d", "--no-show-raw-insn", module.toString()),
                Map.of(), null, Duration.ofMinutes(5));
        assertThat(disassembly.exitCode()).as(disassembly.output().lines().limit(5).toList().toString()).isZero();
        List<Long> addresses = new ArrayList<>();
        boolean afterCall = false;
        for (String line : disassembly.output().split("\n")) {
            Matcher instruction = INSTRUCTION.matcher(line);
            if (!instruction.find()) {
                afterCall = false; // a new function or section: a call at its end returns nowhere we know
                continue;
            }
            if (afterCall) {
                addresses.add(Long.parseUnsignedLong(instruction.group(1), 16));
            }
            afterCall = instruction.group(2).startsWith("call");
        }
        return addresses;
    }

    private static Map<Long, String> gdbScopes(Path module, List<Long> returnAddresses) throws IOException {
        Path scratch = Files.createTempDirectory("jompd-caller-lines");
        try {
            Path in = scratch.resolve("addresses.txt");
            Path out = scratch.resolve("scopes.tsv");
            Path script = scratch.resolve("scopes.py");
            Files.write(in, returnAddresses.stream().map(Long::toHexString).toList());
            Files.writeString(script, "IN_PATH = '%s'\nOUT_PATH = '%s'\n%s".formatted(in, out, SCRIPT));
            Commands.Result result = Commands.run(List.of("gdb", "-batch", "-nx", "-ex", "set pagination off",
                    module.toString(), "-x", script.toString()), Map.of(), null, Duration.ofMinutes(10));
            assertThat(out).as(result.output()).exists();
            Map<Long, String> scopes = new LinkedHashMap<>();
            for (String line : Files.readAllLines(out, StandardCharsets.UTF_8)) {
                String[] fields = line.split("\t", -1);
                scopes.put(Long.parseUnsignedLong(fields[0], 16), fields[1]);
            }
            return scopes;
        } finally {
            try (var files = Files.walk(scratch)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }
}
