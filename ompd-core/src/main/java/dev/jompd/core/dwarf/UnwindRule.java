package dev.jompd.core.dwarf;

import dev.jompd.core.elf.ByteView;

/** How to find a caller's register (or the CFA) in one row of the call frame table. */
public sealed interface UnwindRule {
    /** The register has no value in the caller (for the return address: the outermost frame). */
    record Undefined() implements UnwindRule {}

    /** The caller's value is the callee's (not saved). */
    record SameValue() implements UnwindRule {}

    /** Saved in memory at CFA + offset. */
    record AtCfaOffset(long offset) implements UnwindRule {}

    /** The value is CFA + offset. */
    record ValueCfaOffset(long offset) implements UnwindRule {}

    /** Saved in another register. */
    record InRegister(int register) implements UnwindRule {}

    /** Saved in memory at the address the expression computes (the CFA pushed first). */
    record AtExpression(ByteView expression) implements UnwindRule {}

    /** The value is what the expression computes (the CFA pushed first). */
    record ValueExpression(ByteView expression) implements UnwindRule {}

    /** CFA rule: register + offset. */
    record CfaRegisterOffset(int register, long offset) implements UnwindRule {}

    /** CFA rule: the value of an expression (nothing pushed first). */
    record CfaExpression(ByteView expression) implements UnwindRule {}

    UnwindRule UNDEFINED = new Undefined();
    UnwindRule SAME_VALUE = new SameValue();
}
