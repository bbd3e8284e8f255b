package dev.jompd.core.ompd;

/**
 * One ICV as a snapshot read it: its value in OMPD's string form, or the return code that says why it
 * could not be read. Renderers decide how to show a failure; nobody parses one back out of a string.
 */
public sealed interface IcvReading {
    /** The value, in the string form OMPD's {@code ompd_get_icv_string_from_scope} gives. */
    record Value(String text) implements IcvReading {}

    /** Why the ICV could not be read: OMPD's return code (for tools) and the reason in words (for users). */
    record Failed(OmpdRc rc, String why) implements IcvReading {}
}
