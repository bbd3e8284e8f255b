package dev.jompd.dap.mi;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A GDB/MI value: a C string constant, a tuple {@code {a="1",b="2"}} or a list {@code [..]}. Tuples and
 * lists keep every result in order, repeated names included ({@code stack=[frame={..},frame={..}]}).
 */
public sealed interface MiValue permits MiValue.Const, MiValue.Tuple, MiValue.ListValue {

    /** {@code name=value}; the name is null for the elements of a value list ({@code ["a","b"]}). */
    record Result(String name, MiValue value) {}

    /** A C string constant, already decoded. */
    record Const(String text) implements MiValue {
        @Override
        public String toString() {
            return MiStrings.quote(text);
        }
    }

    /** {@code {name=value,...}}. */
    record Tuple(List<Result> results) implements MiValue {
        public static final Tuple EMPTY = new Tuple(List.of());

        public Tuple {
            results = List.copyOf(results);
        }

        @Override
        public String toString() {
            return "{" + render(results) + "}";
        }
    }

    /** {@code [value,...]} or {@code [name=value,...]}. */
    record ListValue(List<Result> results) implements MiValue {
        public ListValue {
            results = List.copyOf(results);
        }

        @Override
        public String toString() {
            return "[" + render(results) + "]";
        }
    }

    private static String render(List<Result> results) {
        StringBuilder out = new StringBuilder();
        for (Result result : results) {
            if (!out.isEmpty()) {
                out.append(',');
            }
            if (result.name() != null) {
                out.append(result.name()).append('=');
            }
            out.append(result.value());
        }
        return out.toString();
    }

    /** The results of a tuple or list (empty for a constant). */
    default List<Result> results() {
        return switch (this) {
            case Tuple tuple -> tuple.results();
            case ListValue list -> list.results();
            case Const c -> List.of();
        };
    }

    /** The first value named {@code name}, in a tuple or a result list. */
    default Optional<MiValue> get(String name) {
        for (Result result : results()) {
            if (name.equals(result.name())) {
                return Optional.of(result.value());
            }
        }
        return Optional.empty();
    }

    /** Every value named {@code name} (lists and tuples may repeat names). */
    default List<MiValue> getAll(String name) {
        List<MiValue> values = new ArrayList<>();
        for (Result result : results()) {
            if (name.equals(result.name())) {
                values.add(result.value());
            }
        }
        return values;
    }

    /** Every element's value, names dropped: the items of a list. */
    default List<MiValue> items() {
        return results().stream().map(Result::value).toList();
    }

    /** The text of the constant named {@code name}, when there is one. */
    default Optional<String> string(String name) {
        return get(name).flatMap(value -> value instanceof Const c ? Optional.of(c.text()) : Optional.empty());
    }

    /** The text of the constant named {@code name}. */
    default String requireString(String name) {
        return string(name).orElseThrow(() -> new MiFormatException("no string field " + name + " in " + this));
    }

    /** The text of this constant. */
    default String text() {
        if (this instanceof Const c) {
            return c.text();
        }
        throw new MiFormatException("not a string constant: " + this);
    }
}
