package dev.jompd.gdb;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@code // CHECK:} and {@code // CHECK-NOT:} lines of an LLVM lit test, evaluated one by one against
 * an output, with FileCheck's semantics for the two directives (and {@code CHECK-DAG}, which only the
 * translation below writes): each CHECK matches after the previous match; each CHECK-NOT must not match
 * between the matches around it; horizontal whitespace runs count as one space; {@code {{...}}} is a
 * regular expression. Unlike FileCheck, a failed CHECK does not end the evaluation: the next ones are
 * searched from where the failed one started, so that every directive gets its own verdict. The test
 * runs FileCheck-19 itself on the same lines and requires the same overall verdict.
 */
final class FileChecks {
    enum Kind { CHECK, CHECK_NOT, CHECK_DAG }

    /** One directive: its kind, its pattern as written, where it came from (file:line). */
    record Directive(Kind kind, String pattern, String origin) {
        String line() {
            return "// " + kind.name().replace('_', '-') + ": " + pattern;
        }
    }

    record Verdict(Directive directive, boolean passed, String why) {}

    private static final Pattern DIRECTIVE = Pattern.compile("^\\s*//\\s*(CHECK(?:-NOT|-DAG)?):\\s?(.*)$");
    private static final Pattern OTHER_DIRECTIVE = Pattern.compile("^\\s*//\\s*CHECK-[A-Z]+:");
    private static final Pattern BLANKS = Pattern.compile("[ \\t]+");

    private FileChecks() {}

    /** The directives of a test source, in order; any other CHECK-* directive is refused (not understood). */
    static List<Directive> parse(String source, String fileName) {
        List<Directive> directives = new ArrayList<>();
        List<String> lines = source.lines().toList();
        for (int i = 0; i < lines.size(); i++) {
            Matcher m = DIRECTIVE.matcher(lines.get(i));
            if (m.matches()) {
                Kind kind = Kind.valueOf(m.group(1).replace('-', '_').toUpperCase(Locale.ROOT));
                directives.add(new Directive(kind, m.group(2).strip(), fileName + ":" + (i + 1)));
            } else if (OTHER_DIRECTIVE.matcher(lines.get(i)).find()) {
                throw new IllegalArgumentException("unsupported FileCheck directive at " + fileName + ":" + (i + 1)
                        + ": " + lines.get(i));
            }
        }
        return directives;
    }

    /** A FileCheck pattern as a Java regular expression: literal text, {{regex}} parts, blanks as one space. */
    static Pattern compile(String pattern) {
        StringBuilder regex = new StringBuilder();
        int at = 0;
        while (at < pattern.length()) {
            int open = pattern.indexOf("{{", at);
            if (open < 0) {
                regex.append(literal(pattern.substring(at)));
                break;
            }
            int close = pattern.indexOf("}}", open + 2);
            if (close < 0) {
                throw new IllegalArgumentException("unclosed {{ in " + pattern);
            }
            regex.append(literal(pattern.substring(at, open))).append("(?:").append(pattern, open + 2, close).append(')');
            at = close + 2;
        }
        return Pattern.compile(regex.toString(), Pattern.MULTILINE);
    }

    private static String literal(String text) {
        return text.isEmpty() ? "" : Pattern.quote(BLANKS.matcher(text).replaceAll(" "));
    }

    /** What FileCheck matches against: every run of blanks one space. */
    static String canonical(String output) {
        return BLANKS.matcher(output).replaceAll(" ");
    }

    /** Every directive's verdict against {@code output}. */
    static List<Verdict> evaluate(List<Directive> directives, String output) {
        String text = canonical(output);
        List<Verdict> verdicts = new ArrayList<>();
        int position = 0;
        List<Directive> nots = new ArrayList<>();
        int i = 0;
        while (i < directives.size()) {
            Directive directive = directives.get(i);
            if (directive.kind() == Kind.CHECK_NOT) {
                nots.add(directive);
                i++;
                continue;
            }
            // A positive match (one CHECK, or a group of CHECK-DAGs) ends the region of the NOTs before it.
            int start;
            int end;
            if (directive.kind() == Kind.CHECK) {
                Matcher m = compile(directive.pattern()).matcher(text);
                boolean found = m.find(position);
                verdicts.add(new Verdict(directive, found, found ? "" : "not found after offset " + position));
                start = found ? m.start() : position;
                end = found ? m.end() : position;
                i++;
            } else {
                start = Integer.MAX_VALUE;
                end = position;
                while (i < directives.size() && directives.get(i).kind() == Kind.CHECK_DAG) {
                    Matcher m = compile(directives.get(i).pattern()).matcher(text);
                    boolean found = m.find(position);
                    verdicts.add(new Verdict(directives.get(i), found, found ? "" : "not found after offset " + position));
                    if (found) {
                        start = Math.min(start, m.start());
                        end = Math.max(end, m.end());
                    }
                    i++;
                }
                start = start == Integer.MAX_VALUE ? position : start;
            }
            checkNots(nots, text, position, start, verdicts);
            nots.clear();
            position = end;
        }
        checkNots(nots, text, position, text.length(), verdicts);
        verdicts.sort(Comparator.comparingInt(v -> directives.indexOf(v.directive())));
        return verdicts;
    }

    private static void checkNots(List<Directive> nots, String text, int from, int to, List<Verdict> verdicts) {
        for (Directive not : nots) {
            Matcher m = compile(not.pattern()).matcher(text).region(from, to);
            boolean found = m.find();
            verdicts.add(new Verdict(not, !found, found ? "found: " + lineAround(text, m.start()) : ""));
        }
    }

    private static String lineAround(String text, int at) {
        int begin = text.lastIndexOf('\n', at) + 1;
        int end = text.indexOf('\n', at);
        return text.substring(begin, end < 0 ? text.length() : end).strip();
    }
}
