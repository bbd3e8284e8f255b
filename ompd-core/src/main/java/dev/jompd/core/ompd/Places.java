package dev.jompd.core.ompd;

import dev.jompd.core.memory.TargetMemory;
import dev.jompd.core.ompd.LockLayout.Member;
import dev.jompd.core.target.MemoryReadException;
import dev.jompd.core.target.TargetSymbol;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * place-partition-var of a thread, read where libomp keeps it ({@link PlacesLayout}): the places
 * {@code th_first_place..th_last_place} of the place list (past the last place and on from place 0 when first >
 * last), each shown by its processors in the OMP_PLACES form, then their numbers:
 * {@code {0,1},{2,3} (places 0,1 of 2)} — what {@code omp_get_partition_place_nums()} and
 * {@code omp_get_place_proc_ids()} give the thread. A value is believed only when it fits: the partition lies
 * inside the place list and each place is a native mask (its vtable pointer is that class's).
 */
final class Places {
    /** More places than any machine has: a larger count is memory that is not libomp's place list. */
    private static final long MAX_PLACES = 1 << 16;
    /** A mask of more bytes than 2^20 processors need is not libomp's. */
    private static final long MAX_MASK_BYTES = 1 << 17;

    private Places() {}

    /** ompd_get_icv_string_from_scope of place-partition-var for {@code thread}. */
    static String partition(ThreadHandle thread) {
        AddressSpaceHandle space = thread.space();
        PlacesLayout places = PlacesLayout.shipped();
        PlacesLayout.Group group = places.groupFor(space.layout());
        try {
            long maskSize = global(space, places.maskSize(), "the size of its places' masks");
            if (maskSize == 0) {
                // KMP_AFFINITY_CAPABLE() is false: omp_get_partition_num_places() answers 0
                return "no places (libomp's affinity is off: KMP_AFFINITY=disabled, or no affinity support here)";
            }
            if (maskSize < 0 || maskSize > MAX_MASK_BYTES || maskSize % places.wordSize() != 0) {
                throw new OmpdException(OmpdRc.UNAVAILABLE, "libomp's mask size " + maskSize + " is no mask size "
                        + "(memory corrupt)");
            }
            long first = member(thread, "th_first_place", group.firstPlace());
            long last = member(thread, "th_last_place", group.lastPlace());
            if (first < 0 || last < 0) {
                return "no places (libomp has given this thread no place partition)";
            }
            long count = global(space, group.numMasks(), "the number of its places");
            if (count > MAX_PLACES || first >= count || last >= count) {
                throw new OmpdException(OmpdRc.UNAVAILABLE, "th_first_place " + first + " and th_last_place " + last
                        + " are not places of libomp's " + count + " (memory corrupt)");
            }
            List<Long> numbers = new ArrayList<>();
            for (long p = first; numbers.size() < count; p = (p + 1) % count) {
                numbers.add(p);
                if (p == last) {
                    break;
                }
            }
            long list = global(space, group.masks(), "its place list");
            long vtable = space.layout().symbol(places.vtableSymbol()).map(TargetSymbol::address)
                    .orElseThrow(() -> new OmpdException(OmpdRc.UNAVAILABLE, "libomp's place masks cannot be "
                            + "checked: this runtime (read by " + space.layout().reading() + ") does not give the "
                            + "vtable of their class, " + places.maskType()))
                    + places.vtableOffset();
            StringBuilder text = new StringBuilder();
            for (long place : numbers) {
                text.append(text.isEmpty() ? "" : ",").append(processors(space.memory(), places, list, place,
                        maskSize, vtable));
            }
            List<String> names = numbers.stream().map(String::valueOf).toList();
            return text + " (place" + (numbers.size() == 1 ? " " : "s ") + String.join(",", names) + " of " + count + ")";
        } catch (MemoryReadException e) {
            throw new OmpdException(OmpdRc.UNAVAILABLE, "libomp's place list could not be read: " + e.getMessage(),
                    OptionalLong.of(e.address()), e);
        }
    }

    /** One place's processors, {@code {0,1}}, from its mask object in the place list. */
    private static String processors(TargetMemory memory, PlacesLayout places, long list, long place, long maskSize,
                                     long vtable) {
        long object = list + place * places.maskObject();
        long pointer = memory.readPointer(object);
        if (pointer != vtable) {
            throw new OmpdException(OmpdRc.UNAVAILABLE, "place " + place + "'s mask is not a " + places.maskType()
                    + " (its vtable pointer is 0x" + Long.toHexString(pointer) + "): libomp uses another affinity "
                    + "layer (hwloc), or memory is corrupt");
        }
        long bits = memory.readPointer(object + places.maskBits().offset());
        byte[] mask = memory.read(bits, (int) maskSize);
        StringBuilder text = new StringBuilder("{");
        for (int processor = 0; processor < mask.length * 8; processor++) {
            // mask_t words, little-endian: bit b of byte k is processor 8k + b
            if ((mask[processor / 8] >> (processor % 8) & 1) != 0) {
                text.append(text.length() > 1 ? "," : "").append(processor);
            }
        }
        return text.append('}').toString();
    }

    private static long member(ThreadHandle thread, String name, Member member) {
        return thread.th().field(name, member).asLong();
    }

    private static long global(AddressSpaceHandle space, PlacesLayout.Global global, String what) {
        TargetSymbol symbol = space.layout().symbol(global.symbol())
                .orElseThrow(() -> notFound(space, global.symbol(), what));
        return space.memory().readSigned(symbol.address() + global.offset(), global.size());
    }

    private static OmpdException notFound(AddressSpaceHandle space, String symbol, String what) {
        String opening = "libomp keeps " + what + " in " + symbol;
        return new OmpdException(OmpdRc.UNAVAILABLE, space.layout().whyAbsent(symbol).map(why -> opening + ": " + why)
                .orElse(opening + ", which jompd cannot find in this runtime (read by " + space.layout().reading() + ")"));
    }
}
