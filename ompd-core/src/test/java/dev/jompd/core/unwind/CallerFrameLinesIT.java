package dev.jompd.core.unwind;

import dev.jompd.core.target.LoadedModule;
import dev.jompd.testkit.Commands;
import dev.jompd.testkit.Prerequisite;
import dev.jompd.testkit.Runtimes;
import dev.jompd.testkit.SupportedRuntimes;
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
 * Source positions at every code address a stack can show, against gdb's own reading of the same module's debug
 * information (its Python API; nothing of jompd involved), over whole modules built -O2 with much inlining: glibc
 * (its separate debug file, libc6-dbg) and the OpenMP runtime. Where StackAccuracyIT sees the addresses threads
 * happen to stop at, this sees them all.
 * <ul>
 * <li>A caller frame at each return address (the address after each call instruction, as objdump lists them):
 *     jompd's scope frames at the return address less one against gdb's. gdb's {@code find_frame_sal}
 *     (gdb/frame.c) gives a frame without inlined callees {@code find_pc_line(pc - 1)} (the innermost scope,
 *     {@code gdb.find_pc_line}) and a frame with inlined callees the call site of the callee's inlined function
 *     symbol, whose line and file gdb reads from {@code DW_AT_call_line}/{@code DW_AT_call_file} (the symbol's
 *     {@code line} and {@code symtab}); the scopes are {@code gdb.block_for_pc}'s chain of function blocks.</li>
 * <li>The innermost frame at each instruction: {@code SourceLocator.locate} against {@code gdb.find_pc_line}.</li>
 * </ul>
 * Frames are named by the function symbol's print name for C; a C++ frame's name is gdb's print name less its
 * parameters ({@code find_frame_funname}'s {@code cp_remove_params}), which only gdb's own C++ name parser
 * gets right, so the C++ module's frame names are compared with the names gdb's backtrace prints (in a
 * process that has it loaded, {@code gdb.Frame.name}), the scopes by file and line.
 */
class CallerFrameLinesIT {
    private static final DebugInfoCache CACHE = new DebugInfoCache();

    /**
     * For each address: in CALLERS mode the scopes at the address less one, innermost first, as name@file:line
     * with " | " between them; in LINES mode file:line at the address.
     */
    private static final String SCRIPT = """
            import gdb
            out = open(OUT_PATH, "w")
            for text in open(IN_PATH):
                address = int(text, 16)
                pc = address - 1 if MODE == "CALLERS" else address
                sal = gdb.find_pc_line(pc)
                file = sal.symtab.filename.rsplit("/", 1)[-1] if sal.symtab is not None else ""
                line = sal.line if sal.symtab is not None else 0
                if MODE == "LINES":
                    out.write("%x\\t%s:%d\\n" % (address, file, line))
                    continue
                try:
                    block = gdb.block_for_pc(pc)
                except RuntimeError:
                    block = None
                scopes = []
                while block is not None and not block.is_static:
                    function = block.function
                    if function is not None:
                        scopes.append("%s@%s:%d" % (function.print_name if NAMES else "", file, line))
                        has_call_site = function.symtab is not None and function.line != 0
                        file = function.symtab.filename.rsplit("/", 1)[-1] if has_call_site else ""
                        line = function.line
                    block = block.superblock
                out.write("%x\\t%s\\n" % (address, " | ".join(scopes)))
            out.close()
            """;

    /**
     * For each address: the names gdb's backtrace prints for the frames at the address less one, innermost
     * first, with " | " between them. gdb names frames only in a process, so this one runs a small program
     * with the module preloaded, stops it before it exits, and points its pc at each address in turn: the
     * frames there are the inlined calls and the function at that address, named by {@code find_frame_funname}
     * ({@code gdb.Frame.name}, what {@code bt} prints), for as many frames as there are function blocks.
     */
    private static final String BACKTRACE_NAMES_SCRIPT = """
            import gdb
            gdb.execute("catch syscall exit_group")
            gdb.execute("run")
            bias = None
            for text in open("/proc/%d/maps" % gdb.selected_inferior().pid):
                fields = text.split()
                if len(fields) >= 6 and fields[5] == MODULE_PATH and int(fields[2], 16) == 0:
                    bias = int(fields[0].split("-")[0], 16)
                    break
            out = open(OUT_PATH, "w")
            for text in open(IN_PATH):
                address = int(text, 16)
                pc = bias + address - 1
                try:
                    block = gdb.block_for_pc(pc)
                except RuntimeError:
                    block = None
                count = 0
                while block is not None and not block.is_static:
                    if block.function is not None:
                        count += 1
                    block = block.superblock
                gdb.execute("set $pc = %d" % pc)
                frame = gdb.newest_frame()
                names = []
                for level in range(count):
                    names.append(frame.name() or "??")
                    if level + 1 < count:
                        frame = frame.older()
                out.write("%x\\t%s\\n" % (address, " | ".join(names)))
            out.close()
            """;

    @AfterAll
    static void closeCache() {
        CACHE.close();
    }

    /** A module, and whether its frames' names are compared (C: gdb names them by the symbol's print name). */
    record Module(String label, Path path, boolean names) {
        @Override
        public String toString() {
            return label;
        }
    }

    static Stream<Module> modules() {
        return Stream.of(new Module("glibc", libc(), true), new Module("libomp " + Runtimes.DEFAULT_VERSION,
                Runtimes.libraryDirectory(Runtimes.DEFAULT_VERSION).resolve("libomp.so"), false));
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
    void everyCallersFramesMatchGdb(Module module) throws IOException {
        Disassembly code = disassemble(module);
        ModuleMap modules = new ModuleMap(List.of(loaded(module)), CACHE);
        SourceLocator locator = new SourceLocator(modules);
        compare(module, "CALLERS", code.returnAddresses(), returnAddress -> modules.at(returnAddress - 1)
                .map(mapping -> scopesText(locator.scopeFrames(mapping, returnAddress - 1), module.names())).orElse(""));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("modules")
    void everyInstructionsLineMatchesGdb(Module module) throws IOException {
        Disassembly code = disassemble(module);
        SourceLocator locator = new SourceLocator(List.of(loaded(module)), CACHE);
        compare(module, "LINES", code.instructions(), address -> locator.locate(address)
                .map(location -> location.fileName() + ":" + location.line()).orElse(":0"));
    }

    /** Every tested OpenMP runtime (C++). */
    static Stream<Module> runtimes() {
        return SupportedRuntimes.tested().map(version -> new Module("libomp " + version,
                Runtimes.libraryDirectory(version).resolve("libomp.so"), false));
    }

    /**
     * The names of the frames at every return address of each OpenMP runtime (C++: gdb prints a frame's
     * name less its parameters), against the names gdb's backtrace prints there. The frames are named as
     * the unwinder names them ({@link FrameNames}).
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("runtimes")
    void everyCallersFrameNamesMatchGdbsBacktrace(Module module) throws IOException {
        Disassembly code = disassemble(module);
        ModuleMap modules = new ModuleMap(List.of(loaded(module)), CACHE);
        SourceLocator locator = new SourceLocator(modules);
        Map<Long, String> gdb = gdbBacktraceNames(module, code.returnAddresses());
        compare(module, "NAMES", code.returnAddresses(), gdb, returnAddress -> modules.at(returnAddress - 1)
                .map(mapping -> String.join(" | ", locator.scopeFrames(mapping, returnAddress - 1).stream()
                        .filter(scope -> scope.function().isPresent())
                        .map(scope -> FrameNames.of(scope).orElseThrow()).toList()))
                .orElse(""));
    }

    private static Map<Long, String> gdbBacktraceNames(Module module, List<Long> addresses) throws IOException {
        Path real = module.path().toRealPath();
        return gdbRun(addresses, "MODULE_PATH = '%s'\n".formatted(real) + BACKTRACE_NAMES_SCRIPT,
                List.of("-ex", "set environment LD_PRELOAD " + real, "/bin/true"));
    }

    private static LoadedModule loaded(Module module) {
        LoadedModule loaded = new LoadedModule(module.path(), 0, Optional.empty());
        if (module.label().equals("glibc")) {
            Prerequisite.require(CACHE.of(loaded).hasDebugFile(),
                    () -> module.path() + " has no separate debug file: install libc6-dbg (scripts/setup-system.sh does)");
        }
        return loaded;
    }

    private interface Answer {
        String at(long address);
    }

    private static void compare(Module module, String mode, List<Long> addresses, Answer ours) throws IOException {
        compare(module, mode, addresses, gdbAnswers(module, mode, addresses), ours);
    }

    private static void compare(Module module, String mode, List<Long> addresses, Map<Long, String> gdb, Answer ours) {
        List<String> differences = new ArrayList<>();
        for (long address : addresses) {
            String theirs = gdb.getOrDefault(address, "(gdb gave nothing)");
            String mine = ours.at(address);
            if (!mine.equals(theirs)) {
                differences.add("0x%x: gdb %s%n         jompd %s".formatted(address, theirs, mine));
            }
        }
        System.out.printf("%s %s: %d addresses compared, %d differ%n", module, mode, addresses.size(), differences.size());
        assertThat(differences).as("%d of %d addresses", differences.size(), addresses.size()).isEmpty();
    }

    private static String scopesText(List<SourceLocator.ScopeFrame> scopes, boolean names) {
        List<String> texts = new ArrayList<>();
        for (SourceLocator.ScopeFrame scope : scopes) {
            if (scope.function().isEmpty()) {
                continue; // no debug information there: gdb has no function block either
            }
            texts.add("%s@%s:%d".formatted(names ? scope.function().get() : "",
                    scope.source().map(SourceLocation::fileName).orElse(""), scope.source().map(SourceLocation::line).orElse(0)));
        }
        return String.join(" | ", texts);
    }

    /** Every instruction's address, and the address after each call instruction. */
    private record Disassembly(List<Long> instructions, List<Long> returnAddresses) {}

    private static final Pattern INSTRUCTION = Pattern.compile("^\\s*([0-9a-f]+):\\t(\\S+)");

    private static Disassembly disassemble(Module module) throws IOException {
        Prerequisite.require(Commands.available("objdump") && Commands.available("gdb"), "objdump and gdb are needed");
        Commands.Result disassembly = Commands.run(List.of("objdump", "-d", "--no-show-raw-insn", module.path().toString()),
                Map.of(), null, Duration.ofMinutes(5));
        assertThat(disassembly.exitCode()).as(disassembly.output().lines().limit(5).toList().toString()).isZero();
        List<Long> instructions = new ArrayList<>();
        List<Long> returnAddresses = new ArrayList<>();
        boolean afterCall = false;
        for (String line : disassembly.output().split("\n")) {
            Matcher instruction = INSTRUCTION.matcher(line);
            if (!instruction.find()) {
                afterCall = false; // a new function or section: a call at the end of one returns nowhere known
                continue;
            }
            long address = Long.parseUnsignedLong(instruction.group(1), 16);
            instructions.add(address);
            if (afterCall) {
                returnAddresses.add(address);
            }
            afterCall = instruction.group(2).startsWith("call");
        }
        assertThat(returnAddresses).as("call instructions in " + module.path()).hasSizeGreaterThan(1000);
        return new Disassembly(instructions, returnAddresses);
    }

    private static Map<Long, String> gdbAnswers(Module module, String mode, List<Long> addresses) throws IOException {
        return gdbRun(addresses, "MODE = '%s'\nNAMES = %s\n%s".formatted(mode, module.names() ? "True" : "False", SCRIPT),
                List.of(module.path().toString()));
    }

    /** gdb's answers, one line per address, from {@code script} (given IN_PATH and OUT_PATH) run on {@code target}. */
    private static Map<Long, String> gdbRun(List<Long> addresses, String script, List<String> target) throws IOException {
        Path scratch = Files.createTempDirectory("jompd-caller-lines");
        try {
            Path in = scratch.resolve("addresses.txt");
            Path out = scratch.resolve("answers.tsv");
            Path scriptFile = scratch.resolve("answers.py");
            Files.write(in, addresses.stream().map(Long::toHexString).toList());
            Files.writeString(scriptFile, "IN_PATH = '%s'\nOUT_PATH = '%s'\n%s".formatted(in, out, script));
            List<String> command = new ArrayList<>(List.of("gdb", "-batch", "-nx", "-ex", "set pagination off"));
            command.addAll(target);
            command.addAll(List.of("-x", scriptFile.toString()));
            Commands.Result result = Commands.run(command, Map.of(), null, Duration.ofMinutes(10));
            assertThat(out).as(result.output()).exists();
            Map<Long, String> answers = new LinkedHashMap<>();
            for (String line : Files.readAllLines(out, StandardCharsets.UTF_8)) {
                String[] fields = line.split("\t", -1);
                answers.put(Long.parseUnsignedLong(fields[0], 16), fields[1]);
            }
            return answers;
        } finally {
            try (var files = Files.walk(scratch)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }
}
