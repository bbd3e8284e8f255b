package dev.jompd.dap.session;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import dev.jompd.dap.gdb.GdbCommandException;
import dev.jompd.dap.gdb.GdbDebugger;
import org.eclipse.lsp4j.debug.ReadMemoryResponse;

import java.util.Base64;
import java.util.List;
import java.util.Optional;

/** readMemory: the readable prefix of a range, through gdb; the rest is counted as unreadable. */
final class ReadMemoryHandler implements RequestHandler {
    /** Largest readMemory answered at once. */
    static final int MAX_MEMORY_READ = 1 << 20;

    record ReadMemoryArguments(long address, int count) {
        static ReadMemoryArguments from(JsonObject args) {
            String reference = Arguments.optionalString(args, "memoryReference").orElseThrow(() ->
                    Arguments.invalid("readMemory: memoryReference is required"));
            long base = parseAddress(reference).orElseThrow(() -> Arguments.invalid(
                    "readMemory: memoryReference must be an address such as 0x7ffe1000, not " + reference));
            long address = base + Arguments.optionalInteger(args, "offset").orElse(0);
            int count = Arguments.integer(args, "count");
            if (count < 0 || count > MAX_MEMORY_READ) {
                throw Arguments.invalid("readMemory: count must be between 0 and " + MAX_MEMORY_READ);
            }
            return new ReadMemoryArguments(address, count);
        }
    }

    @Override
    public List<String> commands() {
        return List.of("readMemory");
    }

    @Override
    public JsonElement handle(String command, JsonObject arguments, DapSession session) {
        Debuggee debuggee = session.stoppedDebuggee("readMemory");
        ReadMemoryArguments args = ReadMemoryArguments.from(arguments);
        long address = args.address();
        int count = args.count();
        ReadMemoryResponse response = new ReadMemoryResponse();
        response.setAddress("0x" + Long.toHexString(address));
        if (count == 0) {
            response.setData("");
            return DapSession.GSON.toJsonTree(response);
        }
        List<GdbDebugger.MemoryChunk> chunks;
        try {
            chunks = debuggee.debugger().readMemory(address, count);
        } catch (GdbCommandException e) {
            chunks = List.of();
        }
        // the readable prefix starting at the address; the rest is unreadable
        byte[] data = new byte[0];
        for (GdbDebugger.MemoryChunk chunk : chunks) {
            if (chunk.begin() == address) {
                data = chunk.contents();
                break;
            }
        }
        if (data.length == 0) {
            response.setUnreadableBytes(count);
        } else if (data.length < count) {
            response.setUnreadableBytes(count - data.length);
        }
        response.setData(Base64.getEncoder().encodeToString(data));
        return DapSession.GSON.toJsonTree(response);
    }

    /** "0x…" or decimal memory references. */
    static Optional<Long> parseAddress(String text) {
        String trimmed = text.strip();
        try {
            return Optional.of(trimmed.startsWith("0x") || trimmed.startsWith("0X")
                    ? Long.parseUnsignedLong(trimmed.substring(2), 16) : Long.parseUnsignedLong(trimmed));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }
}
