package dev.jompd.core.ompd;

import java.util.OptionalLong;

/**
 * Handles of the current stop rebuilt from their identity (runtime addresses, gtid): for a client whose
 * handles outlive stops, as the standard's do (module libompd keeps each handle as its identity and rebuilds
 * it here on every call, after the stop the previous call read has ended).
 */
public final class HandleIdentities {
    private HandleIdentities() {}

    /** The thread whose {@code kmp_base_info_t} is at {@code base}; {@code gtid} negative when unknown. */
    public static ThreadHandle thread(AddressSpaceHandle space, long base, long gtid) {
        return new ThreadHandle(space.stop(), base, gtid < 0 ? OptionalLong.empty() : OptionalLong.of(gtid));
    }

    public static ParallelHandle parallel(AddressSpaceHandle space, long team, long lightweight) {
        return new ParallelHandle(space.stop(), team, lightweight);
    }

    public static TaskHandle task(AddressSpaceHandle space, long taskdata, long lightweight) {
        return new TaskHandle(space.stop(), taskdata, lightweight);
    }

    /** {@code __kmp_threads[gtid]->th}, or 0 when that slot is empty. */
    public static long threadBase(AddressSpaceHandle space, long gtid) {
        // libomp: __kmp_threads[gtid]->th, read as two words (not the whole table)
        long array = space.global("__kmp_threads", null).pointerValue();
        if (array == 0) {
            return 0;
        }
        long info = space.memory().readUnsigned(array + gtid * space.memory().architecture().pointerSize(),
                space.memory().architecture().pointerSize());
        return info == 0 ? 0 : Ompd.infoToBase(space, info);
    }

    /** {@code __kmp_threads_capacity}. */
    public static long threadCapacity(AddressSpaceHandle space) {
        return space.global("__kmp_threads_capacity", null).asLong(space.layout()
                .symbolSize("__kmp_threads_capacity").orElse(space.layout().typeSize("int")));
    }

    /** The size of a runtime type, from its breadcrumb. */
    public static long typeSize(AddressSpaceHandle space, String type) {
        return space.layout().typeSize(type);
    }
}
