package dev.jompd.cli;

import java.util.ArrayList;
import java.util.List;

/** Lists of numbers as people read them: thread numbers and gtids in reports. */
public final class Ranges {
    private Ranges() {}

    /** 0,12,13,14 → "0,12-14"; long lists are cut after 12 runs, with the count. */
    public static String compact(List<Long> values) {
        List<String> parts = new ArrayList<>();
        for (int i = 0; i < values.size(); ) {
            int j = i;
            while (j + 1 < values.size() && values.get(j + 1) == values.get(j) + 1) {
                j++;
            }
            parts.add(j > i ? values.get(i) + "-" + values.get(j) : Long.toString(values.get(i)));
            i = j + 1;
        }
        return parts.size() <= 12 ? String.join(",", parts)
                : String.join(",", parts.subList(0, 12)) + ",… (" + values.size() + ")";
    }
}
