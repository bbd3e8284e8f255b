package dev.jompd.job.rendering;

import dev.jompd.job.model.JobSummary.MissingRanks;
import dev.jompd.job.model.JobSummary.RankClass;
import dev.jompd.job.model.JobSummary;
import dev.jompd.job.model.RankView;
import dev.jompd.job.rendering.JobPicture.StackNode;

import java.util.ArrayList;
import java.util.List;

/**
 * The job's picture as one self-contained HTML page (inline CSS and SVG, no script, nothing fetched): opens
 * in any browser, mails as one file. The merged parallel stacks are drawn as a tree in SVG, each box a step
 * with its thread count and rank ranges; steps only some ranks reach (the outliers) stand out. Below it the
 * diagnosis, the classes with their threads, and the missing ranks.
 */
public final class JobHtml {
    private static final int INDENT = 22;
    private static final double CHAR = 7.3;

    private JobHtml() {}

    public static String render(JobPicture job, String title) {
        JobSummary summary = job.summary();
        StringBuilder html = new StringBuilder();
        html.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>")
                .append(escape(title)).append("</title>\n<style>\n")
                .append("body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:24px;color:#1d2430;background:#fff}\n")
                .append("h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:24px 0 8px;border-bottom:1px solid #d0d7de}\n")
                .append(".sub{color:#57606a}.diag li{margin:4px 0}.outlier{color:#b35900;font-weight:600}\n")
                .append("svg text{font:12px ui-monospace,SFMono-Regular,Menlo,monospace}\n")
                .append(".box{fill:#eef4ff;stroke:#7aa2e3}.rt{fill:#f3f4f6;stroke:#b0b7c3}.out{fill:#fff1e0;stroke:#e08a1e}\n")
                .append(".edge{stroke:#9aa4b2;fill:none}.who{fill:#57606a}\n")
                .append("table{border-collapse:collapse}td,th{padding:2px 10px 2px 0;text-align:left;vertical-align:top}\n")
                .append("code{font:12px ui-monospace,monospace;background:#f6f8fa;padding:1px 3px;border-radius:3px}\n")
                .append("details{margin:6px 0}summary{cursor:pointer}\n</style></head><body>\n");
        html.append("<h1>").append(escape(title)).append("</h1>\n<div class=\"sub\">")
                .append(summary.rankCount()).append(" ranks: ").append(summary.seenCount()).append(" seen in ")
                .append(job.classes().size()).append(job.classes().size() == 1 ? " class" : " classes");
        if (summary.missingCount() > 0) {
            html.append(", <span class=\"outlier\">").append(summary.missingCount()).append(" missing</span>");
        }
        html.append("</div>\n<h2>Diagnosis</h2>\n<ul class=\"diag\">\n");
        job.diagnosis().forEach(d -> html.append("<li>").append(code(d)).append("</li>\n"));
        html.append("</ul>\n<h2>Parallel stacks over ranks &times; threads</h2>\n");
        html.append(svg(job));
        html.append("<h2>Classes (outliers first)</h2>\n");
        int n = 1;
        for (RankClass c : job.classes()) {
            html.append("<details").append(n == 1 ? " open" : "").append("><summary><b>class ").append(n++)
                    .append("</b>: ").append(escape(c.who())).append(" (").append(c.count())
                    .append(c.count() == 1 ? " rank" : " ranks").append("; shown: ").append(escape(JobSummary.describe(c.representative())))
                    .append(")</summary>\n<p>").append(code(JobPicture.hangOf(c.view()))).append("</p>\n<table>\n");
            for (RankView.ThreadView thread : c.view().threads()) {
                html.append("<tr><td>").append(escape(thread.thread())).append("</td><td><code>").append(escape(thread.stateWords()))
                        .append("</code></td><td>").append(code(String.join("; ", thread.roles()))).append("</td></tr>\n");
            }
            html.append("</table>\n");
            c.view().mpi().ifPresent(m -> html.append("<p>in MPI: <code>").append(escape(m.describe())).append("</code></p>\n"));
            html.append("</details>\n");
        }
        if (summary.missingCount() > 0) {
            html.append("<h2>Missing ranks</h2>\n<table>\n");
            for (MissingRanks m : summary.missing()) {
                html.append("<tr><td class=\"outlier\">").append(escape(m.who())).append("</td><td>")
                        .append(escape(JobPicture.words(m.reason()))).append("</td><td>").append(escape(m.detail()))
                        .append("</td></tr>\n");
            }
            html.append("</table>\n");
        }
        html.append("</body></html>\n");
        return html.toString();
    }

    /** A box of the picture placed at a depth, under its parent's box. */
    private record Placed(JobPicture.Box box, int depth, int parentIndex) {
        List<StackNode> chain() {
            return box.chain();
        }

        StackNode last() {
            return box.last();
        }

        int lines() {
            return box.chain().size() + 1;
        }
    }

    private static final int LINE = 16;

    /** The merged tree drawn as boxes, callees indented under their caller, elbows between them. */
    private static String svg(JobPicture job) {
        List<Placed> placed = new ArrayList<>();
        for (JobPicture.Box root : job.boxes()) {
            place(root, 0, -1, placed);
        }
        int lines = placed.stream().mapToInt(Placed::lines).sum();
        double width = 200;
        for (Placed p : placed) {
            for (StackNode node : p.chain()) {
                width = Math.max(width, 16 + p.depth() * INDENT + label(node).length() * CHAR + 24);
            }
            width = Math.max(width, 16 + p.depth() * INDENT + who(p.last()).length() * CHAR + 24);
        }
        int height = lines * LINE + placed.size() * 14 + 10;
        StringBuilder svg = new StringBuilder();
        svg.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"").append((int) width).append("\" height=\"").append(height)
                .append("\" role=\"img\" aria-label=\"merged parallel stacks\">\n");
        int[] tops = new int[placed.size()];
        int[] heights = new int[placed.size()];
        int y = 5;
        for (int i = 0; i < placed.size(); i++) {
            tops[i] = y;
            heights[i] = (placed.get(i).lines()) * LINE + 8;
            y += heights[i] + 6;
        }
        for (int i = 0; i < placed.size(); i++) {
            Placed p = placed.get(i);
            if (p.parentIndex() >= 0) {
                int x = 8 + placed.get(p.parentIndex()).depth() * INDENT + 8;
                svg.append("<path class=\"edge\" d=\"M").append(x).append(' ').append(tops[p.parentIndex()] + heights[p.parentIndex()])
                        .append(" V").append(tops[i] + 12).append(" H").append(8 + p.depth() * INDENT).append("\"/>\n");
            }
        }
        for (int i = 0; i < placed.size(); i++) {
            Placed p = placed.get(i);
            int x = 8 + p.depth() * INDENT;
            int w = 0;
            for (StackNode node : p.chain()) {
                w = Math.max(w, (int) Math.ceil(label(node).length() * CHAR) + 12);
            }
            w = Math.max(w, (int) Math.ceil(who(p.last()).length() * CHAR) + 12);
            String cls = p.box().outlier() ? "out" : p.box().runtime() ? "rt" : "box";
            svg.append("<g><title>").append(escape(p.last().threads() + " threads, " + p.last().who()))
                    .append("</title><rect class=\"").append(cls).append("\" x=\"").append(x).append("\" y=\"").append(tops[i])
                    .append("\" width=\"").append(w).append("\" height=\"").append(heights[i]).append("\" rx=\"4\"/>");
            int line = tops[i] + 4 + 12;
            for (StackNode node : p.chain()) {
                svg.append("<text x=\"").append(x + 6).append("\" y=\"").append(line).append("\">").append(escape(label(node)))
                        .append("</text>");
                line += LINE;
            }
            svg.append("<text class=\"who\" x=\"").append(x + 6).append("\" y=\"").append(line).append("\">")
                    .append(escape(who(p.last()))).append("</text></g>\n");
        }
        return svg.append("</svg>\n").toString();
    }

    /** The boxes in drawing order (each before its callees), each with its depth and its parent's index. */
    private static void place(JobPicture.Box box, int depth, int parentIndex, List<Placed> placed) {
        int index = placed.size();
        placed.add(new Placed(box, depth, parentIndex));
        for (JobPicture.Box child : box.children()) {
            place(child, depth + 1, index, placed);
        }
    }

    private static String label(StackNode node) {
        return node.step().words();
    }

    private static String who(StackNode node) {
        String stopped = node.stoppedBeforeChildren() > 0 ? " (" + node.stoppedBeforeChildren() + " stopped here)" : "";
        return node.threads() + (node.threads() == 1 ? " thread" : " threads") + stopped + " · " + node.who();
    }

    /** Text with the program's names in backquotes shown as code. */
    private static String code(String text) {
        String escaped = escape(text);
        return escaped.replaceAll("`([^`]+)`", "<code>$1</code>");
    }

    static String escape(String text) {
        StringBuilder out = new StringBuilder(text.length());
        for (char c : text.toCharArray()) {
            switch (c) {
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '&' -> out.append("&amp;");
                case '"' -> out.append("&quot;");
                default -> out.append(c);
            }
        }
        return out.toString();
    }
}
