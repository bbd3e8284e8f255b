package dev.jompd.report;

import dev.jompd.core.ompd.IcvReading;
import dev.jompd.core.ompd.ThreadState;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/** Small spellings every rendering shares: hex addresses, OMPT state names, number ranges. */
public final class Text {
    private static final String STATE_PREFIX = "ompt_state_";

    private Text() {}

    public static String hex(long value) {
        return "0x" + Long.toHexString(value);
    }

    /** {@code ompt_state_wait_barrier_implicit} → {@code wait_barrier_implicit}. */
    public static String shortState(ThreadState state) {
        return state.cName().substring(STATE_PREFIX.length());
    }

    /**
     * A thread's state as OMPT names it, {@code ompt_state_wait_barrier_implicit}, or {@code unknown state
     * 0x…} for a code OMPT does not define, or {@code not tracked} when libomp does not track states (the
     * picture's notice says why, once).
     */
    public static String stateName(OpenMpPicture.OpenMpThread thread) {
        return thread.state().map(ThreadState::cName).orElseGet(() -> notAState(thread.stateCode()));
    }

    /**
     * A thread's state from its OMPT code ({@code stateCode}: empty where libomp does not track states) in short,
     * {@code wait_barrier_implicit}, else as {@link #stateName} says it: {@code unknown state 0x…}, {@code not tracked}.
     */
    public static String shortStateName(OptionalLong stateCode) {
        return stateCode.isPresent() ? ThreadState.of(stateCode.getAsLong()).map(Text::shortState)
                .orElseGet(() -> notAState(stateCode)) : notAState(stateCode);
    }

    private static String notAState(OptionalLong stateCode) {
        return stateCode.isPresent() ? "unknown state 0x" + Long.toHexString(stateCode.getAsLong()) : OpenMpPicture.NOT_TRACKED;
    }

    /** An ICV that could not be read, in the text views: {@code (not read: why)}. */
    static String notRead(IcvReading.Failed failed) {
        return "(not read: " + failed.why() + ")";
    }

    /** An ICV's value, or {@code <not read: why>} (jompd-inspect/1: the angle brackets mark a value not read). */
    public static String icv(IcvReading reading) {
        return switch (reading) {
            case IcvReading.Value value -> value.text();
            case IcvReading.Failed failed -> "<not read: " + failed.why() + ">";
        };
    }

    /** 0,12,13,14 → "0,12-14"; long lists are cut after 12 runs, with the count. */
    public static String ranges(List<Long> values) {
        List<String> parts = new ArrayList<>();
        for (int i = 0; i < values.size(); ) {
            int j = i;
            while (j + 1 < values.size() && values.get(j + 1) == values.get(j) + 1) {
                j++;
            }
            parts.add(j > i ? values.get(i) + "-" + values.get(j) : Long.toString(values.get(i)));
            i = j + 1;
        }
        return parts.size() <= 12 ? String.join(",", parts)
                : String.join(",", parts.subList(0, 12)) + ",… (" + values.size() + ")";
    }

    /** An empty string shown as {@code ""}, so that "set to nothing" never looks like "not shown". */
    public static String quotedIfEmpty(String value) {
        return value.isEmpty() ? "\"\"" : value;
    }

    /**
     * A task's flags in words, the same in every door: {@code explicit, untied, final, undeferred, started,
     * executing}. libomp marks every implicit task {@code task_serial} ("executed immediately"), which is no news
     * for an implicit task and read as "serialized" misleads: it is said as {@code undeferred} for explicit tasks
     * only; {@code team_serial} is a serialized team.
     */
    public static String taskFlags(dev.jompd.core.ompd.TaskHandle.TaskFlags flags) {
        List<String> words = new ArrayList<>();
        words.add(flags.explicit() ? "explicit" : "implicit");
        words.add(flags.tied() ? "tied" : "untied");
        if (flags.isFinal()) words.add("final");
        if (flags.explicit() && flags.taskSerial()) words.add("undeferred");
        if (flags.teamSerial()) words.add("in a serialized team");
        if (flags.started()) words.add("started");
        if (flags.executing()) words.add("executing");
        if (flags.complete()) words.add("complete");
        return String.join(", ", words);
    }
}
