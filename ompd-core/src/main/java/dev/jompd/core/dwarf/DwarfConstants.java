package dev.jompd.core.dwarf;

/**
 * The DWARF numbers {@code .debug_info} is read with (DWARF 5, section 7; GNU extensions where noted): the
 * tags, attributes, forms and language codes of the entries jompd reads, in one place.
 */
final class DwarfConstants {
    private DwarfConstants() {}

    // Tags (DW_TAG_*)
    static final int DW_TAG_CLASS_TYPE = 0x02;
    static final int DW_TAG_ENUMERATION_TYPE = 0x04;
    static final int DW_TAG_FORMAL_PARAMETER = 0x05;
    static final int DW_TAG_POINTER_TYPE = 0x0f;
    static final int DW_TAG_REFERENCE_TYPE = 0x10;
    static final int DW_TAG_COMPILE_UNIT = 0x11;
    static final int DW_TAG_STRUCTURE_TYPE = 0x13;
    static final int DW_TAG_TYPEDEF = 0x16;
    static final int DW_TAG_UNION_TYPE = 0x17;
    static final int DW_TAG_UNSPECIFIED_PARAMETERS = 0x18;
    static final int DW_TAG_INLINED_SUBROUTINE = 0x1d;
    static final int DW_TAG_MODULE = 0x1e;
    static final int DW_TAG_BASE_TYPE = 0x24;
    static final int DW_TAG_CONST_TYPE = 0x26;
    static final int DW_TAG_SUBPROGRAM = 0x2e;
    static final int DW_TAG_VOLATILE_TYPE = 0x35;
    static final int DW_TAG_RESTRICT_TYPE = 0x37;
    static final int DW_TAG_NAMESPACE = 0x39;
    static final int DW_TAG_PARTIAL_UNIT = 0x3c;
    static final int DW_TAG_RVALUE_REFERENCE_TYPE = 0x42;
    static final int DW_TAG_CALL_SITE = 0x48;
    static final int DW_TAG_SKELETON_UNIT = 0x4a;
    /** GNU's DWARF 4 extension, DW_TAG_call_site before DWARF 5. */
    static final int DW_TAG_GNU_CALL_SITE = 0x4109;

    // Attributes (DW_AT_*)
    static final int DW_AT_NAME = 0x03;
    static final int DW_AT_STMT_LIST = 0x10;
    static final int DW_AT_LOW_PC = 0x11;
    static final int DW_AT_HIGH_PC = 0x12;
    static final int DW_AT_LANGUAGE = 0x13;
    static final int DW_AT_COMP_DIR = 0x1b;
    static final int DW_AT_ABSTRACT_ORIGIN = 0x31;
    static final int DW_AT_ARTIFICIAL = 0x34;
    static final int DW_AT_SPECIFICATION = 0x47;
    static final int DW_AT_TYPE = 0x49;
    static final int DW_AT_RANGES = 0x55;
    static final int DW_AT_CALL_COLUMN = 0x57;
    static final int DW_AT_CALL_FILE = 0x58;
    static final int DW_AT_CALL_LINE = 0x59;
    static final int DW_AT_LINKAGE_NAME = 0x6e;
    static final int DW_AT_STR_OFFSETS_BASE = 0x72;
    static final int DW_AT_ADDR_BASE = 0x73;
    static final int DW_AT_RNGLISTS_BASE = 0x74;
    static final int DW_AT_CALL_RETURN_PC = 0x7d;
    static final int DW_AT_CALL_ORIGIN = 0x7f;
    static final int DW_AT_CALL_TAIL_CALL = 0x82;
    /** GNU's linkage name before DWARF 4 (gcc's DW_AT_MIPS_linkage_name). */
    static final int DW_AT_MIPS_LINKAGE_NAME = 0x2007;
    /** GNU's DW_AT_call_tail_call before DWARF 5. */
    static final int DW_AT_GNU_TAIL_CALL = 0x2115;

    // Forms (DW_FORM_*)
    static final int DW_FORM_ADDR = 0x01;
    static final int DW_FORM_BLOCK2 = 0x03;
    static final int DW_FORM_BLOCK4 = 0x04;
    static final int DW_FORM_DATA2 = 0x05;
    static final int DW_FORM_DATA4 = 0x06;
    static final int DW_FORM_DATA8 = 0x07;
    static final int DW_FORM_STRING = 0x08;
    static final int DW_FORM_BLOCK = 0x09;
    static final int DW_FORM_BLOCK1 = 0x0a;
    static final int DW_FORM_DATA1 = 0x0b;
    static final int DW_FORM_FLAG = 0x0c;
    static final int DW_FORM_SDATA = 0x0d;
    static final int DW_FORM_STRP = 0x0e;
    static final int DW_FORM_UDATA = 0x0f;
    static final int DW_FORM_REF_ADDR = 0x10;
    static final int DW_FORM_REF1 = 0x11;
    static final int DW_FORM_REF2 = 0x12;
    static final int DW_FORM_REF4 = 0x13;
    static final int DW_FORM_REF8 = 0x14;
    static final int DW_FORM_REF_UDATA = 0x15;
    static final int DW_FORM_INDIRECT = 0x16;
    static final int DW_FORM_SEC_OFFSET = 0x17;
    static final int DW_FORM_EXPRLOC = 0x18;
    static final int DW_FORM_FLAG_PRESENT = 0x19;
    static final int DW_FORM_STRX = 0x1a;
    static final int DW_FORM_ADDRX = 0x1b;
    static final int DW_FORM_REF_SUP4 = 0x1c;
    static final int DW_FORM_STRP_SUP = 0x1d;
    static final int DW_FORM_DATA16 = 0x1e;
    static final int DW_FORM_LINE_STRP = 0x1f;
    static final int DW_FORM_REF_SIG8 = 0x20;
    static final int DW_FORM_IMPLICIT_CONST = 0x21;
    static final int DW_FORM_LOCLISTX = 0x22;
    static final int DW_FORM_RNGLISTX = 0x23;
    static final int DW_FORM_REF_SUP8 = 0x24;
    static final int DW_FORM_STRX1 = 0x25;
    static final int DW_FORM_STRX2 = 0x26;
    static final int DW_FORM_STRX3 = 0x27;
    static final int DW_FORM_STRX4 = 0x28;
    static final int DW_FORM_ADDRX1 = 0x29;
    static final int DW_FORM_ADDRX2 = 0x2a;
    static final int DW_FORM_ADDRX3 = 0x2b;
    static final int DW_FORM_ADDRX4 = 0x2c;
    /** GNU split-DWARF forms (DWARF 4 with -gsplit-dwarf). */
    static final int DW_FORM_GNU_ADDR_INDEX = 0x1f01;
    static final int DW_FORM_GNU_STR_INDEX = 0x1f02;
    static final int DW_FORM_GNU_REF_ALT = 0x1f20;
    static final int DW_FORM_GNU_STRP_ALT = 0x1f21;

    // Languages (DW_LANG_*)
    static final int DW_LANG_C89 = 0x01;
    static final int DW_LANG_C = 0x02;
    static final int DW_LANG_C_PLUS_PLUS = 0x04;
    static final int DW_LANG_FORTRAN77 = 0x07;
    static final int DW_LANG_FORTRAN90 = 0x08;
    static final int DW_LANG_C99 = 0x0c;
    static final int DW_LANG_FORTRAN95 = 0x0e;
    static final int DW_LANG_C_PLUS_PLUS_03 = 0x19;
    static final int DW_LANG_C_PLUS_PLUS_11 = 0x1a;
    static final int DW_LANG_C11 = 0x1d;
    static final int DW_LANG_C_PLUS_PLUS_14 = 0x21;
    static final int DW_LANG_FORTRAN03 = 0x22;
    static final int DW_LANG_FORTRAN08 = 0x23;
    static final int DW_LANG_C_PLUS_PLUS_17 = 0x2a;
    static final int DW_LANG_C_PLUS_PLUS_20 = 0x2b;
    static final int DW_LANG_C17 = 0x2c;
}
