package dev.jompd.dap.session;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import dev.jompd.dap.gdb.GdbCommandException;
import dev.jompd.dap.gdb.GdbFrame;
import dev.jompd.dap.gdb.GdbThread;
import org.eclipse.lsp4j.debug.Source;
import org.eclipse.lsp4j.debug.SourcePresentationHint;
import org.eclipse.lsp4j.debug.StackFrame;
import org.eclipse.lsp4j.debug.StackFramePresentationHint;
import org.eclipse.lsp4j.debug.StackTraceResponse;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/** stackTrace: a thread's frames from gdb, each given a handle valid for this stop. */
final class StackTraceHandler implements RequestHandler {
    record StackTraceArguments(int threadId, int startFrame, int levels) {
        static StackTraceArguments from(JsonObject args) {
            StackTraceArguments parsed = new StackTraceArguments(Arguments.integer(args, "threadId"),
                    Arguments.optionalInteger(args, "startFrame").orElse(0), Arguments.optionalInteger(args, "levels").orElse(0));
            if (parsed.startFrame() < 0 || parsed.levels() < 0) {
                throw Arguments.invalid("stackTrace: startFrame and levels must not be negative");
            }
            return parsed;
        }
    }

    /** Whether a source file is there (asked once per file: frames of 256 threads share a few files). */
    private final Map<String, Boolean> sourceFiles = new ConcurrentHashMap<>();

    @Override
    public List<String> commands() {
        return List.of("stackTrace");
    }

    @Override
    public JsonElement handle(String command, JsonObject arguments, DapSession session) {
        Debuggee debuggee = session.stoppedDebuggee("stackTrace");
        StackTraceArguments args = StackTraceArguments.from(arguments);
        int threadId = args.threadId();
        int start = args.startFrame();
        int levels = args.levels();
        StopState stop = debuggee.stop();
        List<GdbFrame> frames;
        boolean more;
        Optional<GdbThread> known = debuggee.threads().stream().filter(t -> t.id() == threadId).findFirst();
        if (known.isEmpty()) {
            throw new DapException(ErrorId.STALE_HANDLE, "stackTrace: no thread " + threadId);
        }
        if (start == 0 && levels == 1 && known.get().frame().isPresent()) {
            // the top frame came with the thread list: no gdb round trip (delayed loading for many threads)
            frames = List.of(known.get().frame().get());
            more = true;
        } else {
            int count = levels == 0 ? 1000 : levels;
            List<GdbFrame> fetched;
            try {
                fetched = debuggee.debugger().frames(threadId, start, start + count);
            } catch (GdbCommandException e) {
                fetched = List.of(); // past the end of the stack
            }
            more = fetched.size() > count;
            frames = more ? fetched.subList(0, count) : fetched;
        }
        List<StackFrame> result = new ArrayList<>();
        for (GdbFrame frame : frames) {
            int id = session.newHandle();
            stop.frames.put(id, new StopState.FrameRef(threadId, frame.level()));
            result.add(stackFrame(session, id, frame, debuggee::runtimeCode));
        }
        StackTraceResponse response = new StackTraceResponse();
        response.setStackFrames(result.toArray(StackFrame[]::new));
        if (!more) {
            response.setTotalFrames(start + frames.size());
        }
        return DapSession.GSON.toJsonTree(response);
    }

    private static boolean inside(List<long[]> ranges, long address) {
        return ranges.stream().anyMatch(range -> Long.compareUnsigned(address, range[0]) >= 0
                && Long.compareUnsigned(address, range[1]) < 0);
    }

    /**
     * A DAP frame. A frame whose source is not on this machine, or is the OpenMP runtime's own, has its
     * source deemphasized: a client then focuses the innermost frame of the user's code at a stop that is no
     * breakpoint or step (a core, a pause, a signal; VS Code's "top stack frame"), and greys the others.
     */
    private StackFrame stackFrame(DapSession session, int id, GdbFrame frame, Supplier<List<long[]>> runtimeCode) {
        StackFrame dap = new StackFrame();
        dap.setId(id);
        dap.setName(frame.displayName() + (frame.file().isEmpty() ? frame.library().map(l -> " (" + Path.of(l).getFileName() + ")").orElse("") : ""));
        frame.address().ifPresent(address -> dap.setInstructionPointerReference("0x" + Long.toHexString(address)));
        Optional<String> path = frame.fullname().or(frame::file);
        if (path.isPresent() && frame.line() > 0) {
            Source source = new Source();
            source.setName(Path.of(path.get()).getFileName().toString());
            source.setPath(path.get());
            if (!sourceFiles.computeIfAbsent(path.get(), p -> Files.isRegularFile(Path.of(p)))
                    || frame.address().isPresent() && inside(runtimeCode.get(), frame.address().getAsLong())) {
                source.setPresentationHint(SourcePresentationHint.DEEMPHASIZE);
            }
            dap.setSource(source);
            dap.setLine(session.linesStartAt1() ? frame.line() : frame.line() - 1);
            dap.setColumn(session.columnsStartAt1() ? 1 : 0);
        } else {
            dap.setLine(0);
            dap.setColumn(0);
            dap.setPresentationHint(StackFramePresentationHint.SUBTLE);
        }
        return dap;
    }
}
