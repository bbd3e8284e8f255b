package dev.jompd.dap.session;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import org.eclipse.lsp4j.debug.SourceResponse;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * source: a frame's file by its path. The server gives no source references, so VS Code asks only for a
 * path it cannot open itself: a file of the debug information that is not on this machine (the C
 * library's {@code ./nptl/futex-internal.c} when a thread waits in a futex, reached by focusing frames).
 * Such a request is answered with why, quietly, which VS Code shows in place of the editor's text; a
 * file that is there (VS Code may ask through a relative path) is read.
 */
final class SourceHandler implements RequestHandler {
    /** Larger files are not sent through the protocol: they are no source code. */
    private static final long MAX_BYTES = 16L << 20;

    @Override
    public List<String> commands() {
        return List.of("source");
    }

    @Override
    public JsonElement handle(String command, JsonObject arguments, DapSession session) {
        JsonObject source = arguments.has("source") && arguments.get("source").isJsonObject()
                ? arguments.getAsJsonObject("source") : new JsonObject();
        String path = source.has("path") && source.get("path").isJsonPrimitive() ? source.get("path").getAsString() : "";
        if (path.isEmpty()) {
            throw new DapException(ErrorId.SOURCE_UNAVAILABLE, "source: no path given, and this server gives no "
                    + "source references");
        }
        Path file = Path.of(path);
        try {
            if (!Files.isRegularFile(file) || Files.size(file) > MAX_BYTES) {
                throw new DapException(ErrorId.SOURCE_UNAVAILABLE, "source not available: " + path + " is "
                        + (Files.isRegularFile(file) ? "larger than 16 MiB" : "not on this machine")
                        + " (the debug information names it; install the sources or map the path to see them)");
            }
            SourceResponse response = new SourceResponse();
            response.setContent(Files.readString(file, StandardCharsets.UTF_8));
            return DapSession.GSON.toJsonTree(response);
        } catch (IOException | java.io.UncheckedIOException unreadable) {
            throw new DapException(ErrorId.SOURCE_UNAVAILABLE, "source not available: " + path + " cannot be read ("
                    + unreadable.getMessage() + ")");
        }
    }
}
