package dev.jompd.testkit;

import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The thread lines of jompd's text report with every thread on its own line ({@code --all}): each line's LWP by
 * {@code TEAMPATH/NUM}, the team path from the region line above it — to compare with
 * {@link Facts#lwpByTeamAndNumber()}.
 */
public final class TextReportThreads {
    private static final Pattern COLOUR = Pattern.compile("\033\\[[0-9;]*m");
    private static final Pattern REGION = Pattern.compile("\\s*r\\d+ level \\d+ .*");
    private static final Pattern TEAM_PATH = Pattern.compile(", team path ([0-9.]+)  ");
    private static final Pattern THREAD = Pattern.compile("^\\s*thread (\\d+)  gtid \\d+  LWP (\\d+)  ");

    private TextReportThreads() {}

    /** Each thread line's LWP by team path and thread number; a second line for one thread is an AssertionError. */
    public static Map<String, Long> lwpByTeamAndNumber(String report) {
        Map<String, Long> shown = new TreeMap<>();
        String team = "";
        for (String line : COLOUR.matcher(report).replaceAll("").lines().toList()) {
            if (REGION.matcher(line).matches()) {
                Matcher path = TEAM_PATH.matcher(line);
                team = path.find() ? path.group(1) : "";
            }
            Matcher thread = THREAD.matcher(line);
            if (thread.find() && shown.put(team + "/" + thread.group(1), Long.parseLong(thread.group(2))) != null) {
                throw new AssertionError("two lines for thread " + thread.group(1) + " of team " + team + ":\n" + report);
            }
        }
        return shown;
    }
}
