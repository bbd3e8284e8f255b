package dev.jompd.core.recorder;

/** The target's recorder describes itself with a layout version this jompd does not know. */
public final class UnsupportedRecorderVersionException extends RecorderFormatException {
    private final long version;

    public UnsupportedRecorderVersionException(long version, long address) {
        super("the jompd-recorder in the target has layout version %d; this jompd reads versions %d to %d only: use the jompd release that shipped this recorder"
                .formatted(version, RecorderLayout.OLDEST_KNOWN_VERSION, RecorderLayout.KNOWN_VERSION), address);
        this.version = version;
    }

    public long version() {
        return version;
    }
}
