package dev.jompd.dap.gdb;

import dev.jompd.core.ompd.ClangOpenMpPrologue;
import dev.jompd.core.ompd.RuntimeEntryPoints;
import dev.jompd.dap.mi.MiValue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

import static dev.jompd.dap.mi.MiStrings.quote;

/**
 * The debugger operations a DAP session needs, each one GDB/MI command with its answer turned into
 * records. Knows MI, not DAP. All-stop mode: stopping stops every thread, resuming resumes every thread.
 */
public final class GdbDebugger {
    private final Gdb gdb;

    public GdbDebugger(Gdb gdb) {
        this.gdb = gdb;
    }

    public Gdb gdb() {
        return gdb;
    }

    /** Settings every session needs: async execution (commands while running), no paging, no questions. */
    public void configure() {
        for (String command : List.of("-gdb-set mi-async on", "-gdb-set pagination off", "-gdb-set confirm off",
                "-gdb-set width 0", "-gdb-set height 0", "-gdb-set print thread-events off",
                "-enable-pretty-printing")) {
            gdb.execute(command);
        }
    }

    public void loadProgram(Path program) {
        gdb.execute("-file-exec-and-symbols " + quote(program.toString()));
    }

    /** The program's arguments as one shell command-line tail (gdb starts programs through the shell). */
    public void setArguments(String shellArguments) {
        gdb.execute("-exec-arguments " + shellArguments);
    }

    public void setWorkingDirectory(Path directory) {
        // -gdb-set hands the rest of the line to the CLI's "set cwd" as it is: no C-string quoting
        gdb.execute("-gdb-set cwd " + directory);
    }

    /** Opens a core file; gdb answers {@code ^connected} and reports no stop (the server does). */
    public void loadCore(Path core) {
        // -target-select hands its arguments to the CLI's "target core" as they are: no C-string quoting
        gdb.execute("-target-select core " + core);
    }

    public void attach(long pid) {
        gdb.execute("-target-attach " + pid);
    }

    /** Starts the program; with {@code stopAtMain} it stops at main (a temporary breakpoint). */
    public void run(boolean stopAtMain) {
        gdb.execute(stopAtMain ? "-exec-run --start" : "-exec-run");
    }

    public void continueAll() {
        gdb.execute("-exec-continue");
    }

    public void next(int thread, boolean instruction) {
        gdb.execute((instruction ? "-exec-next-instruction" : "-exec-next") + " --thread " + thread);
    }

    public void step(int thread, boolean instruction) {
        gdb.execute((instruction ? "-exec-step-instruction" : "-exec-step") + " --thread " + thread);
    }

    /** Runs {@code thread} (the others too, as a step does) until it reaches {@code address} or its frame returns. */
    public void runTo(int thread, long address) {
        gdb.execute("-exec-until --thread " + thread + " *0x" + Long.toHexString(address));
    }

    public void finish(int thread) {
        gdb.execute("-exec-finish --thread " + thread);
    }

    public void interrupt() {
        gdb.execute("-exec-interrupt");
    }

    public void kill() {
        gdb.execute("-interpreter-exec console \"kill\"");
    }

    public void detach() {
        gdb.execute("-target-detach");
    }

    public List<GdbThread> threads() {
        return threads(Gdb.await(submitThreads(), THREAD_INFO, gdb.defaultTimeout()));
    }

    public static final String THREAD_INFO = "-thread-info";

    /**
     * Asks for the thread list without waiting: see {@link #threads(GdbResult)}. Most of what
     * {@code -thread-info} costs gdb is the values of every top frame's arguments (256 threads: ~80 of
     * ~100 ms), which no one here shows: they are off for this one command, then the user's setting is back.
     */
    public java.util.concurrent.CompletableFuture<GdbResult> submitThreads() {
        String userSetting = gdb.execute("-gdb-show print frame-arguments").results().string("value").orElse("scalars");
        gdb.submit("-gdb-set print frame-arguments none");
        java.util.concurrent.CompletableFuture<GdbResult> answer = gdb.submit(THREAD_INFO);
        gdb.submit("-gdb-set print frame-arguments " + userSetting);
        return answer;
    }

    public static List<GdbThread> threads(GdbResult answer) {
        return answer.results().get("threads").map(MiValue::items).orElse(List.of()).stream().map(GdbThread::parse).toList();
    }

    /** Frames {@code low..high} (inclusive) of {@code thread}. */
    public List<GdbFrame> frames(int thread, int low, int high) {
        MiValue.Tuple answer = gdb.execute("-stack-list-frames --thread " + thread + " " + low + " " + high).results();
        return answer.get("stack").map(MiValue::items).orElse(List.of()).stream().map(GdbFrame::parse).toList();
    }

    /**
     * The canonical frame address of a frame: the stack pointer its caller had ($sp one frame out, as gdb
     * unwinds it, which needs no frame pointer); for the outermost frame its own $sp. OMPT's task frames
     * (__builtin_frame_address of the frame that called the task's code) are compared with it.
     */
    public Optional<Long> frameAddress(int thread, int frame) {
        try {
            return GdbFrame.addressOf(evaluate(thread, frame + 1, "(unsigned long) $sp").strip());
        } catch (GdbCommandException outermost) {
            return GdbFrame.addressOf(evaluate(thread, frame, "(unsigned long) $sp").strip());
        }
    }

    /** gdb's number of each register, by name (asked once). */
    private java.util.Map<String, Integer> registerNumbers;

    /**
     * The innermost frame's registers of a thread, by name ({@code rip}, {@code rsp}, ...; a name gdb
     * does not know is left out), for jompd's own unwinder.
     */
    public java.util.Map<String, Long> registers(int thread, List<String> names) {
        if (registerNumbers == null) {
            java.util.Map<String, Integer> numbers = new java.util.HashMap<>();
            List<MiValue> all = gdb.execute("-data-list-register-names").results().get("register-names")
                    .map(MiValue::items).orElse(List.of());
            for (int i = 0; i < all.size(); i++) {
                if (all.get(i) instanceof MiValue.Const name && !name.text().isEmpty()) {
                    numbers.put(name.text(), i);
                }
            }
            registerNumbers = numbers;
        }
        java.util.Map<Integer, String> wanted = new java.util.HashMap<>();
        names.forEach(name -> {
            Integer number = registerNumbers.get(name);
            if (number != null) {
                wanted.put(number, name);
            }
        });
        java.util.Map<String, Long> values = new java.util.LinkedHashMap<>();
        if (wanted.isEmpty()) {
            return values;
        }
        MiValue.Tuple answer = gdb.execute("-data-list-register-values --thread " + thread + " x "
                + String.join(" ", wanted.keySet().stream().map(String::valueOf).toList())).results();
        for (MiValue register : answer.get("register-values").map(MiValue::items).orElse(List.of())) {
            String name = wanted.get(Integer.parseInt(register.requireString("number")));
            String value = register.requireString("value");
            if (name != null && value.startsWith("0x")) {
                values.put(name, Long.parseUnsignedLong(value.substring(2), 16));
            }
        }
        return values;
    }

    /** Locals and arguments of a frame; aggregates come without a value. */
    public List<GdbVariable> locals(int thread, int frame) {
        MiValue.Tuple answer = gdb.execute("-stack-list-variables --thread " + thread + " --frame " + frame
                + " --simple-values").results();
        List<GdbVariable> variables = new ArrayList<>();
        for (MiValue variable : answer.get("variables").map(MiValue::items).orElse(List.of())) {
            String name = variable.requireString("name");
            variables.add(new GdbVariable(name, Optional.of(name), variable.string("value"), variable.string("type"),
                    Optional.empty(), variable.string("value").isPresent() ? 0 : -1));
        }
        return variables;
    }

    /** A variable object for {@code expression} in a frame: value, type and how many children. */
    public GdbVariable createVarobj(int thread, int frame, String expression) {
        MiValue.Tuple answer = gdb.execute("-var-create --thread " + thread + " --frame " + frame + " - * "
                + quote(expression)).results();
        return new GdbVariable(expression, Optional.of(expression), answer.string("value"), answer.string("type"),
                answer.string("name"), answer.string("numchild").map(Integer::parseInt).orElse(0));
    }

    public List<GdbVariable> children(String varobj) {
        MiValue.Tuple answer = gdb.execute("-var-list-children --simple-values " + quote(varobj) + " 0 10000").results();
        List<GdbVariable> children = new ArrayList<>();
        for (MiValue child : answer.get("children").map(MiValue::items).orElse(List.of())) {
            children.add(new GdbVariable(child.string("exp").orElse(child.requireString("name")), Optional.empty(),
                    child.string("value"), child.string("type"), child.string("name"),
                    child.string("numchild").map(Integer::parseInt).orElse(0)));
        }
        return children;
    }

    /** The expression a child variable object stands for (for evaluateName). */
    public Optional<String> pathExpression(String varobj) {
        try {
            return gdb.execute("-var-info-path-expression " + quote(varobj)).results().string("path_expr");
        } catch (GdbCommandException e) {
            return Optional.empty();
        }
    }

    public void deleteVarobj(String varobj) {
        gdb.submit("-var-delete " + quote(varobj)); // nobody waits: a failure changes nothing
    }

    public String evaluate(int thread, int frame, String expression) {
        return gdb.execute("-data-evaluate-expression --thread " + thread + " --frame " + frame + " "
                + quote(expression)).results().requireString("value");
    }

    public GdbBreakpoint insertBreakpoint(String location, Optional<String> condition, OptionalInt ignoreCount) {
        StringBuilder command = new StringBuilder("-break-insert -f");
        condition.filter(c -> !c.isBlank()).ifPresent(c -> command.append(" -c ").append(quote(c)));
        ignoreCount.ifPresent(n -> command.append(" -i ").append(n));
        command.append(' ').append(quote(location));
        return GdbBreakpoint.parse(gdb.execute(command.toString()).results().get("bkpt")
                .orElseThrow(() -> new GdbException("gdb created no breakpoint for " + location)));
    }

    /**
     * The instructions of the source line at {@code address} from there on (gdb's source-centric
     * disassembly of the next 256 bytes: its first line), and the address of the next line's first
     * instruction (empty when the line reaches past those bytes); no instructions where gdb has no line.
     */
    public LineInstructions lineInstructions(long address) {
        try {
            List<MiValue> lines = gdb.execute("-data-disassemble -s 0x" + Long.toHexString(address) + " -e 0x"
                    + Long.toHexString(address + 256) + " -- 4").results().get("asm_insns")
                    .map(MiValue::items).orElse(List.of());
            if (lines.isEmpty()) {
                return LineInstructions.NONE;
            }
            List<ClangOpenMpPrologue.Instruction> instructions = new ArrayList<>();
            long offset = lines.getFirst().get("line_asm_insn").flatMap(list -> list.items().stream().findFirst())
                    .flatMap(insn -> insn.string("offset")).flatMap(GdbFrame::addressOf).orElse(-1L);
            for (MiValue instruction : lines.getFirst().get("line_asm_insn").map(MiValue::items).orElse(List.of())) {
                Optional<Long> at = instruction.string("address").flatMap(GdbFrame::addressOf);
                if (at.isEmpty()) {
                    return LineInstructions.NONE;
                }
                instructions.add(new ClangOpenMpPrologue.Instruction(at.get(), instruction.string("inst").orElse("")));
            }
            OptionalLong next = lines.size() < 2 ? OptionalLong.empty() : lines.get(1).get("line_asm_insn")
                    .flatMap(list -> list.items().stream().findFirst()).flatMap(insn -> insn.string("address"))
                    .flatMap(GdbFrame::addressOf).map(OptionalLong::of).orElse(OptionalLong.empty());
            return new LineInstructions(instructions, next, offset);
        } catch (GdbCommandException e) {
            return LineInstructions.NONE; // no code there gdb can disassemble
        }
    }

    /**
     * A line's instructions from an address on, the address after them (the next line's first), and the
     * offset of the first in its function (-1 when unknown).
     */
    public record LineInstructions(List<ClangOpenMpPrologue.Instruction> instructions, OptionalLong end,
                                   long functionOffset) {
        static final LineInstructions NONE = new LineInstructions(List.of(), OptionalLong.empty(), -1);
    }

    /**
     * A breakpoint only {@code thread} stops at, not told to the client (a helper of a step): its number,
     * or empty when gdb finds no such location (a runtime without that function).
     */
    public OptionalInt insertThreadBreakpoint(String location, int thread, boolean temporary) {
        try {
            return OptionalInt.of(GdbBreakpoint.parse(gdb.execute("-break-insert" + (temporary ? " -t" : "") + " -p " + thread
                    + " " + quote(location)).results().get("bkpt")
                    .orElseThrow(() -> new GdbException("gdb created no breakpoint for " + location))).number());
        } catch (GdbCommandException notFound) {
            return OptionalInt.empty();
        }
    }

    /**
     * The source line of the first instruction of the function holding {@code address} (gdb's disassembly
     * of that instruction names its offset in the function, and of the function's first its line), or empty
     * when gdb knows no function or no line there.
     */
    public Optional<RuntimeEntryPoints.SourceLine> functionEntry(long address) {
        try {
            Optional<MiValue> instruction = gdb.execute("-data-disassemble -s 0x" + Long.toHexString(address)
                    + " -e 0x" + Long.toHexString(address + 1) + " -- 0").results().get("asm_insns")
                    .flatMap(list -> list.items().stream().findFirst());
            Optional<Long> offset = instruction.flatMap(insn -> insn.string("offset")).flatMap(GdbFrame::addressOf);
            if (offset.isEmpty()) {
                return Optional.empty();
            }
            long first = address - offset.get();
            Optional<MiValue> line = gdb.execute("-data-disassemble -s 0x" + Long.toHexString(first)
                    + " -e 0x" + Long.toHexString(first + 1) + " -- 4").results().get("asm_insns")
                    .flatMap(list -> list.items().stream().findFirst());
            Optional<String> file = line.flatMap(l -> l.string("fullname").or(() -> l.string("file")));
            int number = line.flatMap(l -> l.string("line")).map(Integer::parseInt).orElse(0);
            return file.isPresent() && number > 0 ? Optional.of(new RuntimeEntryPoints.SourceLine(file.get(), number))
                    : Optional.empty();
        } catch (GdbCommandException | NumberFormatException e) {
            return Optional.empty(); // no code there gdb can disassemble
        }
    }

    /** The address ranges of the loaded libraries whose path (as gdb names it) passes {@code path}. */
    public List<long[]> libraryRanges(java.util.function.Predicate<String> path) {
        List<long[]> ranges = new ArrayList<>();
        MiValue.Tuple answer = gdb.execute("-file-list-shared-libraries").results();
        for (MiValue library : answer.get("shared-libraries").map(MiValue::items).orElse(List.of())) {
            String name = library.string("id").orElse("");
            if (path.test(name)) {
                for (MiValue range : library.get("ranges").map(MiValue::items).orElse(List.of())) {
                    Optional<Long> from = range.string("from").flatMap(GdbFrame::addressOf);
                    Optional<Long> to = range.string("to").flatMap(GdbFrame::addressOf);
                    if (from.isPresent() && to.isPresent()) {
                        ranges.add(new long[] {from.get(), to.get()});
                    }
                }
            }
        }
        return ranges;
    }

    public void deleteBreakpoints(List<Integer> numbers) {
        if (!numbers.isEmpty()) {
            StringBuilder command = new StringBuilder("-break-delete");
            numbers.forEach(number -> command.append(' ').append(number));
            gdb.execute(command.toString());
        }
    }

    /** Memory read in chunks gdb could read; unreadable ranges are left out. */
    public record MemoryChunk(long begin, byte[] contents) {}

    public List<MemoryChunk> readMemory(long address, int count) {
        MiValue.Tuple answer = gdb.execute("-data-read-memory-bytes 0x" + Long.toHexString(address) + " " + count)
                .results();
        List<MemoryChunk> chunks = new ArrayList<>();
        for (MiValue chunk : answer.get("memory").map(MiValue::items).orElse(List.of())) {
            long begin = GdbFrame.addressOf(chunk.requireString("begin")).orElseThrow();
            chunks.add(new MemoryChunk(begin, HexFormat.of().parseHex(chunk.requireString("contents"))));
        }
        return chunks;
    }

    /** Runs a CLI command and returns what it printed. */
    /** A launch configuration's own MI command ({@code -enable-pretty-printing}), as it is written. */
    public GdbResult mi(String command) {
        return gdb.execute(command);
    }

    public GdbResult console(String command) {
        return gdb.execute("-interpreter-exec console " + quote(command));
    }
}
