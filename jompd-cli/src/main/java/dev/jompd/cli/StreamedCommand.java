package dev.jompd.cli;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.concurrent.Callable;

/**
 * A command that {@link DirectCommandLine} may read and run without picocli's model: its output and error streams
 * are picocli's, or the ones it was given.
 */
abstract class StreamedCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    /** The streams when {@link DirectCommandLine} read the command line (no picocli model, so no {@link #spec}). */
    PrintWriter directOut;
    PrintWriter directErr;

    PrintWriter out() {
        return spec != null ? spec.commandLine().getOut() : directOut;
    }

    PrintWriter err() {
        return spec != null ? spec.commandLine().getErr() : directErr;
    }
}
