package dev.jompd.dap.session;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import dev.jompd.dap.gdb.GdbVariable;
import dev.jompd.dap.openmp.OmpVariable;
import org.eclipse.lsp4j.debug.Variable;

import java.util.ArrayList;
import java.util.List;

/**
 * variables: what a reference handed out at this stop expands to: a frame's locals, a gdb variable
 * object's children, or rows of an OpenMP scope.
 */
final class VariablesHandler implements RequestHandler {
    record VariablesArguments(int variablesReference, int start, int count) {
        static VariablesArguments from(JsonObject args) {
            return new VariablesArguments(Arguments.integer(args, "variablesReference"),
                    Math.max(0, Arguments.optionalInteger(args, "start").orElse(0)),
                    Arguments.optionalInteger(args, "count").orElse(0));
        }
    }

    @Override
    public List<String> commands() {
        return List.of("variables");
    }

    @Override
    public JsonElement handle(String command, JsonObject arguments, DapSession session) {
        Debuggee debuggee = session.stoppedDebuggee("variables");
        VariablesArguments args = VariablesArguments.from(arguments);
        StopState stop = debuggee.stop();
        StopState.VariablesRef ref = stop.variables.get(args.variablesReference());
        if (ref == null) {
            throw new DapException(ErrorId.STALE_HANDLE, "variables: reference " + args.variablesReference()
                    + " is unknown or from an earlier stop");
        }
        List<Variable> result = new ArrayList<>();
        switch (ref) {
            case StopState.Locals locals -> {
                for (GdbVariable variable : debuggee.debugger().locals(locals.thread(), locals.level())) {
                    if (variable.value().isPresent()) {
                        result.add(GdbVariables.variable(variable, 0, variable.name()));
                    } else {
                        result.add(GdbVariables.varobj(session, debuggee, debuggee.debugger().createVarobj(locals.thread(),
                                locals.level(), variable.name()), variable.name(), variable.name()));
                    }
                }
            }
            case StopState.Children children -> {
                for (GdbVariable child : debuggee.debugger().children(children.varobj())) {
                    if (child.type().isEmpty() && child.children() > 0) {
                        // C++ access specifiers (public/private): a group, no value of its own
                        result.add(GdbVariables.childGroup(session, stop, child));
                    } else {
                        result.add(GdbVariables.varobj(session, debuggee, child, child.name(), null));
                    }
                }
            }
            case StopState.OpenMpRows rows -> {
                for (OmpVariable row : rows.rows()) {
                    int childRef = 0;
                    if (!row.children().isEmpty()) {
                        childRef = session.newHandle();
                        stop.variables.put(childRef, new StopState.OpenMpRows(row.children()));
                    }
                    Variable dap = new Variable();
                    dap.setName(row.name());
                    dap.setValue(row.value());
                    dap.setType(row.type().isEmpty() ? null : row.type());
                    dap.setVariablesReference(childRef);
                    result.add(dap);
                }
            }
        }
        int from = args.start();
        int count = args.count();
        List<Variable> page = from >= result.size() ? List.of()
                : result.subList(from, count > 0 ? Math.min(result.size(), from + count) : result.size());
        JsonObject body = new JsonObject();
        body.add("variables", DapSession.GSON.toJsonTree(page));
        return body;
    }
}
