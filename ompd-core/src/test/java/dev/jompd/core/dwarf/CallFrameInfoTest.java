package dev.jompd.core.dwarf;

import dev.jompd.core.elf.ByteView;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CallFrameInfoTest {
    private static final int RBP = 6;
    private static final int RSP = 7;
    private static final int RA = 16;

    /** A .debug_frame with one CIE and one FDE for [0x1000, 0x1100), its rows as the comments say. */
    private static ByteView debugFrame(byte[] extraFdeInstructions) {
        ByteArrayOutputStream cie = new ByteArrayOutputStream();
        cie.writeBytes(new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff}); // CIE id
        cie.write(1);             // version
        cie.write(0);             // augmentation ""
        cie.write(1);             // code alignment
        cie.write(0x78);          // data alignment -8
        cie.write(RA);            // return address column
        cie.writeBytes(new byte[] {0x0c, RSP, 8});      // def_cfa rsp+8
        cie.writeBytes(new byte[] {(byte) (0x80 | RA), 1}); // offset ra at cfa-8
        cie.write(0);
        ByteArrayOutputStream fde = new ByteArrayOutputStream();
        fde.writeBytes(le32(0));                         // CIE pointer
        fde.writeBytes(le64(0x1000));
        fde.writeBytes(le64(0x100));
        fde.write(0x41);                                 // advance 1 -> 0x1001
        fde.writeBytes(new byte[] {0x0e, 16});           // def_cfa_offset 16
        fde.writeBytes(new byte[] {(byte) (0x80 | RBP), 2}); // offset rbp at cfa-16
        fde.write(0x43);                                 // advance 3 -> 0x1004
        fde.writeBytes(new byte[] {0x0d, RBP});          // def_cfa_register rbp
        fde.writeBytes(new byte[] {0x02, 0x20});         // advance_loc1 32 -> 0x1024
        fde.write(0x0a);                                 // remember_state
        fde.writeBytes(new byte[] {0x0c, RSP, 8});       // def_cfa rsp+8
        fde.write(0x41);                                 // advance 1 -> 0x1025
        fde.write(0x0b);                                 // restore_state
        fde.writeBytes(extraFdeInstructions);
        ByteArrayOutputStream section = new ByteArrayOutputStream();
        section.writeBytes(le32(cie.size()));
        section.writeBytes(cie.toByteArray());
        section.writeBytes(le32(fde.size()));
        section.writeBytes(fde.toByteArray());
        return ByteView.of(section.toByteArray(), "test .debug_frame");
    }

    private static byte[] le32(long value) {
        return ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt((int) value).array();
    }

    private static byte[] le64(long value) {
        return ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(value).array();
    }

    private static UnwindRow row(CallFrameInfo cfi, long pc) {
        return cfi.rowFor(pc).orElseThrow();
    }

    @Test
    void rowsFollowTheInstructionsIncludingRememberAndRestoreState() {
        CallFrameInfo cfi = CallFrameInfo.debugFrame(debugFrame(new byte[0]));
        assertThat(cfi.size()).isEqualTo(1);
        assertThat(row(cfi, 0x1000).cfa()).isEqualTo(new UnwindRule.CfaRegisterOffset(RSP, 8));
        assertThat(row(cfi, 0x1000).rule(RA)).isEqualTo(new UnwindRule.AtCfaOffset(-8));
        assertThat(row(cfi, 0x1000).rule(RBP)).isEqualTo(UnwindRule.SAME_VALUE);
        assertThat(row(cfi, 0x1003).cfa()).isEqualTo(new UnwindRule.CfaRegisterOffset(RSP, 16));
        assertThat(row(cfi, 0x1003).rule(RBP)).isEqualTo(new UnwindRule.AtCfaOffset(-16));
        assertThat(row(cfi, 0x1004).cfa()).isEqualTo(new UnwindRule.CfaRegisterOffset(RBP, 16));
        assertThat(row(cfi, 0x1024).cfa()).isEqualTo(new UnwindRule.CfaRegisterOffset(RSP, 8));
        assertThat(row(cfi, 0x1025).cfa()).isEqualTo(new UnwindRule.CfaRegisterOffset(RBP, 16));
        assertThat(row(cfi, 0x10ff).rule(RBP)).isEqualTo(new UnwindRule.AtCfaOffset(-16));
        assertThat(cfi.rowFor(0x0fff)).isEmpty();
        assertThat(cfi.rowFor(0x1100)).isEmpty();
    }

    @Test
    void restoreStateWithoutRememberIsAFormatError() {
        CallFrameInfo cfi = CallFrameInfo.debugFrame(debugFrame(new byte[] {0x41, 0x0b}));
        assertThatThrownBy(() -> cfi.rowFor(0x10f0)).isInstanceOf(DwarfFormatException.class)
                .hasMessageContaining("restore_state");
    }

    @Test
    void unknownInstructionIsAFormatError() {
        CallFrameInfo cfi = CallFrameInfo.debugFrame(debugFrame(new byte[] {0x41, 0x3f}));
        assertThatThrownBy(() -> cfi.rowFor(0x10f0)).isInstanceOf(DwarfFormatException.class)
                .hasMessageContaining("unknown CFA instruction");
    }

    @Test
    void glibcPltExpressionComputesTheCfaFromRspAndRip() {
        // DW_OP_breg7 8; DW_OP_breg16 0; DW_OP_lit15; DW_OP_and; DW_OP_lit11; DW_OP_ge; DW_OP_lit3; DW_OP_shl; DW_OP_plus
        ByteView expression = ByteView.of(new byte[] {0x77, 8, (byte) 0x80, 0, 0x3f, 0x1a, 0x3b, 0x2a, 0x33, 0x24, 0x22}, "plt");
        long rsp = 0x7fff_0000L;
        DwarfExpression.Registers before = register -> register == RSP ? OptionalLong.of(rsp)
                : register == RA ? OptionalLong.of(0x4005) : OptionalLong.empty();
        DwarfExpression.Registers after = register -> register == RSP ? OptionalLong.of(rsp)
                : register == RA ? OptionalLong.of(0x400b) : OptionalLong.empty();
        DwarfExpression.Memory noMemory = (address, size) -> {
            throw new AssertionError("no memory read expected");
        };
        assertThat(DwarfExpression.evaluate(expression, OptionalLong.empty(), before, noMemory)).isEqualTo(rsp + 8);
        assertThat(DwarfExpression.evaluate(expression, OptionalLong.empty(), after, noMemory)).isEqualTo(rsp + 16);
    }

    @Test
    void expressionsAreBoundedAndNeverLoop() {
        DwarfExpression.Registers none = register -> OptionalLong.empty();
        DwarfExpression.Memory memory = (address, size) -> address;
        ByteView loop = ByteView.of(new byte[] {0x2f, (byte) 0xfd, (byte) 0xff}, "skip -3: itself"); // DW_OP_skip -3
        assertThatThrownBy(() -> DwarfExpression.evaluate(loop, OptionalLong.empty(), none, memory))
                .isInstanceOf(DwarfFormatException.class).hasMessageContaining("operations");
        byte[] pushes = new byte[100];
        java.util.Arrays.fill(pushes, (byte) 0x30);
        assertThatThrownBy(() -> DwarfExpression.evaluate(ByteView.of(pushes, "deep"), OptionalLong.empty(), none, memory))
                .isInstanceOf(DwarfFormatException.class).hasMessageContaining("deeper");
        assertThatThrownBy(() -> DwarfExpression.evaluate(ByteView.of(new byte[] {0x22}, "plus"), OptionalLong.empty(), none, memory))
                .isInstanceOf(DwarfFormatException.class).hasMessageContaining("underflow");
        assertThatThrownBy(() -> DwarfExpression.evaluate(ByteView.of(new byte[] {0x76, 0}, "breg6"), OptionalLong.empty(), none, memory))
                .isInstanceOf(DwarfFormatException.class).hasMessageContaining("register 6");
        assertThat(DwarfExpression.evaluate(ByteView.of(new byte[] {0x06}, "deref"), OptionalLong.of(42), none, memory))
                .isEqualTo(42);
    }
}
