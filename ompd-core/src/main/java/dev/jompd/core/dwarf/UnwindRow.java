package dev.jompd.core.dwarf;

import java.util.Arrays;

/**
 * The call frame table's row for one pc: how to compute the CFA and each caller register.
 *
 * @param cfa                   a {@link UnwindRule.CfaRegisterOffset} or {@link UnwindRule.CfaExpression}
 * @param registers             rules by DWARF register number (x86-64: 0..16, 16 being the return address)
 * @param returnAddressRegister the column holding the return address (16 on x86-64)
 * @param signalFrame           whether the FDE is a signal trampoline's ({@code S} augmentation): the
 *                              caller's pc is exact, not a return address
 */
public record UnwindRow(UnwindRule cfa, UnwindRule[] registers, int returnAddressRegister, boolean signalFrame) {
    public UnwindRule rule(int register) {
        return register >= 0 && register < registers.length ? registers[register] : UnwindRule.SAME_VALUE;
    }

    @Override
    public String toString() {
        return "UnwindRow[cfa=" + cfa + ", registers=" + Arrays.toString(registers) + ", ra=" + returnAddressRegister
                + (signalFrame ? ", signal" : "") + "]";
    }
}
