package dev.jompd.core.recorder;

import java.util.List;
import java.util.OptionalLong;
import java.util.Set;

/**
 * A device the runtime initialised, with what its tracing interface offered.
 *
 * @param entryPoints the device tracing entry points its lookup returned (names as in OpenMP 5.1 §4.6.2)
 * @param tracing     whether tracing runs on it; UNAVAILABLE when the lookup offers no ompt_start_trace
 * @param traceRecordsReceived every trace record received; {@code trace} holds the most recent ones
 */
public record DeviceRecord(int deviceNumber, String type, long initializeTimeNanos, OptionalLong finalizeTimeNanos,
                           long loads, long loadBytes, Set<String> entryPoints, Tracing tracing,
                           long traceRecordsReceived, List<TraceRecord> trace) {

    public enum Tracing { UNKNOWN, UNAVAILABLE, STARTED, FAILED, STOPPED }

    /** One device trace record: its type, device time and the host time ompt_translate_time gave (0 if none). */
    public record TraceRecord(int callbackId, long deviceTime, long hostTimeNanos, long targetId) {}

    static final List<String> ENTRY_POINTS = List.of("ompt_set_trace_ompt", "ompt_start_trace", "ompt_pause_trace",
            "ompt_flush_trace", "ompt_stop_trace", "ompt_advance_buffer_cursor", "ompt_get_record_ompt",
            "ompt_get_device_time", "ompt_translate_time", "ompt_get_record_type");
}
