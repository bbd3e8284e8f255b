package dev.jompd.cli;

import dev.jompd.report.TextReport;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

import java.util.Set;

/**
 * The option values jompd checks when it reads the command line: a bad one is a usage error (exit 2) that picocli
 * reports with the option's name ({@code Invalid value for option '--color': ...}). {@link DirectCommandLine}
 * takes only values these accept and leaves the rest to picocli, so both readers refuse the same values alike.
 */
final class Values {
    private Values() {}

    static final Set<String> COLOURS = Set.of("auto", "always", "never");

    /** {@code --color}: auto, always or never. */
    static final class Colour implements ITypeConverter<String> {
        @Override
        public String convert(String value) {
            if (!COLOURS.contains(value)) {
                throw new TypeConversionException("expected auto, always or never, got '" + value + "'");
            }
            return value;
        }
    }

    /** {@code --history}: a number of events (0 or more) or {@code all}. */
    static final class History implements ITypeConverter<String> {
        @Override
        public String convert(String value) {
            if (!isHistory(value)) {
                throw new TypeConversionException("expected a number of events (0 or more) or 'all', got '" + value + "'");
            }
            return value;
        }
    }

    static boolean isHistory(String value) {
        try {
            TextReport.Options.parseHistory(value);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** A process id: a positive decimal number. */
    static final class ProcessId implements ITypeConverter<Long> {
        @Override
        public Long convert(String value) {
            return positive(value, "a process id (a positive number)");
        }
    }

    /** A count of things done at once: a positive decimal number. */
    static final class Count implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            long count = positive(value, "a positive number");
            if (count > Integer.MAX_VALUE) {
                throw new TypeConversionException("expected a positive number, got '" + value + "'");
            }
            return (int) count;
        }
    }

    /** A time in seconds: a positive decimal number ({@code 90}, {@code 2.5}; at most 10^9). */
    static final class Seconds implements ITypeConverter<Double> {
        @Override
        public Double convert(String value) {
            double seconds;
            try {
                seconds = Double.parseDouble(value);
            } catch (NumberFormatException e) {
                seconds = Double.NaN;
            }
            if (!(seconds > 0 && seconds <= 1e9) || !value.matches("[0-9]*\\.?[0-9]+")) {
                throw new TypeConversionException("expected a number of seconds greater than 0, got '" + value + "'");
            }
            return seconds;
        }
    }

    private static long positive(String value, String expected) {
        if (!value.matches("[0-9]{1,18}") || Long.parseLong(value) == 0) {
            throw new TypeConversionException("expected " + expected + ", got '" + value + "'");
        }
        return Long.parseLong(value);
    }
}
