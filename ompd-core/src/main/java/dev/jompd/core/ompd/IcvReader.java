package dev.jompd.core.ompd;

import dev.jompd.core.ompd.Icvs.IcvValue;

import java.util.List;
import java.util.function.Function;
import java.util.function.ToLongFunction;

/**
 * How one ICV is read: the reader column of the ICV table ({@link Icv}). It takes the handle of one scope
 * and reads a number (shown in its {@link IcvForm}), a per-level list (whose integer form is its first
 * element, {@code incomplete} when there are more), text (no integer form), or nothing, with why.
 */
sealed interface IcvReader {
    /** The scope whose handles this reader takes. */
    Scope scope();

    /** ompd_get_icv_from_scope for a handle of {@link #scope()}. */
    IcvValue value(OmpdHandle handle, Icv icv);

    /** ompd_get_icv_string_from_scope for a handle of {@link #scope()}. */
    String string(OmpdHandle handle, Icv icv);

    /** A scope with the Java type of its handles, so a row's reader is written against that type. */
    record Of<H extends OmpdHandle>(Scope scope, Class<H> handles) {}

    Of<AddressSpaceHandle> PROCESS = new Of<>(Scope.ADDRESS_SPACE, AddressSpaceHandle.class);
    Of<ThreadHandle> THREAD = new Of<>(Scope.THREAD, ThreadHandle.class);
    Of<ParallelHandle> PARALLEL = new Of<>(Scope.PARALLEL, ParallelHandle.class);
    Of<TaskHandle> TASK = new Of<>(Scope.TASK, TaskHandle.class);
    /** OpenMP 6.0's teams scope: parallel handles of a teams construct's team ({@link ParallelHandle#teams()}). */
    Of<ParallelHandle> TEAMS = new Of<>(Scope.TEAMS, ParallelHandle.class);

    /** An integer ICV, shown in {@code form}. */
    static <H extends OmpdHandle> IcvReader number(Of<H> of, ToLongFunction<H> read, IcvForm form) {
        return new Number(of.scope(), handle -> read.applyAsLong(of.handles().cast(handle)), form);
    }

    /** A list with one element per nesting level; {@code names} name its values (null: numbers). */
    static <H extends OmpdHandle> IcvReader levels(Of<H> of, Function<H, List<Long>> read, List<String> names) {
        return new Levels(of.scope(), handle -> read.apply(of.handles().cast(handle)), names);
    }

    /** A string ICV: it has no integer form. */
    static <H extends OmpdHandle> IcvReader text(Of<H> of, Function<H, String> read) {
        return new Text(of.scope(), handle -> read.apply(of.handles().cast(handle)));
    }

    /** An ICV libomp keeps where jompd cannot read it: both forms answer {@code unavailable} with why. */
    static IcvReader unavailable(Of<?> of, String why) {
        return new Refused(of.scope(), OmpdRc.UNAVAILABLE, why);
    }

    /** An ICV the runtime does not keep: both forms answer {@code unsupported} with why. */
    static IcvReader unsupported(Of<?> of, String why) {
        return new Refused(of.scope(), OmpdRc.UNSUPPORTED, why);
    }

    /** An ICV both of whose forms answer {@code rc} with why (unavailable, unsupported). */
    record Refused(Scope scope, OmpdRc rc, String why) implements IcvReader {
        @Override
        public IcvValue value(OmpdHandle handle, Icv icv) {
            throw new OmpdException(rc, why);
        }

        @Override
        public String string(OmpdHandle handle, Icv icv) {
            throw new OmpdException(rc, why);
        }
    }

    record Number(Scope scope, ToLongFunction<OmpdHandle> read, IcvForm form) implements IcvReader {
        @Override
        public IcvValue value(OmpdHandle handle, Icv icv) {
            return new IcvValue(read.applyAsLong(handle), false);
        }

        @Override
        public String string(OmpdHandle handle, Icv icv) {
            return form.format(read.applyAsLong(handle));
        }
    }

    record Levels(Scope scope, Function<OmpdHandle, List<Long>> read, List<String> names) implements IcvReader {
        @Override
        public IcvValue value(OmpdHandle handle, Icv icv) {
            List<Long> values = read.apply(handle);
            return new IcvValue(values.getFirst(), values.size() > 1);
        }

        @Override
        public String string(OmpdHandle handle, Icv icv) {
            StringBuilder text = new StringBuilder();
            for (long value : read.apply(handle)) {
                if (!text.isEmpty()) {
                    text.append(',');
                }
                text.append(names != null && value >= 0 && value < names.size() ? names.get((int) value)
                        : Long.toString(value));
            }
            return text.toString();
        }
    }

    record Text(Scope scope, Function<OmpdHandle, String> read) implements IcvReader {
        @Override
        public IcvValue value(OmpdHandle handle, Icv icv) {
            throw new OmpdException(OmpdRc.INCOMPATIBLE, icv + " is a string: use the string form");
        }

        @Override
        public String string(OmpdHandle handle, Icv icv) {
            return read.apply(handle);
        }
    }
}
