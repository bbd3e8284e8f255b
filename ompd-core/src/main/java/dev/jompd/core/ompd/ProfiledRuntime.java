package dev.jompd.core.ompd;

import dev.jompd.core.elf.ElfFile;
import dev.jompd.core.elf.SectionHeader;
import dev.jompd.core.memory.TargetMemory;
import dev.jompd.core.ompd.profile.RuntimeProfile;
import dev.jompd.core.ompd.profile.RuntimeProfile.AnchorKind;
import dev.jompd.core.ompd.profile.RuntimeProfile.Breadcrumb;
import dev.jompd.core.ompd.profile.RuntimeProfile.Placement;
import dev.jompd.core.target.AddressSpace;
import dev.jompd.core.target.LoadedModule;
import dev.jompd.core.target.MemoryReadException;
import dev.jompd.core.target.TargetException;
import dev.jompd.core.target.TargetSymbol;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A stripped OMPD-enabled libomp read through a {@link RuntimeProfile}: the breadcrumb block found in the
 * runtime's writable memory by its values (all of them must match, so the block is validated by being
 * found), and every other global placed from an anchor the stripped file still exports, used only once
 * its content passes that global's check ({@link ProfiledGlobalChecks}). A global no placement validates is
 * absent, with the reason kept for the message; a wrong value is never used.
 */
final class ProfiledRuntime {
    private static final Pattern LIBOMP_FILE = Pattern.compile("lib(i?omp)[-.0-9]*\\.so.*");
    private static final Pattern MAJOR_IN_PATH = Pattern.compile("(?:llvm-|libomp-)(\\d+)");
    /**
     * Where the breadcrumb block was found in each runtime build read through each profile, from the module's
     * load bias: a second open of the same runtime (another core, the next stop) skips the scan. Process-wide
     * on purpose and never cleared: it holds offsets within a build's file, true of every process that loads
     * that build, and an entry is used only once the breadcrumbs there match again.
     */
    private static final Map<BuildAndProfile, Long> BLOCK_OFFSETS = new ConcurrentHashMap<>();
    private static final int SCAN_CHUNK = 1 << 16;
    /**
     * How much of one writable range is scanned for the breadcrumb block. libomp's .data and .bss are well
     * under a MiB; a range larger than this is another library's or corrupt headers, and scanning all of it
     * would cost seconds. A range cut short is named in the failure message.
     */
    static final int MAX_SCAN_BYTES = 64 << 20;

    /** A runtime build (its ELF build-id) read through one profile version. */
    private record BuildAndProfile(String buildId, String profileVersion) {}

    private final AddressSpace target;
    private final TargetMemory memory;
    private final LoadedModule module;
    private final RuntimeProfile profile;
    private final long blockAddress;
    private final Map<String, Long> breadcrumbs = new HashMap<>();
    // Placing a global may place others (the thread array's check needs its capacity): one lock, this
    // object's, guards all of the following, held for a whole placement.
    private final Map<String, Optional<TargetSymbol>> globals = new HashMap<>();
    private final Map<String, String> unavailable = new HashMap<>();
    private final Map<String, Placement> placedBy = new HashMap<>();
    /** Globals being placed now, up the call chain: their placements are skipped as anchors (no cycles). */
    private final Set<String> inProgress = new java.util.HashSet<>();
    private RuntimeLayout layout;

    private ProfiledRuntime(AddressSpace target, TargetMemory memory, LoadedModule module, RuntimeProfile profile,
                            long blockAddress) {
        this.target = target;
        this.memory = memory;
        this.module = module;
        this.profile = profile;
        this.blockAddress = blockAddress;
        for (Breadcrumb breadcrumb : profile.breadcrumbs()) {
            breadcrumbs.put(breadcrumb.name(), blockAddress + breadcrumb.offset());
        }
    }

    /** The loaded module that looks like libomp (by its file name), if any. */
    static Optional<LoadedModule> libompModule(AddressSpace target) {
        return target.modules().stream()
                .filter(m -> m.path().getFileName() != null && LIBOMP_FILE.matcher(m.path().getFileName().toString()).matches())
                .findFirst();
    }

    /** Where a module's path names a libomp version ({@code llvm-19} of {@code /usr/lib/llvm-19/lib/libomp.so.5}): a hint only. */
    record PathHint(String text, String major) {}

    /** The last version a module's path names ({@code /usr/lib/llvm-19/lib/libomp.so.5}, {@code libomp-16.so.5}). */
    static Optional<PathHint> pathHint(LoadedModule module) {
        Matcher matcher = MAJOR_IN_PATH.matcher(module.path().toString());
        Optional<PathHint> last = Optional.empty();
        while (matcher.find()) {
            last = Optional.of(new PathHint(matcher.group(), Integer.toString(Integer.parseInt(matcher.group(1)))));
        }
        return last;
    }

    /**
     * The runtime read through the profile chosen for it, and what a reader should know about that choice
     * (the path named another version; other profiles fit as well), if anything.
     */
    record Choice(ProfiledRuntime runtime, Optional<String> note) {}

    /**
     * Reads the stripped runtime in {@code module} through the profile that fits it. A profile fits when its
     * breadcrumb block is in the runtime's memory and its placements of {@code requiredGlobals} pass their
     * content checks; several versions share one block (19 to 23), so the block alone does not choose, and
     * the version the path names is a hint only. Every profile is tried. When one fits, it is taken; when
     * several do, the path's version is taken if every one of its placements checks out, else the one that
     * places the most globals (the path's version, then the newest, among equals). Where equals place a global
     * at different addresses, that global is withheld (never a value that may be wrong), and the choice's note
     * says so.
     *
     * @param attachLayout gives a candidate the layout its checks read offsets through
     * @throws OmpdException {@code incompatible} when no profile fits, {@code unavailable} when libomp has
     *                       not initialised yet
     */
    static Choice choose(AddressSpace target, TargetMemory memory, LoadedModule module, List<RuntimeProfile> profiles,
                         List<String> requiredGlobals, Consumer<ProfiledRuntime> attachLayout) {
        Optional<PathHint> hint = pathHint(module);
        String hintedMajor = hint.map(PathHint::major).orElse(null);
        List<RuntimeProfile> ordered = new ArrayList<>(profiles.stream().filter(p -> p.majorVersion().equals(hintedMajor)).toList());
        profiles.stream().filter(p -> !p.majorVersion().equals(hintedMajor)).forEach(ordered::add);
        List<WritableRange> writable = writableRanges(module, target.moduleFile(module).orElse(module.path()));
        if (writable.isEmpty()) {
            throw new OmpdException(OmpdRc.INCOMPATIBLE, "cannot read the section headers of " + module.path()
                    + " to find its writable memory: no runtime profile can be applied");
        }
        List<String> cutShort = new ArrayList<>();
        Map<List<Breadcrumb>, OptionalLong> blocks = new HashMap<>(); // versions sharing a block: one scan
        List<ProfiledRuntime> fitting = new ArrayList<>();
        Map<String, String> misfits = new LinkedHashMap<>();
        for (RuntimeProfile profile : ordered) {
            OptionalLong block = blocks.computeIfAbsent(profile.breadcrumbs(),
                    crumbs -> knownOrFoundBlock(target, memory, module, writable, profile, cutShort));
            if (block.isEmpty()) {
                continue;
            }
            module.buildId().ifPresent(id -> BLOCK_OFFSETS.put(new BuildAndProfile(id, profile.version()),
                    block.getAsLong() - module.loadBias()));
            ProfiledRuntime runtime = new ProfiledRuntime(target, memory, module, profile, block.getAsLong());
            attachLayout.accept(runtime);
            Optional<String> misfit = requiredGlobals.stream().filter(global -> runtime.symbol(global).isEmpty()).findFirst()
                    .map(global -> runtime.whyUnavailable(global).orElse(global + " is not placed"));
            if (misfit.isPresent()) {
                misfits.put(profile.version(), misfit.get());
                continue;
            }
            fitting.add(runtime);
        }
        if (fitting.isEmpty()) {
            throw noneFits(target, memory, module, ordered, hint, misfits, cutShort);
        }
        List<String> notes = new ArrayList<>();
        ProfiledRuntime chosen = fitting.getFirst();
        boolean pathsVersion = chosen.profile().majorVersion().equals(hintedMajor);
        if (fitting.size() > 1 && !(pathsVersion && chosen.placeEveryGlobal() == chosen.profile().globals().size())) {
            Map<ProfiledRuntime, Integer> placed = new HashMap<>();
            fitting.forEach(runtime -> placed.put(runtime, runtime.placeEveryGlobal()));
            int most = placed.values().stream().max(Integer::compare).orElseThrow();
            List<ProfiledRuntime> best = fitting.stream().filter(runtime -> placed.get(runtime) == most).toList();
            chosen = best.getFirst();
            if (best.size() > 1) {
                boolean pathDecides = chosen.profile().majorVersion().equals(hintedMajor);
                equallyFitting(chosen, best.subList(1, best.size()), pathDecides).ifPresent(notes::add);
            }
        }
        String chosenMajor = chosen.profile().majorVersion();
        hint.filter(h -> !h.major().equals(chosenMajor)).ifPresent(h -> notes.addFirst("its path names " + h.text()
                + (profiles.stream().anyMatch(p -> p.majorVersion().equals(h.major()))
                ? ", but the profile of libomp " + h.major() + " does not fit its memory"
                : ", a version no runtime profile covers")));
        return new Choice(chosen, notes.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", notes)));
    }

    /**
     * The note on profiles that fit as well as the chosen one: they place every global alike (not worth a note
     * when the path's version decided among them), or the globals they place elsewhere are withheld from the
     * chosen one (which place is right cannot be told).
     */
    private static Optional<String> equallyFitting(ProfiledRuntime chosen, List<ProfiledRuntime> others, boolean pathDecides) {
        Set<String> disputed = new TreeSet<>();
        for (ProfiledRuntime other : others) {
            for (String global : chosen.profile().globals().keySet()) {
                Optional<TargetSymbol> mine = chosen.symbol(global);
                Optional<TargetSymbol> theirs = other.symbol(global);
                if (mine.isPresent() && theirs.isPresent() && mine.get().address() != theirs.get().address()) {
                    disputed.add(global);
                }
            }
        }
        String versions = String.join(" and ", others.stream().map(other -> other.profile().version()).toList());
        for (String global : disputed) {
            chosen.withhold(global, "the profiles of libomp " + chosen.profile().version() + " and " + versions
                    + " fit this runtime equally well but place " + global + " at different addresses, each of which "
                    + "passes its content check: which is right cannot be told, so it is not read");
        }
        if (disputed.isEmpty() && pathDecides) {
            return Optional.empty();
        }
        String verbEnding = others.size() > 1 ? "" : "s"; // they fit, it fits
        return Optional.of("the profile" + (others.size() > 1 ? "s" : "") + " of libomp " + versions + " fit" + verbEnding
                + " its memory as well, " + (disputed.isEmpty() ? "placing every global alike"
                : "but place" + verbEnding + " " + String.join(", ", disputed)
                + " elsewhere: not shown, as which place is right cannot be told"));
    }

    /** Why no profile fits: not initialised yet, no profile's breadcrumbs found, or no profile's placements validated. */
    private static OmpdException noneFits(AddressSpace target, TargetMemory memory, LoadedModule module,
                                          List<RuntimeProfile> ordered, Optional<PathHint> hint,
                                          Map<String, String> misfits, List<String> cutShort) {
        String advice = "install its debug file (or set DEBUGINFOD_URLS), or use a libomp built with "
                + "-DLIBOMP_OMPD_SUPPORT=ON that keeps its symbol table (scripts/build-runtime.sh)";
        String opening = "the OpenMP runtime " + module.path() + " has no symbol table, "
                + hint.filter(h -> ordered.stream().noneMatch(p -> p.majorVersion().equals(h.major())))
                .map(h -> "no runtime profile covers libomp " + h.major() + " (the version its path names, " + h.text()
                        + "), ").orElse("") + "and ";
        if (misfits.isEmpty()) {
            if (!ordered.isEmpty() && looksUninitialised(target, memory, module, ordered.getFirst())) {
                return new OmpdException(OmpdRc.UNAVAILABLE, "the OpenMP runtime in " + target.described() + " (" + module.path()
                        + ") is loaded but not initialised yet (no thread array, no OMPD breadcrumbs in its memory)");
            }
            return new OmpdException(OmpdRc.INCOMPATIBLE, opening + "the OMPD breadcrumbs of none of the profiled "
                    + "versions (libomp " + versions(ordered) + ") are in its memory: validation failed, it is another "
                    + "build or version"
                    + (cutShort.isEmpty() ? "" : " (writable ranges are scanned " + (MAX_SCAN_BYTES >> 20) + " MiB far, and "
                    + "these were longer: " + String.join(", ", cutShort.stream().distinct().toList()) + ")")
                    + "; " + advice);
        }
        // Versions sharing placements fail alike: each failure once, with the versions it is of.
        Map<String, List<String>> versionsByFailure = new LinkedHashMap<>();
        misfits.forEach((version, why) -> versionsByFailure.computeIfAbsent(
                why.replace("profile libomp " + version, "the profile"), failure -> new ArrayList<>()).add(version));
        StringBuilder details = new StringBuilder();
        versionsByFailure.forEach((why, versions) -> details.append(details.isEmpty() ? "" : "; ")
                .append("profile libomp ").append(String.join(", ", versions)).append(" failed validation: ").append(why));
        return new OmpdException(OmpdRc.INCOMPATIBLE, opening + "no runtime profile fits it: the OMPD breadcrumbs of "
                + "libomp " + String.join(", ", misfits.keySet()) + " are in its memory (several versions share them), "
                + "but where " + (misfits.size() > 1 ? "each of these profiles places" : "this profile places")
                + " the globals jompd needs (the thread array, __kmp_threads, with its capacity and count), what is there "
                + "does not check out against the process's own threads: its layout is not one jompd knows, and reading "
                + "it would show wrong threads; " + advice + ". What each place tried (anchor+offset = address) held: " + details);
    }

    /** The block where an earlier open of this build found it, if its breadcrumbs are still there; else scanned for. */
    private static OptionalLong knownOrFoundBlock(AddressSpace target, TargetMemory memory, LoadedModule module,
                                                  List<WritableRange> writable, RuntimeProfile profile, List<String> cutShort) {
        Long known = module.buildId().map(id -> BLOCK_OFFSETS.get(new BuildAndProfile(id, profile.version()))).orElse(null);
        return known != null && blockMatches(memory, module.loadBias() + known, profile)
                ? OptionalLong.of(module.loadBias() + known) : findBlock(target, writable, profile, cutShort);
    }

    /** Every exported-anchor placement of the thread array reads as null: libomp has not started yet. */
    private static boolean looksUninitialised(AddressSpace target, TargetMemory memory, LoadedModule module, RuntimeProfile profile) {
        String moduleName = module.path().getFileName().toString();
        boolean anyPlaced = false;
        for (Placement placement : profile.globals().getOrDefault("__kmp_threads", List.of())) {
            Optional<TargetSymbol> anchor = target.lookupSymbol(placement.anchor(), moduleName);
            if (anchor.isEmpty() || anchor.get().threadLocal()) {
                continue;
            }
            try {
                if (memory.readPointer(anchor.get().address() + placement.offset()) != 0) {
                    return false;
                }
                anyPlaced = true;
            } catch (TargetException e) {
                return false;
            }
        }
        return anyPlaced;
    }

    private static String versions(List<RuntimeProfile> profiles) {
        return String.join(", ", profiles.stream().map(RuntimeProfile::version).toList());
    }

    /**
     * One of the module's writable sections, relocated: [start, end), its bytes read once for every profile
     * looked for in it (of the block sizes at most {@link #MAX_SCAN_BYTES}).
     */
    private static final class WritableRange {
        private final long start;
        private final long end;
        private byte[] bytes;

        WritableRange(long start, long end) {
            this.start = (start + 7) & ~7L;
            this.end = end;
        }

        byte[] bytes(AddressSpace target) {
            if (bytes == null) {
                bytes = readWhatIsReadable(target, start, (int) Math.min(end - start, MAX_SCAN_BYTES));
            }
            return bytes;
        }
    }

    /** The module's writable sections ({@code .data} … {@code .bss}), relocated. */
    private static List<WritableRange> writableRanges(LoadedModule module, java.nio.file.Path file) {
        List<WritableRange> ranges = new ArrayList<>();
        try (ElfFile elf = ElfFile.open(file)) {
            for (SectionHeader section : elf.sectionHeaders()) {
                long allocWrite = SectionHeader.SHF_ALLOC | SectionHeader.SHF_WRITE;
                if ((section.flags() & allocWrite) == allocWrite && section.size() > 0 && section.address() != 0) {
                    ranges.add(new WritableRange(module.loadBias() + section.address(),
                            module.loadBias() + section.address() + section.size()));
                }
            }
        } catch (IOException | TargetException e) {
            return List.of();
        }
        return ranges;
    }

    /**
     * Scans the writable ranges for the place where every breadcrumb of the profile holds its value; a range
     * longer than {@link #MAX_SCAN_BYTES} is scanned that far, and its place and size added to {@code cutShort}.
     */
    private static OptionalLong findBlock(AddressSpace target, List<WritableRange> ranges, RuntimeProfile profile,
                                          List<String> cutShort) {
        List<Breadcrumb> crumbs = profile.breadcrumbs();
        long span = crumbs.getLast().offset() + 8;
        // The most telling breadcrumb first (a large, rare value), then all of them.
        Breadcrumb key = crumbs.stream().max((a, b) -> Long.compare(a.value(), b.value())).orElseThrow();
        for (WritableRange range : ranges) {
            long length = range.end - range.start;
            if (length < span) {
                continue;
            }
            if (length > MAX_SCAN_BYTES) {
                cutShort.add("the range at 0x" + Long.toHexString(range.start) + " (" + (length >> 20) + " MiB)");
            }
            byte[] bytes = range.bytes(target);
            ByteBuffer buffer = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
            for (long base = 0; base + span <= bytes.length; base += 8) {
                if (buffer.getLong((int) (base + key.offset())) != key.value()) {
                    continue;
                }
                boolean all = true;
                for (Breadcrumb crumb : crumbs) {
                    if (buffer.getLong((int) (base + crumb.offset())) != crumb.value()) {
                        all = false;
                        break;
                    }
                }
                if (all) {
                    return OptionalLong.of(range.start + base);
                }
            }
        }
        return OptionalLong.empty();
    }

    private static boolean blockMatches(TargetMemory memory, long base, RuntimeProfile profile) {
        try {
            for (Breadcrumb crumb : profile.breadcrumbs()) {
                if (memory.readUnsigned(base + crumb.offset(), 8) != crumb.value()) {
                    return false;
                }
            }
            return true;
        } catch (TargetException e) {
            return false;
        }
    }

    /** The range's bytes; chunks that cannot be read (pages a core left out) stay zero and never match. */
    private static byte[] readWhatIsReadable(AddressSpace target, long start, int length) {
        byte[] bytes = new byte[length];
        for (int offset = 0; offset < length; offset += SCAN_CHUNK) {
            int size = Math.min(SCAN_CHUNK, length - offset);
            try {
                target.read(start + offset, bytes, offset, size);
            } catch (MemoryReadException e) {
                // left zero
            }
        }
        return bytes;
    }

    void attach(RuntimeLayout layout) {
        this.layout = layout;
    }

    RuntimeProfile profile() {
        return profile;
    }

    String moduleName() {
        return module.path().getFileName().toString();
    }

    long blockAddress() {
        return blockAddress;
    }

    /**
     * Where the global's file signature sits in the runtime's file (found exactly once in its section),
     * relocated; empty when the profile has none or it is found nowhere or more than once.
     */
    private OptionalLong findInFile(String name) {
        RuntimeProfile.FileSignature signature = profile.signatures().get(name);
        if (signature == null) {
            return OptionalLong.empty();
        }
        try (ElfFile elf = ElfFile.open(target.moduleFile(module).orElse(module.path()))) {
            Optional<SectionHeader> section = elf.section(signature.section());
            if (section.isEmpty() || !section.get().hasFileBytes()) {
                return OptionalLong.empty();
            }
            byte[] bytes = elf.sectionBytes(section.get()).toByteArray();
            int[] pattern = signature.pattern();
            long found = -1;
            for (int at = 0; at + pattern.length <= bytes.length; at++) {
                int i = 0;
                while (i < pattern.length && (pattern[i] < 0 || (bytes[at + i] & 0xff) == pattern[i])) {
                    i++;
                }
                if (i == pattern.length) {
                    if (found >= 0) {
                        return OptionalLong.empty(); // twice: it places nothing
                    }
                    found = at;
                }
            }
            return found < 0 ? OptionalLong.empty()
                    : OptionalLong.of(module.loadBias() + section.get().address() + found + signature.globalOffset());
        } catch (IOException | TargetException e) {
            return OptionalLong.empty();
        }
    }

    /** The placement (anchor and offset) a global was found by, once validated. */
    synchronized Optional<Placement> placement(String name) {
        return Optional.ofNullable(placedBy.get(name));
    }

    /** Why a global is absent (no placement validated), when it was looked for. */
    synchronized Optional<String> whyUnavailable(String name) {
        return Optional.ofNullable(unavailable.get(name));
    }

    /** Places and validates every global the profile places (each once); answers how many passed. */
    synchronized int placeEveryGlobal() {
        int placed = 0;
        for (String name : profile.globals().keySet()) {
            if (symbol(name).isPresent()) {
                placed++;
            }
        }
        return placed;
    }

    /** Makes a global absent for {@code why}, wherever it was placed. */
    synchronized void withhold(String name, String why) {
        globals.put(name, Optional.empty());
        placedBy.remove(name);
        unavailable.put(name, why);
    }

    /** A breadcrumb or a validated global; empty (with the reason kept) when it cannot be placed or validated. */
    synchronized Optional<TargetSymbol> symbol(String name) {
        Long crumb = breadcrumbs.get(name);
        if (crumb != null) {
            return Optional.of(new TargetSymbol(name, crumb, 8, moduleName(), false));
        }
        // Not computeIfAbsent: a check may place other globals (the thread array needs its capacity).
        Optional<TargetSymbol> known = globals.get(name);
        if (known == null) {
            inProgress.add(name);
            try {
                known = placeAndValidate(name);
            } finally {
                inProgress.remove(name);
            }
            globals.put(name, known);
        }
        return known;
    }

    /** Where a placement's anchor is in this process; empty when it cannot be placed. */
    private OptionalLong anchorAddress(String name, Placement placement, AnchorKind kind) {
        return switch (kind) {
            case BREADCRUMB_BLOCK -> OptionalLong.of(blockAddress);
            case FILE_SIGNATURE -> findInFile(name);
            case PROFILED_GLOBAL -> symbol(placement.anchor()).map(s -> OptionalLong.of(s.address())).orElse(OptionalLong.empty());
            case EXPORTED_SYMBOL -> target.lookupSymbol(placement.anchor(), moduleName()).filter(s -> !s.threadLocal())
                    .map(s -> OptionalLong.of(s.address())).orElse(OptionalLong.empty());
        };
    }

    private Optional<TargetSymbol> placeAndValidate(String name) {
        List<Placement> placements = profile.globals().get(name);
        if (placements == null) {
            unavailable.put(name, "profile libomp " + profile.version() + " does not place " + name);
            return Optional.empty();
        }
        ProfiledGlobal global = ProfiledGlobal.named(name);
        ProfiledGlobal.Candidate candidate = new ProfiledGlobal.Candidate(memory, layout, this, target);
        List<String> failures = new ArrayList<>();
        // Exported-anchor placements of a global whose content check is weak (a flag, a small number) are
        // believed only when anchors of two clusters agree: one anchor's distance may have moved.
        Map<Long, List<Placement>> agreeing = new HashMap<>();
        for (Placement placement : placements) {
            if (inProgress.contains(placement.anchor())) {
                continue; // a sibling being placed itself: no cycles
            }
            AnchorKind kind = profile.anchorKind(placement);
            OptionalLong anchor = anchorAddress(name, placement, kind);
            if (anchor.isEmpty()) {
                failures.add(placement + (kind == AnchorKind.FILE_SIGNATURE
                        ? ": its file signature is not found once in " + moduleName() : ": anchor not placed"));
                continue;
            }
            long address = anchor.getAsLong() + placement.offset();
            Optional<String> failure;
            try {
                failure = global.check().at(address, candidate);
            } catch (TargetException | OmpdException e) {
                failure = Optional.of(OmpdException.words(e));
            }
            if (failure.isPresent() && global.slack().bytes() > 0) {
                // Moved a few words in this build: believed only where exactly one place nearby confirms itself
                List<Long> confirmed = new ArrayList<>();
                for (long delta = -global.slack().bytes(); delta <= global.slack().bytes(); delta += 8) {
                    try {
                        if (delta != 0 && global.slack().confirmsItself().at(address + delta, candidate).isEmpty()) {
                            confirmed.add(address + delta);
                        }
                    } catch (TargetException | OmpdException unreadable) {
                        // not there
                    }
                }
                if (confirmed.size() == 1) {
                    failures.add(placement + " = 0x" + Long.toHexString(address) + ": " + failure.get()
                            + ", but 0x" + Long.toHexString(confirmed.getFirst()) + " nearby confirms itself");
                    address = confirmed.getFirst();
                    failure = Optional.empty();
                }
            }
            if (failure.isPresent()) {
                failures.add(placement + " = 0x" + Long.toHexString(address) + ": " + failure.get());
                continue;
            }
            if (kind.structural() || global.strong()) {
                placedBy.put(name, placement);
                return Optional.of(new TargetSymbol(name, address, global.size(), moduleName(), false));
            }
            List<Placement> same = agreeing.computeIfAbsent(address, a -> new ArrayList<>());
            same.add(placement);
            if (same.size() >= 2) {
                placedBy.put(name, same.getFirst());
                return Optional.of(new TargetSymbol(name, address, global.size(), moduleName(), false));
            }
            failures.add(placement + " = 0x" + Long.toHexString(address) + ": content fits, but no second anchor agrees yet");
        }
        unavailable.put(name, "no placement of " + name + " from profile libomp " + profile.version()
                + " passed its content check (" + String.join("; ", failures) + ")");
        return Optional.empty();
    }
}
