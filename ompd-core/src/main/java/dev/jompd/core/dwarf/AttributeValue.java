package dev.jompd.core.dwarf;

/**
 * One attribute's value as read from {@code .debug_info}, by what the reader kept of it: a number (constants,
 * flags, addresses and indexes, offsets and references, all still in their form's terms: an {@code addrx}
 * is an index until {@link DebugInfoReader#address} resolves it), an inline string, or a block whose bytes
 * were stepped over. The form says how to resolve it.
 */
sealed interface AttributeValue {
    /** The form ({@code DW_FORM_*}) the value was written in, after any {@code DW_FORM_indirect}. */
    int form();

    /** A number of any form: constant, flag, address or index, section offset, unit-relative reference. */
    record Number(int form, long value) implements AttributeValue {}

    /** An inline string ({@code DW_FORM_string}); empty when the reader was told not to keep it. */
    record InlineString(int form, String text) implements AttributeValue {}

    /** A block or expression ({@code DW_FORM_block*}, {@code exprloc}, {@code data16}): its bytes skipped. */
    record Block(int form) implements AttributeValue {}

    /**
     * The number, or {@code otherwise} for an absent value or a string; a block counts as 0 (as this
     * reader has always read it: its bytes are not kept).
     */
    static long number(AttributeValue value, long otherwise) {
        return switch (value) {
            case Number number -> number.value();
            case Block block -> 0;
            case null, default -> otherwise;
        };
    }
}
