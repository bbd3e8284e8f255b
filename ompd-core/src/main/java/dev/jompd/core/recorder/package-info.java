/**
 * Reads what the jompd-recorder (the OMPT tool in {@code recorder/} of this repository) recorded in a
 * target: each thread's recent OpenMP events, the mutexes each thread holds or waits for, the
 * runtime's answers to the tool's callback registrations, omp_control_tool commands and marks, and
 * device activity. {@link dev.jompd.core.recorder.Recorder#find} is the entry point; the recorder's
 * layout comes from its own self-description (the exported {@code jompd_recorder_descriptor}), never
 * from offsets hard-coded here.
 */
package dev.jompd.core.recorder;
