package dev.jompd.core.ompd;

import dev.jompd.core.ompd.LockLayout.Member;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Where libomp keeps place-partition-var: each thread's {@code th_first_place} and {@code th_last_place} and the
 * place list they index ({@code __kmp_affinity.masks}, one {@code KMPNativeAffinity::Mask} per place). No OMPD
 * breadcrumb describes them and they move between versions, so they are data — the resource
 * {@code libomp-places.layout}, one group per layout, each checked against the DWARF of the versions it names by
 * PlacesLayoutIT — and a group is chosen by the breadcrumbs a runtime publishes about itself ({@link #groupFor}),
 * as {@link TeamsLayout}'s are. Values read through it are checked by their content ({@link Places}).
 *
 * @param groups        every layout group, in file order
 * @param maskSize      {@code __kmp_affin_mask_size}: the bytes of one place's bit set (0: affinity off)
 * @param maskType      the C++ class of a place's mask ({@code KMPNativeAffinity::Mask}), for the DWARF check
 * @param maskObject    the size of one mask object (the place list's stride)
 * @param maskBits      the mask object's pointer to its bit set
 * @param vtableSymbol  the mask class's vtable symbol
 * @param vtableOffset  how far into that symbol a mask's vtable pointer points (the vtable's address point)
 * @param wordSize      the size of one word of a bit set ({@code mask_t})
 */
public record PlacesLayout(List<Group> groups, Global maskSize, String maskType, long maskObject, Member maskBits,
                           String vtableSymbol, long vtableOffset, int wordSize) {
    private static final String RESOURCE = "libomp-places.layout";

    /** A global, or a member of a global struct: {@code SYMBOL OFFSET SIZE}. */
    public record Global(String symbol, long offset, int size) {
        static Global parse(String text) {
            String[] parts = text.split("\\s+");
            return new Global(parts[0], Long.parseLong(parts[1]), Integer.parseInt(parts[2]));
        }
    }

    /**
     * One layout of the partition members and the place list.
     *
     * @param dwarf gdb's expression for each global ({@code num_masks}, {@code masks}), for PlacesLayoutIT
     */
    public record Group(String name, List<String> versions, Map<String, Long> where, Member firstPlace,
                        Member lastPlace, Global numMasks, Global masks, Map<String, String> dwarf) {}

    /** The layout shipped in this jar. */
    public static PlacesLayout shipped() {
        return Shipped.LAYOUT;
    }

    private static final class Shipped {
        static final PlacesLayout LAYOUT = parse(LayoutData.shipped(RESOURCE));
    }

    /** Parses the layout file's text (java.util.Properties). */
    public static PlacesLayout parse(String text) {
        LayoutData data = LayoutData.parse(text);
        List<Group> groups = new ArrayList<>();
        for (LayoutData.Group group : data.groups("places layout")) {
            Member first = group.members().get("kmp_base_info_t.th_first_place");
            Member last = group.members().get("kmp_base_info_t.th_last_place");
            String numMasks = group.values().get("global.num_masks");
            String masks = group.values().get("global.masks");
            if (first == null || last == null || numMasks == null || masks == null) {
                throw new IllegalArgumentException("places layout group " + group.name()
                        + " without th_first_place, th_last_place, global.num_masks or global.masks");
            }
            groups.add(new Group(group.name(), group.versions(), group.where(), first, last, Global.parse(numMasks),
                    Global.parse(masks), Map.of("num_masks", group.values().getOrDefault("dwarf.num_masks", ""),
                    "masks", group.values().getOrDefault("dwarf.masks", ""))));
        }
        Member bits = data.members().get("native_mask.mask");
        if (bits == null) {
            throw new IllegalArgumentException("places layout without field.native_mask.mask");
        }
        String[] vtable = data.value("vtable.native_mask").split("\\s+");
        return new PlacesLayout(List.copyOf(groups), Global.parse(data.value("global.mask_size")),
                data.value("type.native_mask"), Long.parseLong(data.value("size.native_mask")), bits, vtable[0],
                Long.parseLong(vtable[1]), Integer.parseInt(data.value("size.mask_t")));
    }

    /**
     * The group whose breadcrumbed members sit where this runtime's breadcrumbs place them.
     *
     * @throws OmpdException {@code unsupported} when no group fits (a libomp whose layout no group was checked
     *                       against): place-partition-var is then not read
     */
    public Group groupFor(RuntimeLayout layout) {
        List<String> misses = new ArrayList<>();
        for (Group group : groups) {
            Optional<String> miss = LayoutData.misfit(group.where(), layout);
            if (miss.isEmpty()) {
                return group;
            }
            misses.add(group.name() + " (" + String.join(" ", group.versions()) + "): " + miss.get());
        }
        throw new OmpdException(OmpdRc.UNSUPPORTED, "this libomp lays its threads out as no version jompd was checked "
                + "against, so where it keeps each thread's th_first_place and th_last_place is not known ("
                + String.join("; ", misses) + ")");
    }
}
