package dev.jompd.job;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import dev.jompd.report.Diagnosis;
import dev.jompd.report.OpenMpPicture;
import dev.jompd.report.OpenMpPicture.OpenMpThread;
import dev.jompd.report.ParallelStacks;
import dev.jompd.report.Text;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * One rank's picture in the words that mean the same in every rank of the job, whatever the address-space
 * randomisation and the OS gave it: threads by team path ({@code omp 1 · 2/4 · level 2}), their OMPD state,
 * regions and tasks by source construct, stacks as frames by function and source line (never addresses),
 * locks by the program's own name ({@code lock `guard`}), the diagnosis with LWPs and addresses left out,
 * and the MPI call the rank waits in. Two ranks are in one class exactly when their views are equal.
 *
 * @param threads  each thread, in team-path order
 * @param findings the rank's hang diagnosis, one plain sentence each ({@code kind: summary})
 * @param mpi      where the rank waits in MPI, when a thread's stack is inside an MPI call
 * @param notices  what the reader should know (no OMP_DEBUG, unreadable parts)
 */
public record RankView(List<ThreadView> threads, List<String> findings, Optional<MpiWait> mpi, List<String> notices) {

    /**
     * One thread: its place ({@code omp 1 · 2/4 · level 2}, team path first when nested), its OMPD state, the
     * construct of its region, its task chain (innermost first), its stack (outermost first, libomp's runs
     * folded as the parallel stacks fold them) and its part in the diagnosis ({@code waits for lock `guard`}).
     */
    public record ThreadView(String thread, String state, Optional<String> region, List<String> tasks,
                             List<String> stack, List<String> roles) {}

    /** The MPI call a thread waits in ({@code MPI_Allreduce}) and the program's line that called it. */
    public record MpiWait(String call, Optional<String> from, String thread) {
        public String describe() {
            return call + from.map(f -> " (from " + f + ")").orElse("");
        }
    }

    private static final Pattern MPI_CALL = Pattern.compile("^P?(MPI_[A-Z][A-Za-z_]*)");
    private static final Pattern LWP = Pattern.compile("\\s*\\(LWP \\d+\\)");
    private static final Pattern BARE_LWP = Pattern.compile("LWP \\d+");
    private static final Pattern NAMED_LOCK = Pattern.compile("(lock `[^`]+`) \\([^()]*\\)");
    private static final Pattern AT_ADDRESS = Pattern.compile(" at 0x[0-9a-f]+");
    private static final Pattern ADDRESS = Pattern.compile("0x[0-9a-f]+");

    /** The view of a rank that was read. */
    public static RankView of(RankInspection.Seen seen) {
        OpenMpPicture picture = seen.picture();
        Map<Long, ParallelStacks.ThreadStack> stackByGtid = new LinkedHashMap<>();
        seen.stacks().ifPresent(s -> s.stacks().forEach(stack -> stackByGtid.put(stack.thread().gtid(), stack)));
        Map<Long, List<String>> roles = new LinkedHashMap<>();
        for (Diagnosis.Finding finding : seen.findings()) {
            for (Diagnosis.Involved involved : finding.threads()) {
                // a role that names its place already (a critical section by its line) is not given it twice
                String words = involved.roleWords();
                roles.computeIfAbsent(involved.thread().gtid(), g -> new ArrayList<>()).add(plain(words
                        + involved.source().filter(s -> !words.contains(s)).map(s -> " at " + s).orElse("")));
            }
        }
        List<OpenMpThread> ordered = new ArrayList<>(picture.threads());
        ordered.sort(RankView::teamOrder);
        List<ThreadView> threads = new ArrayList<>();
        Optional<MpiWait> mpi = Optional.empty();
        for (OpenMpThread thread : ordered) {
            String name = place(thread);
            List<String> stack = new ArrayList<>();
            ParallelStacks.ThreadStack unwound = stackByGtid.get(thread.gtid());
            if (unwound != null) {
                List<ParallelStacks.Step> steps = unwound.steps();
                for (int i = 0; i < steps.size(); i++) {
                    stack.add(plain(steps.get(i).describe()));
                    var call = MPI_CALL.matcher(steps.get(i).function());
                    if (mpi.isEmpty() && !steps.get(i).runtime() && call.find()) {
                        Optional<String> from = i > 0 ? steps.get(i - 1).source() : Optional.empty();
                        mpi = Optional.of(new MpiWait(call.group(1), from, name));
                    }
                }
            }
            List<String> tasks = picture.chain(thread).stream().map(task -> task.kind().words()
                    + task.function().map(f -> " " + f.describe()).orElse("")
                    + (task.status() == OpenMpPicture.TaskStatus.UNKNOWN ? "" : ", "
                    + plain(picture.statusWords(task, Optional.of(thread))))).toList();
            Optional<String> region = thread.region().flatMap(picture::region)
                    .flatMap(r -> r.function().map(f -> "parallel region " + f.describe() + (r.ended() ? ", ended" : "")));
            threads.add(new ThreadView(name, thread.state().map(Text::shortState).orElse("unknown"), region,
                    tasks, List.copyOf(stack), List.copyOf(roles.getOrDefault(thread.gtid(), List.of()))));
        }
        List<String> findings = seen.findings().stream().map(f -> f.kind().words() + ": " + plain(f.summary())).toList();
        List<String> notices = picture.notices().stream().map(RankView::plain).toList();
        return new RankView(List.copyOf(threads), findings, mpi, notices);
    }

    /** {@code omp 1 · 2/4 · level 2}: the thread's name without its state (which the view keeps apart). */
    static String place(OpenMpThread thread) {
        if (thread.region().isEmpty()) {
            return "omp gtid " + thread.gtid() + " · no team";
        }
        return "omp " + (thread.teamPath().isEmpty() ? "" : thread.path() + " · ") + thread.threadNum() + "/"
                + thread.teamSize() + " · level " + thread.level();
    }

    /** Outer teams first, then by team path and thread number; threads in no team last, by gtid. */
    private static int teamOrder(OpenMpThread a, OpenMpThread b) {
        if (a.region().isPresent() != b.region().isPresent()) {
            return a.region().isPresent() ? -1 : 1;
        }
        List<Long> pa = new ArrayList<>(a.teamPath());
        pa.add(a.threadNum());
        List<Long> pb = new ArrayList<>(b.teamPath());
        pb.add(b.threadNum());
        for (int i = 0; i < Math.min(pa.size(), pb.size()); i++) {
            int c = Long.compare(pa.get(i), pb.get(i));
            if (c != 0) {
                return c;
            }
        }
        int c = Integer.compare(pa.size(), pb.size());
        return c != 0 ? c : Long.compare(a.gtid(), b.gtid());
    }

    /**
     * A sentence of the single-process diagnosis in the job's words: without LWPs (another in every rank) and
     * without addresses (another in every run): {@code lock `guard` (queuing lock #0 at 0x…)} becomes
     * {@code lock `guard`}.
     */
    static String plain(String sentence) {
        String text = LWP.matcher(sentence).replaceAll("");
        text = BARE_LWP.matcher(text).replaceAll("a thread");
        text = NAMED_LOCK.matcher(text).replaceAll("$1");
        text = AT_ADDRESS.matcher(text).replaceAll("");
        return ADDRESS.matcher(text).replaceAll("0x…");
    }

    /** The view as JSON, in a fixed member order: its text is the class's signature. */
    public JsonObject toJson() {
        JsonObject json = new JsonObject();
        JsonArray threadArray = new JsonArray();
        for (ThreadView thread : threads) {
            JsonObject t = new JsonObject();
            t.addProperty("thread", thread.thread());
            t.addProperty("state", thread.state());
            thread.region().ifPresent(r -> t.addProperty("region", r));
            t.add("tasks", strings(thread.tasks()));
            t.add("stack", strings(thread.stack()));
            t.add("roles", strings(thread.roles()));
            threadArray.add(t);
        }
        json.add("threads", threadArray);
        json.add("findings", strings(findings));
        mpi.ifPresent(m -> {
            JsonObject call = new JsonObject();
            call.addProperty("call", m.call());
            m.from().ifPresent(f -> call.addProperty("from", f));
            call.addProperty("thread", m.thread());
            json.add("mpi", call);
        });
        json.add("notices", strings(notices));
        return json;
    }

    /**
     * Reads {@link #toJson()} back.
     *
     * @throws IllegalArgumentException when a member is missing or of the wrong type
     */
    public static RankView fromJson(JsonObject json) {
        try {
            List<ThreadView> threads = new ArrayList<>();
            for (JsonElement element : json.getAsJsonArray("threads")) {
                JsonObject t = element.getAsJsonObject();
                threads.add(new ThreadView(t.get("thread").getAsString(), t.get("state").getAsString(),
                        t.has("region") ? Optional.of(t.get("region").getAsString()) : Optional.empty(),
                        list(t.getAsJsonArray("tasks")), list(t.getAsJsonArray("stack")), list(t.getAsJsonArray("roles"))));
            }
            Optional<MpiWait> mpi = Optional.empty();
            if (json.has("mpi")) {
                JsonObject m = json.getAsJsonObject("mpi");
                mpi = Optional.of(new MpiWait(m.get("call").getAsString(),
                        m.has("from") ? Optional.of(m.get("from").getAsString()) : Optional.empty(),
                        m.get("thread").getAsString()));
            }
            return new RankView(List.copyOf(threads), list(json.getAsJsonArray("findings")), mpi,
                    list(json.getAsJsonArray("notices")));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("not a rank view of a jompd job summary: " + e.getMessage(), e);
        }
    }

    private static JsonArray strings(List<String> values) {
        JsonArray array = new JsonArray();
        values.forEach(array::add);
        return array;
    }

    private static List<String> list(JsonArray array) {
        List<String> values = new ArrayList<>();
        array.forEach(e -> values.add(e.getAsString()));
        return List.copyOf(values);
    }
}
