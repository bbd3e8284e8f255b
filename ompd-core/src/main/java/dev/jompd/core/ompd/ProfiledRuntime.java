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
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
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
    private final java.util.Set<String> inProgress = new java.util.HashSet<>();
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

    /** The upstream major version a module's path names ({@code /usr/lib/llvm-19/lib/libomp.so.5}, {@code libomp-16.so.5}). */
    static OptionalInt majorVersionHint(LoadedModule module) {
        Matcher matcher = MAJOR_IN_PATH.matcher(module.path().toString());
        OptionalInt last = OptionalInt.empty();
        while (matcher.find()) {
            last = OptionalInt.of(Integer.parseInt(matcher.group(1)));
        }
        return last;
    }

    /**
     * Reads the stripped runtime in {@code module} through one of {@code profiles}.
     *
     * @throws OmpdException {@code incompatible} when no profile covers the version or none validates
     */
    static ProfiledRuntime open(AddressSpace target, TargetMemory memory, LoadedModule module, List<RuntimeProfile> profiles) {
        OptionalInt hint = majorVersionHint(module);
        List<RuntimeProfile> candidates = profiles;
        if (hint.isPresent()) {
            String major = Integer.toString(hint.getAsInt());
            candidates = profiles.stream().filter(p -> p.majorVersion().equals(major)).toList();
            if (candidates.isEmpty()) {
                throw new OmpdException(OmpdRc.INCOMPATIBLE, "the OpenMP runtime " + module.path() + " (libomp "
                        + major + ") has no symbol table and no runtime profile covers libomp " + major
                        + " (profiles: " + versions(profiles) + "); install its debug file (or set DEBUGINFOD_URLS), "
                        + "or use a libomp built with -DLIBOMP_OMPD_SUPPORT=ON (scripts/build-runtime.sh)");
            }
        }
        List<long[]> writable = writableRanges(module, target.moduleFile(module).orElse(module.path()));
        if (writable.isEmpty()) {
            throw new OmpdException(OmpdRc.INCOMPATIBLE, "cannot read the section headers of " + module.path()
                    + " to find its writable memory: no runtime profile can be applied");
        }
        List<String> cutShort = new ArrayList<>();
        for (RuntimeProfile profile : candidates) {
            BuildAndProfile cacheKey = module.buildId().map(id -> new BuildAndProfile(id, profile.version())).orElse(null);
            Long knownOffset = cacheKey == null ? null : BLOCK_OFFSETS.get(cacheKey);
            OptionalLong block = knownOffset != null && blockMatches(memory, module.loadBias() + knownOffset, profile)
                    ? OptionalLong.of(module.loadBias() + knownOffset) : findBlock(target, writable, profile, cutShort);
            if (block.isPresent()) {
                if (cacheKey != null) {
                    BLOCK_OFFSETS.put(cacheKey, block.getAsLong() - module.loadBias());
                }
                return new ProfiledRuntime(target, memory, module, profile, block.getAsLong());
            }
        }
        if (!candidates.isEmpty() && looksUninitialised(target, memory, module, candidates.getFirst())) {
            throw new OmpdException(OmpdRc.UNAVAILABLE, "the OpenMP runtime in " + target.name() + " (" + module.path()
                    + ") is loaded but not initialised yet (no thread array, no OMPD breadcrumbs in its memory)");
        }
        throw new OmpdException(OmpdRc.INCOMPATIBLE, "the OpenMP runtime " + module.path() + " has no symbol table, "
                + "and the OMPD breadcrumbs of " + (hint.isPresent() ? "libomp " + versions(candidates) : "any profiled libomp ("
                + versions(candidates) + ")") + " are not in its memory: validation failed (another build or version"
                + (cutShort.isEmpty() ? "" : "; writable ranges are scanned " + (MAX_SCAN_BYTES >> 20) + " MiB far, and "
                + "these were longer: " + String.join(", ", cutShort.stream().distinct().toList()))
                + "); install its debug file or set DEBUGINFOD_URLS");
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

    /** The module's writable sections ({@code .data} … {@code .bss}), relocated: [start, end) pairs. */
    private static List<long[]> writableRanges(LoadedModule module, java.nio.file.Path file) {
        List<long[]> ranges = new ArrayList<>();
        try (ElfFile elf = ElfFile.open(file)) {
            for (SectionHeader section : elf.sectionHeaders()) {
                long allocWrite = SectionHeader.SHF_ALLOC | SectionHeader.SHF_WRITE;
                if ((section.flags() & allocWrite) == allocWrite && section.size() > 0 && section.address() != 0) {
                    ranges.add(new long[] {module.loadBias() + section.address(),
                            module.loadBias() + section.address() + section.size()});
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
    private static OptionalLong findBlock(AddressSpace target, List<long[]> ranges, RuntimeProfile profile,
                                          List<String> cutShort) {
        List<Breadcrumb> crumbs = profile.breadcrumbs();
        long span = crumbs.getLast().offset() + 8;
        // The most telling breadcrumb first (a large, rare value), then all of them.
        Breadcrumb key = crumbs.stream().max((a, b) -> Long.compare(a.value(), b.value())).orElseThrow();
        for (long[] range : ranges) {
            long start = (range[0] + 7) & ~7L;
            long length = range[1] - start;
            if (length < span) {
                continue;
            }
            if (length > MAX_SCAN_BYTES) {
                cutShort.add("the range at 0x" + Long.toHexString(start) + " (" + (length >> 20) + " MiB)");
            }
            byte[] bytes = readWhatIsReadable(target, start, (int) Math.min(length, MAX_SCAN_BYTES));
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
                    return OptionalLong.of(start + base);
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
                failure = Optional.of(e.getMessage());
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
