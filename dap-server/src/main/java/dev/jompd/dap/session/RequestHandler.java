package dev.jompd.dap.session;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

import java.util.List;

/**
 * One DAP request (or a few that share their arguments and work, like the four resumes), in java-debug's
 * shape: it checks the session's phase, reads its arguments into a typed record, asks gdb or jompd and maps
 * the answer to DAP types. A handler reads no target memory and knows nothing of libomp's layout.
 */
interface RequestHandler {
    /** The DAP commands this handler answers. */
    List<String> commands();

    /**
     * Answers {@code command}: the response body (null for none). Failures are {@link DapException}s
     * carrying their {@link ErrorId}, or gdb's exceptions, which the session maps to ids.
     */
    JsonElement handle(String command, JsonObject arguments, DapSession session);
}
