package dev.jompd.dap.session;

import dev.jompd.dap.gdb.GdbVariable;
import org.eclipse.lsp4j.debug.Variable;

/** gdb's variables as DAP variables, with handles for those that have children (variables and evaluate share it). */
final class GdbVariables {
    private GdbVariables() {}

    static Variable childGroup(DapSession session, StopState stop, GdbVariable child) {
        int ref = session.newHandle();
        stop.variables.put(ref, new StopState.Children(child.varobj().orElseThrow()));
        Variable dap = new Variable();
        dap.setName(child.name());
        dap.setValue("");
        dap.setVariablesReference(ref);
        return dap;
    }

    static Variable varobj(DapSession session, Debuggee debuggee, GdbVariable variable, String name, String evaluateName) {
        StopState stop = debuggee.stop();
        variable.varobj().filter(v -> !v.contains(".")).ifPresent(stop.varobjs::add);
        int ref = 0;
        if (variable.children() > 0 && variable.varobj().isPresent()) {
            ref = session.newHandle();
            stop.variables.put(ref, new StopState.Children(variable.varobj().get()));
        }
        String expression = evaluateName;
        if (expression == null && variable.varobj().isPresent()) {
            expression = debuggee.debugger().pathExpression(variable.varobj().get()).orElse(null);
        }
        Variable dap = variable(variable, ref, expression);
        dap.setName(name);
        return dap;
    }

    static Variable variable(GdbVariable variable, int ref, String evaluateName) {
        Variable dap = new Variable();
        dap.setName(variable.name());
        dap.setValue(variable.value().orElse(variable.children() > 0 ? "{...}" : ""));
        dap.setType(variable.type().orElse(null));
        dap.setVariablesReference(ref);
        dap.setEvaluateName(evaluateName);
        return dap;
    }
}
