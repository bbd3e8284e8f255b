package dev.jompd.job;

import dev.jompd.core.ompd.AddressSpaceHandle;
import dev.jompd.core.ompd.Ompd;
import dev.jompd.core.target.AddressSpace;
import dev.jompd.core.target.Symbolizer;
import dev.jompd.core.unwind.DebugInfoCache;
import dev.jompd.core.unwind.Unwinder;
import dev.jompd.report.CodeNames;
import dev.jompd.report.Diagnosis;
import dev.jompd.report.OpenMpPicture;
import dev.jompd.report.ParallelStacks;
import dev.jompd.report.TargetDescription;

import java.util.Optional;

/** One rank's inspection as `jompd inspect --stacks` makes it: picture, stacks, diagnosis (for tests and benchmarks). */
public final class JobInspections {
    private JobInspections() {}

    public static RankInspection.Seen inspect(AddressSpace space, RankId id, String kind, String name) {
        try (Symbolizer symbols = new Symbolizer(space); CodeNames names = new CodeNames(symbols);
             DebugInfoCache debugInfo = new DebugInfoCache(); Unwinder unwinder = new Unwinder(space, debugInfo)) {
            AddressSpaceHandle process = Ompd.processInitialize(space);
            OpenMpPicture picture = OpenMpPicture.take(process, new TargetDescription(kind, name, space.name(),
                    process.layout().runtimeModule()), names);
            ParallelStacks stacks = ParallelStacks.of(picture, space, unwinder);
            return new RankInspection.Seen(id, picture, Optional.of(stacks), Diagnosis.of(picture, Optional.of(stacks)));
        }
    }
}
