package dev.jompd.gdb;

import com.google.gson.JsonObject;
import dev.jompd.core.ompd.Ompd;
import dev.jompd.core.ompd.OmpdException;
import dev.jompd.core.target.TargetException;

import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;

/**
 * The jompd engine of the gdb bridge: started by jompd.py, one per gdb session, it reads requests from
 * stdin and writes replies (and its questions to gdb) to stdout, one JSON object per line; stderr is its
 * log. It ends when gdb closes the pipe.
 */
public final class Engine {
    private final GdbChannel gdb;
    private final Session session;

    public Engine(InputStream in, OutputStream out) {
        this.gdb = new GdbChannel(in, out);
        this.session = new Session(gdb);
    }

    public static void main(String[] args) {
        OutputStream protocol = new FileOutputStream(FileDescriptor.out);
        // Nothing else may write to the protocol stream: stray prints go to the log.
        System.setOut(new PrintStream(new FileOutputStream(FileDescriptor.err), true));
        new Engine(new FileInputStream(FileDescriptor.in), protocol).run();
        System.exit(0);
    }

    /** Serves requests until gdb closes the pipe. */
    public void run() {
        JsonObject hello = new JsonObject();
        hello.addProperty("hello", GdbChannel.PROTOCOL);
        hello.addProperty("version", Ompd.versionString());
        hello.add("step", StepEntries.hello());
        gdb.send(hello);
        try (session) {
            for (JsonObject message; (message = gdb.read()) != null; ) {
                if (message.has("command")) {
                    gdb.send(handle(message));
                } else {
                    // An answer nobody asked for: the two sides are out of step; say so and go on.
                    System.err.println("jompd engine: ignoring unexpected message " + message);
                }
            }
        } catch (UncheckedIOException | GdbChannel.ProtocolException e) {
            System.err.println("jompd engine: " + e.getMessage());
        }
    }

    /** One request → its reply: text, or an error message for the user. */
    JsonObject handle(JsonObject request) {
        long start = System.nanoTime();
        long questionsBefore = gdb.questionsAsked();
        JsonObject reply = new JsonObject();
        reply.add("reply", request.get("id"));
        String command = request.get("command").getAsString();
        String arguments = request.has("args") ? request.get("args").getAsString() : "";
        try {
            Handlers.Handler handler = Handlers.ALL.get(command);
            if (handler == null) {
                throw new BridgeException("unknown command \"ompd " + command + "\" (see `help ompd`)");
            }
            TargetContext context = TargetContext.parse(request.getAsJsonObject("context"));
            Session.Target target = session.prepare(context);
            reply.addProperty("text", handler.handle(new Views(target), arguments, gdb));
        } catch (BridgeException e) {
            reply.addProperty("error", e.getMessage());
        } catch (OmpdException e) {
            reply.addProperty("error", e.reason()); // in words: no OMPD return code in a user's message
        } catch (TargetException | GdbQuestionException e) {
            reply.addProperty("error", e.getMessage());
        } catch (GdbChannel.ProtocolException | UncheckedIOException e) {
            throw e;
        } catch (RuntimeException e) {
            e.printStackTrace();
            reply.addProperty("error", "internal error in the jompd engine (a bug: please report it): " + e);
        }
        // For benchmarks and tests: what the request cost on this side, how often it asked gdb.
        JsonObject stats = new JsonObject();
        stats.addProperty("micros", (System.nanoTime() - start) / 1000);
        stats.addProperty("questions", gdb.questionsAsked() - questionsBefore);
        stats.addProperty("resumes", session.resumes());
        session.space().ifPresent(space -> stats.addProperty("backend", space.name()));
        reply.add("stats", stats);
        return reply;
    }
}
