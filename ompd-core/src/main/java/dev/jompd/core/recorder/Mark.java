package dev.jompd.core.recorder;

/**
 * A "mark" (command 64) or "snapshot" (command 65) the program sent with omp_control_tool.
 *
 * @param text the message given as {@code arg}; empty when arg was NULL (Fortran passes none)
 */
public record Mark(long sequence, long timeNanos, long threadSerial, long command, long modifier, String text) {
    public boolean isSnapshot() {
        return command == 65;
    }
}
