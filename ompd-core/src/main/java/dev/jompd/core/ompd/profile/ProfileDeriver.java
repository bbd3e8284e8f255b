package dev.jompd.core.ompd.profile;

import dev.jompd.core.elf.ByteView;
import dev.jompd.core.elf.ElfFile;
import dev.jompd.core.elf.ElfSymbol;
import dev.jompd.core.elf.SectionHeader;
import dev.jompd.core.memory.TargetMemory;
import dev.jompd.core.ompd.profile.RuntimeProfile.Breadcrumb;
import dev.jompd.core.ompd.profile.RuntimeProfile.Placement;
import dev.jompd.core.target.LoadedModule;
import dev.jompd.core.target.core.CoreFileAddressSpace;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Derives a {@link RuntimeProfile} from our own (unstripped) build of a libomp version and a core of a
 * process that ran on it with {@code OMP_DEBUG=enabled} (the breadcrumbs hold their values only after
 * start-up). Run by {@code scripts/derive-profiles.sh}:
 * {@code ProfileDeriver VERSION LIBOMP_SO CORE OUTPUT}.
 */
public final class ProfileDeriver {
    /** Every global jompd reads that is not a breadcrumb, and may be missing from a stripped file's .dynsym. */
    public static final List<String> PROFILED_GLOBALS = List.of("ompd_dll_locations", "ompd_state", "ompd_env_block",
            "ompd_env_block_size", "__kmp_threads", "__kmp_threads_capacity", "__kmp_openmp_version",
            "__kmp_all_nth", "__kmp_nested_nth", "__kmp_nested_proc_bind", "__kmp_stksize", "__kmp_omp_cancellation",
            "__kmp_max_task_priority", "__kmp_display_affinity", "__kmp_tool", "__kmp_avail_proc", "__kmp_static",
            "__kmp_library", "__kmp_target_offload", "__kmp_def_allocator", "__kmp_nteams",
            "__kmp_teams_thread_limit", "__kmp_affinity_format", "__kmp_tool_libraries", "__kmp_tool_verbose_init",
            "__kmp_i_lock_table", "__kmp_affin_mask_size", "__kmp_affinity", "__kmp_affinity_masks",
            "__kmp_affinity_num_masks", "_ZTVN17KMPNativeAffinity4MaskE");
    /** Globals defined beside the breadcrumbs (libomp's ompd-specific.cpp): the block is their anchor. */
    static final List<String> BREADCRUMB_UNIT_GLOBALS = List.of("ompd_dll_locations", "ompd_state", "ompd_env_block",
            "ompd_env_block_size");
    /**
     * Globals no exported symbol shares a section with and whose file bytes are relocations (zeros), so neither
     * anchors nor a file signature place them: placed from the breadcrumb block too, a distance of our build that
     * another build need not keep. Believed only by content that could be nothing else (a place mask's vtable:
     * the masks' own vtable pointers must point into it).
     */
    static final List<String> BREADCRUMB_DISTANCE_GLOBALS = List.of("_ZTVN17KMPNativeAffinity4MaskE");
    private static final int ANCHORS_PER_GLOBAL = 4;
    /** Exported anchors closer than this are one cluster (kmp_a_debug .. kmp_f_debug). */
    private static final int ANCHOR_CLUSTER = 64;
    /** Bytes of context on each side of a global in its file signature. */
    private static final int SIGNATURE_MARGIN = 32;

    private ProfileDeriver() {}

    public static void main(String[] args) throws IOException {
        if (args.length != 4) {
            System.err.println("usage: ProfileDeriver VERSION LIBOMP_SO CORE OUTPUT");
            System.exit(2);
        }
        RuntimeProfile profile = derive(args[0], Path.of(args[1]), Path.of(args[2]));
        Files.writeString(Path.of(args[3]), profile.format());
        System.err.println("profile libomp " + profile.version() + ": " + profile.breadcrumbs().size()
                + " breadcrumbs, " + profile.globals().size() + " globals placed -> " + args[3]);
    }

    public static RuntimeProfile derive(String version, Path libomp, Path core) throws IOException {
        try (ElfFile elf = ElfFile.open(libomp); CoreFileAddressSpace target = CoreFileAddressSpace.open(core)) {
            String fileName = libomp.getFileName().toString();
            LoadedModule module = target.modules().stream()
                    .filter(m -> m.path().getFileName().toString().equals(fileName)).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException(core + " has no module " + fileName + " mapped"));
            if (!module.buildId().equals(elf.buildId())) {
                throw new IllegalArgumentException(core + " ran another " + fileName + " than " + libomp);
            }
            TargetMemory memory = new TargetMemory(target);
            List<ElfSymbol> crumbs = elf.symbolTable().all().stream()
                    .filter(s -> s.name().matches("ompd_(access|sizeof|bitfield)__.*") && s.type() == ElfSymbol.STT_OBJECT)
                    .toList();
            if (crumbs.isEmpty()) {
                throw new IllegalArgumentException(libomp + " has no OMPD breadcrumbs in .symtab");
            }
            long base = crumbs.stream().mapToLong(ElfSymbol::value).min().orElseThrow();
            List<Breadcrumb> breadcrumbs = new ArrayList<>();
            for (ElfSymbol crumb : crumbs) {
                long value = memory.readUnsigned(module.loadBias() + crumb.value(), 8);
                breadcrumbs.add(new Breadcrumb(crumb.name(), crumb.value() - base, value));
            }
            if (breadcrumbs.stream().allMatch(b -> b.value() == 0)) {
                throw new IllegalArgumentException("the breadcrumbs in " + core + " are all zero: libomp not initialised");
            }
            List<ElfSymbol> anchors = elf.dynamicSymbolTable().all().stream()
                    .filter(s -> s.isDefined() && !s.isAbsolute() && s.type() == ElfSymbol.STT_OBJECT && !s.name().isEmpty())
                    .toList();
            Map<String, List<Placement>> globals = new LinkedHashMap<>();
            Map<String, RuntimeProfile.FileSignature> signatures = new LinkedHashMap<>();
            long highestAddress = elf.programHeaders().stream().mapToLong(h -> h.virtualAddress() + h.memorySize()).max().orElse(0);
            for (String name : PROFILED_GLOBALS) {
                Optional<ElfSymbol> global = elf.symbolTable().lookup(name);
                if (global.isEmpty()) {
                    continue; // this version has no such global: the profile says nothing of it
                }
                List<Placement> placements = new ArrayList<>();
                Optional<RuntimeProfile.FileSignature> signature = fileSignature(elf, global.get(), highestAddress);
                if (signature.isPresent()) {
                    signatures.put(name, signature.get());
                    placements.add(new Placement(RuntimeProfile.FILE_SIGNATURE_ANCHOR, 0));
                }
                if (BREADCRUMB_UNIT_GLOBALS.contains(name) || BREADCRUMB_DISTANCE_GLOBALS.contains(name)) {
                    placements.add(new Placement(RuntimeProfile.BREADCRUMB_ANCHOR, global.get().value() - base));
                }
                // Initialised siblings found by their own file signatures: the same translation unit, most likely.
                for (String sibling : PROFILED_GLOBALS) {
                    Optional<ElfSymbol> other = elf.symbolTable().lookup(sibling);
                    if (!sibling.equals(name) && other.isPresent() && other.get().sectionIndex() == global.get().sectionIndex()
                            && fileSignature(elf, other.get(), highestAddress).isPresent()) {
                        placements.add(new Placement(sibling, global.get().value() - other.get().value()));
                    }
                }
                // Exported anchors of the same section, nearest first, one per cluster (anchors side by side
                // would only agree with each other).
                List<ElfSymbol> chosen = new ArrayList<>();
                anchors.stream().filter(a -> a.sectionIndex() == global.get().sectionIndex())
                        .sorted(Comparator.comparingLong(a -> Math.abs(a.value() - global.get().value())))
                        .forEach(a -> {
                            if (chosen.size() < ANCHORS_PER_GLOBAL
                                    && chosen.stream().noneMatch(c -> Math.abs(c.value() - a.value()) < ANCHOR_CLUSTER)) {
                                chosen.add(a);
                            }
                        });
                chosen.forEach(a -> placements.add(new Placement(a.name(), global.get().value() - a.value())));
                if (!placements.isEmpty()) {
                    globals.put(name, placements);
                }
            }
            return new RuntimeProfile(version, breadcrumbs, globals, signatures);
        }
    }

    /**
     * The file's bytes around an initialised global, pointer-like words (values inside the file's own
     * address range: relocated, so another build holds others) left open.
     */
    static Optional<RuntimeProfile.FileSignature> fileSignature(ElfFile elf, ElfSymbol global, long highestAddress) {
        if (global.sectionIndex() <= 0 || global.sectionIndex() >= elf.sectionHeaders().size()) {
            return Optional.empty();
        }
        SectionHeader section = elf.sectionHeaders().get(global.sectionIndex());
        if (!section.hasFileBytes() || global.size() <= 0) {
            return Optional.empty();
        }
        long start = Math.max(section.address(), global.value() - SIGNATURE_MARGIN);
        long end = Math.min(section.address() + section.size(), global.value() + global.size() + SIGNATURE_MARGIN);
        ByteView bytes = elf.sectionBytes(section);
        int[] pattern = new int[(int) (end - start)];
        for (int i = 0; i < pattern.length; i++) {
            pattern[i] = bytes.u8(start - section.address() + i);
        }
        for (long word = (start + 7) & ~7L; word + 8 <= end; word += 8) {
            long value = bytes.u64(word - section.address());
            if (value >= 0x1000 && value < highestAddress) {
                java.util.Arrays.fill(pattern, (int) (word - start), (int) (word - start) + 8, -1);
            }
        }
        return Optional.of(new RuntimeProfile.FileSignature(section.name(), (int) (global.value() - start), pattern));
    }
}
