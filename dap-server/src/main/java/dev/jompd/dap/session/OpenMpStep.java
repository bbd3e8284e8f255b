package dev.jompd.dap.session;

import dev.jompd.dap.mi.MiValue;

/** A client's step that may take several gdb moves ({@link OpenMpStepIn}, {@link OpenMpStepOver}). */
interface OpenMpStep {
    /**
     * Decides at a stop: moves on (true: another gdb command is running) or ends the step (false: the stop
     * is the client's, told as usual).
     */
    boolean movesOn(String reason, MiValue.Tuple results);
}
