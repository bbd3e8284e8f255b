package dev.jompd.core.recorder;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** How an event reads in text: the id slots named for what the recorder keeps in them per callback. */
class RecordedEventTest {
    private static RecordedEvent event(OmptCallback callback, int endpoint, long kind, long taskId, long value, long aux) {
        return new RecordedEvent(1, 0, callback.id(), endpoint, kind, 0, 0, taskId, value, aux);
    }

    @Test
    void aTargetRegionNamesItsTaskTargetAndDevice() {
        assertThat(event(OmptCallback.TARGET_EMI, RecordedEvent.BEGIN, 1, 7, 3, 2).describe())
                .isEqualTo("target_emi begin target task 7 target 3 device 2");
    }

    @Test
    void aTargetOperationKeepsTheTargetRegionsIdWhereOthersKeepATask() {
        assertThat(event(OmptCallback.TARGET_SUBMIT_EMI, RecordedEvent.BEGIN, 0, 3, 1, 0).describe())
                .contains(" target 3").doesNotContain(" task ");
        assertThat(event(OmptCallback.TARGET_DATA_OP_EMI, RecordedEvent.BEGIN, 1, 3, 4096, 0).describe())
                .contains(" target 3").doesNotContain(" task ");
    }

    @Test
    void aMutexEventNamesItsWaitId() {
        assertThat(event(OmptCallback.MUTEX_ACQUIRED, 0, 1, 0, 0x1234, 0).describe()).endsWith(" wait_id 0x1234");
    }
}
