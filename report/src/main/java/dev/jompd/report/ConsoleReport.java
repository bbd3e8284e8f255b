package dev.jompd.report;

import dev.jompd.core.ompd.Icv;
import dev.jompd.core.ompd.IcvReading;
import dev.jompd.core.ompd.Scope;
import dev.jompd.report.OpenMpPicture.OpenMpThread;
import dev.jompd.report.OpenMpPicture.ParallelRegion;
import dev.jompd.report.OpenMpPicture.Task;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The debugger consoles' {@code ompd threads}, {@code ompd parallel} and {@code ompd icvs}: the gdb bridge
 * and the DAP server's debug console print these, from the picture of the stop, so both say the same.
 * What differs between the doors is only how a debugger numbers its threads and which one is selected.
 */
public final class ConsoleReport {
    /**
     * How the door names threads.
     *
     * @param debugger what the door's thread numbers are ({@code gdb})
     * @param number   the debugger's number of an OpenMP thread, when it has one
     * @param selected the thread the user has selected
     */
    public record Options(String debugger, Function<OpenMpThread, OptionalInt> number,
                          Predicate<OpenMpThread> selected) {}

    /** A thread of the debugger's list, OpenMP or not. */
    public record DebuggerThread(int number, OptionalLong lwp) {}

    /** Which ICVs {@code ompd icvs ARGUMENT} shows: the scopes, and one ICV of them if a name was given. */
    public record IcvSelection(Set<Scope> scopes, Optional<Icv> only) {
        public static final String USAGE = "use address_space, thread, parallel, task, or an ICV name such as nthreads-var";

        /** Whether the selection needs a selected thread (everything but the process's ICVs). */
        public boolean needsThread() {
            return !scopes.equals(Set.of(Scope.ADDRESS_SPACE));
        }

        /** The selection of an argument; an argument that names neither a scope nor an ICV is refused with why. */
        public static IcvSelection of(String argument) {
            String word = argument.trim().toLowerCase(Locale.ROOT);
            Optional<Icv> only = Icv.byName(word);
            Set<Scope> scopes = switch (word) {
                case "", "all" -> Set.of(Scope.ADDRESS_SPACE, Scope.THREAD, Scope.PARALLEL, Scope.TASK);
                case "address_space", "process", "global" -> Set.of(Scope.ADDRESS_SPACE);
                case "thread" -> Set.of(Scope.THREAD);
                case "parallel" -> Set.of(Scope.PARALLEL);
                case "task", "implicit_task" -> Set.of(Scope.TASK);
                default -> only.map(icv -> Set.of(icv.scope())).orElseThrow(() -> new IllegalArgumentException(
                        "unknown scope or ICV \"" + argument.trim() + "\": " + USAGE));
            };
            return new IcvSelection(scopes, only);
        }
    }

    /** Bound on the thread numbers listed for one team: far beyond any real team (corrupt sizes stop here). */
    private static final int MAX_TEAM = 4096;

    private ConsoleReport() {}

    /** "thread 3 (LWP 1234), OpenMP thread 1 (gtid 5)", 3 being the debugger's number. */
    public static String describe(OpenMpThread thread, Options options) {
        OptionalInt number = options.number().apply(thread);
        return "thread " + (number.isPresent() ? Integer.toString(number.getAsInt()) : "?")
                + (thread.lwp().isPresent() ? " (LWP " + thread.lwp().getAsLong() + ")" : "")
                + ", OpenMP thread " + thread.threadNum() + " (gtid " + thread.gtid() + ")";
    }

    /** "gdb 3  LWP 1234  gtid 5". */
    public static String ids(OpenMpThread thread, Options options) {
        OptionalInt number = options.number().apply(thread);
        return options.debugger() + " " + (number.isPresent() ? Integer.toString(number.getAsInt()) : "?")
                + (thread.lwp().isPresent() ? "  LWP " + thread.lwp().getAsLong() : "") + "  gtid " + thread.gtid();
    }

    /** The state without OMPT's prefix and with the wait id it waits on, or why it is not known. */
    public static String state(OpenMpThread thread) {
        if (thread.state().isEmpty()) {
            // why, and what to set, is said once under the table (notes): not on every thread's row
            return thread.stateCode().isEmpty() ? "(" + OpenMpPicture.NOT_TRACKED + ")"
                    : "(" + Text.stateName(thread) + ")";
        }
        String name = Text.shortState(thread.state().get());
        return thread.waitId() != 0 ? name + " on " + Text.hex(thread.waitId()) : name;
    }

    /** {@code ompd threads}: every OpenMP thread by the debugger's number, then the debugger's other threads. */
    public static String threads(OpenMpPicture picture, Options options, List<DebuggerThread> all) {
        List<OpenMpThread> rows = new ArrayList<>(picture.threads());
        rows.sort(Comparator.comparingInt(thread -> options.number().apply(thread).orElse(Integer.MAX_VALUE)));
        StringBuilder out = new StringBuilder();
        out.append(picture.threads().size()).append(" OpenMP threads of ").append(all.size()).append(" threads in ")
                .append(picture.target().backend()).append(" (").append(picture.target().runtime()).append(")\n");
        Table table = new Table("", options.debugger(), "LWP", "gtid", "thread", "level", "team", "path", "state");
        Set<Integer> openMp = new HashSet<>();
        for (OpenMpThread thread : rows) {
            OptionalInt number = options.number().apply(thread);
            number.ifPresent(openMp::add);
            boolean inTeam = thread.region().isPresent();
            table.row(options.selected().test(thread) ? "*" : "",
                    number.isPresent() ? Integer.toString(number.getAsInt()) : "?",
                    thread.lwp().isPresent() ? Long.toString(thread.lwp().getAsLong()) : "?",
                    Long.toString(thread.gtid()), Long.toString(thread.threadNum()),
                    inTeam ? Long.toString(thread.level()) : "-", inTeam ? Long.toString(thread.teamSize()) : "-",
                    thread.teamPath().isEmpty() ? "-" : thread.path(), state(thread));
        }
        out.append(table.render("  "));
        List<String> others = all.stream().filter(t -> !openMp.contains(t.number()))
                .map(t -> t.number() + (t.lwp().isPresent() ? " (LWP " + t.lwp().getAsLong() + ")" : "")).toList();
        if (!others.isEmpty()) {
            out.append("Not OpenMP threads: ").append(options.debugger()).append(' ').append(String.join(", ", others))
                    .append('\n');
        }
        notes(picture, out);
        return out.toString();
    }

    /** What the reader should know to read the answer right (no OMP_DEBUG: what is missing, what to set), once. */
    private static void notes(OpenMpPicture picture, StringBuilder out) {
        for (String notice : picture.notices()) {
            out.append("note: ").append(notice).append('\n');
        }
    }

    /**
     * {@code ompd parallel}: the thread's regions, innermost first, each with its team by thread number; in
     * each enclosing team the thread that stands for this one (the primary thread of the team inside) is marked.
     */
    public static String parallel(OpenMpPicture picture, OpenMpThread thread, Options options) {
        StringBuilder out = new StringBuilder();
        out.append(capitalized(describe(thread, options))).append(": parallel regions, innermost first\n");
        Optional<ParallelRegion> region = thread.region().flatMap(picture::region);
        OpenMpThread member = thread;
        Set<String> seen = new HashSet<>();
        while (region.isPresent() && seen.add(region.get().id())) {
            ParallelRegion current = region.get();
            out.append(current.describe());
            current.function().ifPresent(function -> out.append("  ").append(function.displayName()));
            if (current.activeLevel() >= 0) {
                out.append("  (active level ").append(current.activeLevel()).append(')');
            }
            out.append('\n');
            Optional<OpenMpThread> primary = Optional.empty();
            for (long number = 0; number < current.teamSize() && number < MAX_TEAM; number++) {
                Optional<OpenMpThread> teammate = teammate(picture, current, number, 0);
                out.append("    thread ").append(number).append("  ");
                if (teammate.isEmpty() && number == 0 && current.ended()) {
                    // an ended region's primary thread is the one that encountered it, back in the enclosing region
                    Optional<OpenMpThread> encountering = current.enclosing().flatMap(picture::region).flatMap(enclosing ->
                            teammate(picture, enclosing, current.teamPath().isEmpty() ? 0 : current.teamPath().getLast(), 0));
                    if (encountering.isPresent()) {
                        out.append(ids(encountering.get(), options)).append("  ").append(state(encountering.get()))
                                .append("  (back in level ").append(current.level() - 1).append(": this region has ended)\n");
                        continue;
                    }
                }
                if (teammate.isEmpty()) {
                    out.append("(not among the threads read)\n");
                    continue;
                }
                if (number == 0) {
                    primary = teammate;
                }
                out.append(ids(teammate.get(), options)).append("  ").append(state(teammate.get()));
                if (teammate.get().gtid() == member.gtid()) {
                    out.append(member.gtid() == thread.gtid() ? "   <- this thread" : "   <- this thread's ancestor");
                }
                out.append('\n');
            }
            if (primary.isPresent()) {
                member = primary.get();
            }
            region = current.enclosing().flatMap(picture::region);
        }
        notes(picture, out);
        return out.toString();
    }

    /**
     * Thread {@code number} of {@code region}'s team: the member with that number, or, when that thread is in a
     * nested team now, the primary thread of the nested team it started (found through the team paths).
     */
    private static Optional<OpenMpThread> teammate(OpenMpPicture picture, ParallelRegion region, long number, int depth) {
        Optional<OpenMpThread> member = picture.members(Optional.of(region.id())).stream()
                .filter(t -> t.threadNum() == number).findFirst();
        if (member.isPresent() || depth > picture.regions().size()) {
            return member;
        }
        for (ParallelRegion child : picture.children(region)) {
            // the thread that encountered the child: its number in this team is the last of the child's team path;
            // a region at level 1 has no team path, and was met by the only thread of the level-0 region
            boolean encounteredBy = child.teamPath().isEmpty()
                    ? region.level() == 0 && number == 0
                    : child.teamPath().getLast() == number;
            if (encounteredBy) {
                Optional<OpenMpThread> primary = teammate(picture, child, 0, depth + 1);
                if (primary.isPresent()) {
                    return primary;
                }
            }
        }
        return Optional.empty();
    }

    /**
     * {@code ompd icvs}: the ICVs of the selection, each scope as seen from {@code thread} (its thread, its
     * innermost region, its current task); the process's alone need no thread.
     */
    public static String icvs(OpenMpPicture picture, IcvSelection selection, Optional<OpenMpThread> thread,
                              Options options) {
        StringBuilder out = new StringBuilder();
        if (thread.isPresent()) {
            out.append("ICVs seen from ").append(describe(thread.get(), options)).append('\n');
        } else {
            out.append("ICVs of ").append(picture.target().backend()).append('\n');
        }
        Optional<ParallelRegion> region = thread.flatMap(OpenMpThread::region).flatMap(picture::region);
        Optional<Task> task = thread.map(picture::chain).filter(chain -> !chain.isEmpty()).map(List::getFirst);
        for (Scope scope : List.of(Scope.ADDRESS_SPACE, Scope.THREAD, Scope.PARALLEL, Scope.TASK)) {
            if (!selection.scopes().contains(scope)) {
                continue;
            }
            Optional<Map<String, IcvReading>> readings = switch (scope) {
                case ADDRESS_SPACE -> Optional.of(picture.processIcvs());
                case THREAD -> thread.map(OpenMpThread::icvs);
                case PARALLEL -> region.map(ParallelRegion::icvs);
                default -> task.map(Task::icvs);
            };
            out.append(switch (scope) {
                case ADDRESS_SPACE -> "process (address_space scope):";
                case THREAD -> "thread scope:";
                case PARALLEL -> "parallel scope, the " + region.map(ParallelRegion::describe).orElse("innermost region") + ":";
                default -> "task scope, the " + task.map(t -> t.kind().words() + " " + Text.hex(t.address()))
                        .orElse("current task") + ":";
            }).append('\n');
            Table table = new Table("", "");
            for (Icv icv : Icv.ALL) {
                if (icv.scope() != scope || selection.only().isPresent() && !selection.only().get().equals(icv)) {
                    continue;
                }
                String value = readings.map(all -> Optional.ofNullable(all.get(icv.name()))
                                .map(reading -> switch (reading) {
                                    case IcvReading.Value v -> v.text();
                                    case IcvReading.Failed failed -> Text.notRead(failed);
                                }).orElse("(not read)"))
                        .orElse("(no " + scope.name().toLowerCase(Locale.ROOT) + ")");
                table.row(icv.name(), value);
            }
            out.append(table.renderRows("  "));
        }
        return out.toString();
    }

    static String capitalized(String text) {
        return text.isEmpty() ? text : Character.toUpperCase(text.charAt(0)) + text.substring(1);
    }

    /** Columns padded to their widest cell. */
    public static final class Table {
        private final List<String[]> rows = new ArrayList<>();

        public Table(String... header) {
            rows.add(header);
        }

        public void row(String... cells) {
            rows.add(cells);
        }

        /** The rows without the header line. */
        public String renderRows(String indent) {
            String all = render(indent);
            return all.substring(all.indexOf('\n') + 1);
        }

        public String render(String indent) {
            int columns = rows.getFirst().length;
            int[] widths = new int[columns];
            for (String[] row : rows) {
                for (int c = 0; c < columns; c++) {
                    widths[c] = Math.max(widths[c], row[c].length());
                }
            }
            StringBuilder out = new StringBuilder();
            for (String[] row : rows) {
                StringBuilder line = new StringBuilder(indent);
                for (int c = 0; c < columns; c++) {
                    line.append(row[c]);
                    if (c < columns - 1) {
                        line.append(" ".repeat(widths[c] - row[c].length() + 2));
                    }
                }
                out.append(line.toString().stripTrailing()).append('\n');
            }
            return out.toString();
        }
    }
}
