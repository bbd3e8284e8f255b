package dev.jompd.core.ompd;

/**
 * What an OMPT tool attached to a thread, parallel region or task ({@code ompt_data_t}, a union of a
 * 64-bit value and a pointer): both views, as ompd_get_tool_data returns them.
 */
public record ToolData(long value, long pointer) {
    // equals and hashCode written out: a record's generated ones are bootstrapped at first use (cold start)
    @Override
    public boolean equals(Object other) {
        return other instanceof ToolData t && value == t.value && pointer == t.pointer;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(value) * 31 + Long.hashCode(pointer);
    }

    static ToolData read(RemoteValue data) {
        return new ToolData(data.field("ompt_data_t", "value").asUnsigned(),
                data.field("ompt_data_t", "ptr").pointerValue());
    }
}
