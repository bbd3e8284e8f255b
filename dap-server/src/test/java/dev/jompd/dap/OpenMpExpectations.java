package dev.jompd.dap;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import dev.jompd.testkit.Facts;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Checks of what a DAP client sees against what a fixture program recorded about itself. */
final class OpenMpExpectations {
    private OpenMpExpectations() {}

    /** Every recorded OpenMP thread appears with its OpenMP identity in its thread name. */
    static Map<Long, Integer> assertThreadNamesMatch(JsonObject threadsBody, Facts facts) {
        JsonArray threads = threadsBody.getAsJsonArray("threads");
        Map<Long, String> nameByLwp = new HashMap<>();
        Map<Long, Integer> idByLwp = new HashMap<>();
        for (JsonElement element : threads) {
            String name = element.getAsJsonObject().get("name").getAsString();
            int at = name.lastIndexOf("(LWP ");
            if (at >= 0) {
                long lwp = Long.parseLong(name.substring(at + 5, name.indexOf(')', at)));
                nameByLwp.put(lwp, name);
                idByLwp.put(lwp, element.getAsJsonObject().get("id").getAsInt());
            }
        }
        for (Facts.ThreadFacts thread : facts.threads()) {
            String name = nameByLwp.get(thread.lwp());
            assertThat(name).as("DAP thread for %s in %s", thread, threads).isNotNull();
            String path = thread.teamPath().isEmpty() ? "" : thread.teamPath() + " · ";
            assertThat(name).as("name of %s", thread).startsWith("omp " + path + thread.threadNum() + "/"
                    + thread.teamSize() + " · level " + thread.level() + " · ");
        }
        return idByLwp;
    }

    /**
     * The console's {@code ompd threads} table: one row per recorded thread (by LWP) and no other, each with its
     * OpenMP thread number, level, team size and team path ({@code -} at level 1).
     */
    static void assertThreadRows(String table, Facts facts) {
        java.util.regex.Pattern row = java.util.regex.Pattern.compile(
                "^\\s*\\*?\\s*(\\d+)\\s+(\\d+)\\s+(\\d+)\\s+(\\d+)\\s+(\\d+)\\s+(\\d+)\\s+([-\\d.]+)\\s+\\S.*$");
        Map<Long, List<String>> rows = new HashMap<>();
        for (String line : table.lines().toList()) {
            java.util.regex.Matcher m = row.matcher(line);
            if (m.matches()) {
                assertThat(rows.put(Long.parseLong(m.group(2)), List.of(m.group(4), m.group(5), m.group(6), m.group(7))))
                        .as("one row for LWP %s in\n%s", m.group(2), table).isNull();
            }
        }
        Map<Long, List<String>> recorded = new HashMap<>();
        for (Facts.ThreadFacts thread : facts.threads()) {
            recorded.put(thread.lwp(), List.of(String.valueOf(thread.threadNum()), String.valueOf(thread.level()),
                    String.valueOf(thread.teamSize()), thread.teamPath().isEmpty() ? "-" : thread.teamPath()));
        }
        assertThat(rows).as(table).isEqualTo(recorded);
    }

    /** The variables of one scope, by name. */
    static Map<String, String> scopeVariables(DapTestClient client, JsonObject scopesBody, String scopeName)
            throws java.io.IOException {
        for (JsonElement element : scopesBody.getAsJsonArray("scopes")) {
            JsonObject scope = element.getAsJsonObject();
            if (scope.get("name").getAsString().equals(scopeName)) {
                JsonObject arguments = new JsonObject();
                arguments.addProperty("variablesReference", scope.get("variablesReference").getAsInt());
                Map<String, String> values = new LinkedHashMap<>();
                for (JsonElement variable : client.body("variables", arguments).getAsJsonArray("variables")) {
                    values.put(variable.getAsJsonObject().get("name").getAsString(),
                            variable.getAsJsonObject().get("value").getAsString());
                }
                return values;
            }
        }
        throw new AssertionError("no scope " + scopeName + " in " + scopesBody);
    }

    static List<String> scopeNames(JsonObject scopesBody) {
        return scopesBody.getAsJsonArray("scopes").asList().stream()
                .map(scope -> scope.getAsJsonObject().get("name").getAsString()).toList();
    }

    /** The OpenMP scopes of a thread's frame agree with what that thread recorded. */
    static void assertScopesMatch(DapTestClient client, JsonObject scopesBody, Facts.ThreadFacts thread)
            throws java.io.IOException {
        assertThat(scopeNames(scopesBody)).containsExactly("Locals", "OpenMP task", "OpenMP parallel region",
                "OpenMP thread", "OpenMP process");
        Map<String, String> region = scopeVariables(client, scopesBody, "OpenMP parallel region");
        assertThat(region).containsEntry("team-size-var", String.valueOf(thread.teamSize()))
                .containsEntry("levels-var", String.valueOf(thread.level()))
                .containsEntry("active-levels-var", String.valueOf(thread.activeLevel()));
        Map<String, String> threadRows = scopeVariables(client, scopesBody, "OpenMP thread");
        assertThat(threadRows).containsEntry("thread-num-var", String.valueOf(thread.threadNum()))
                .containsEntry("dyn-var", thread.number("dynamic") != 0 ? "true" : "false");
        Map<String, String> task = scopeVariables(client, scopesBody, "OpenMP task");
        assertThat(task).containsEntry("max-active-levels-var", thread.get("max_active_levels"))
                .containsEntry("thread-limit-var", thread.get("thread_limit"))
                .containsEntry("run-sched-var", thread.get("schedule"));
        assertThat(task.get("kind")).startsWith("implicit");
        Map<String, String> process = scopeVariables(client, scopesBody, "OpenMP process");
        assertThat(process).containsKey("stacksize-var").containsEntry("debug-var", "true");
    }

    static JsonObject args(Object... keyValues) {
        JsonObject json = new JsonObject();
        for (int i = 0; i < keyValues.length; i += 2) {
            String key = (String) keyValues[i];
            Object value = keyValues[i + 1];
            switch (value) {
                case JsonElement element -> json.add(key, element);
                case Number number -> json.addProperty(key, number);
                case Boolean bool -> json.addProperty(key, bool);
                default -> json.addProperty(key, value.toString());
            }
        }
        return json;
    }

    static JsonArray array(Object... values) {
        JsonArray array = new JsonArray();
        for (Object value : values) {
            switch (value) {
                case JsonElement element -> array.add(element);
                default -> array.add(value.toString());
            }
        }
        return array;
    }
}
