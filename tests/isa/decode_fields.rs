//! The decoder field by field, on every generation: `v_xad_u32`'s operands and modifier
//! fields, special operands (m0, null, vcc, inline constants), gfx12's memory fields, gfx10's
//! waitcnt; modifiers on integer ops are refused as unsupported, never ignored.

use crate::support::{hex, llvm_mc_rows};
use std::time::Duration;
use xad_harness::isa::{
    decode_one, decode_one_for, gfx9, DecodeError, Dpp, Generation, Isa, Op, Src, M0, NULL, VCC,
};
use xad_harness::platform::codeobj::KernelDescriptor;
use xad_harness::platform::device::{Device, Dispatch};
use xad_harness::platform::emu::EmuDevice;
use xad_harness::platform::target::{self};

#[test]
fn xad_fields_decode_faithfully() {
    // v_xad_u32_e64_dpp v5, v1, v2, v3 row_shl:1 row_mask:0xa bank_mask:0x5 bound_ctrl:1 fi:1
    let bytes = [
        0x05, 0x00, 0x45, 0xd6, 0xfa, 0x04, 0x0e, 0x04, 0x01, 0x01, 0x0d, 0xa5,
    ];
    let (inst, len) = decode_one(&bytes).unwrap();
    assert_eq!(len, 12);
    assert_eq!(inst.op, Op::VXadU32);
    assert_eq!(inst.dst, 5);
    assert_eq!(inst.src, [Src::Vgpr(1), Src::Vgpr(2), Src::Vgpr(3)]);
    assert_eq!(
        inst.dpp,
        Some(Dpp::Dpp16 {
            ctrl: 0x101,
            row_mask: 0xa,
            bank_mask: 0x5,
            bound_ctrl: true,
            fi: true
        })
    );
    // v_xad_u32 v5, -1, 0.5, 0.15915494 (1/(2*pi))
    let (inst, _) = decode_one(&[0x05, 0x00, 0x45, 0xd6, 0xc1, 0xe0, 0xe1, 0x03]).unwrap();
    assert_eq!(
        inst.src,
        [
            Src::Const(0xffff_ffff),
            Src::Const(0x3f00_0000),
            Src::Const(0x3e22_f983)
        ]
    );
    // v_xad_u32 v5, src_scc, null, exec_hi
    let (inst, _) = decode_one(&[0x05, 0x00, 0x45, 0xd6, 0xfd, 0xf8, 0xfc, 0x01]).unwrap();
    assert_eq!(inst.src, [Src::Scc, Src::Null, Src::Sgpr(127)]);
    // DPP8 with fi (0xEA)
    let (inst, _) = decode_one(&[
        0x05, 0x00, 0x45, 0xd6, 0xea, 0x04, 0x0e, 0x04, 0x01, 0x77, 0x39, 0x05,
    ])
    .unwrap();
    assert_eq!(
        inst.dpp,
        Some(Dpp::Dpp8 {
            sel: [7, 6, 5, 4, 3, 2, 1, 0],
            fi: true
        })
    );
}

#[test]
fn modifiers_on_integer_ops_are_unsupported_not_ignored() {
    // v_add3_u32 v5, v1, v2, v3: every integer op but v_xad_u32 refuses them.
    let base = [0x05u8, 0x00, 0x55, 0xd6, 0x01, 0x05, 0x0e, 0x04];
    // clamp (bit 15), abs (10:8), op_sel (14:11), omod (59:58), neg (63:61)
    for (byte, bit, name) in [
        (1, 0x80, "clamp"),
        (1, 0x01, "abs"),
        (1, 0x08, "op_sel"),
        (7, 0x08, "omod"),
        (7, 0x20, "neg"),
    ] {
        let mut b = base;
        b[byte] |= bit;
        let err = decode_one(&b).unwrap_err();
        let msg = err.to_string();
        assert!(
            matches!(err, DecodeError::Unsupported { .. }) && msg.contains(name),
            "{name}: {msg}"
        );
        assert!(msg.contains("D655") && msg.contains("offset 0x0"), "{msg}");
    }
}

/// `v_xad_u32 v5, v1, v2, v3` with every modifier field set (NEG 101, ABS
/// 010, CLAMP, OPSEL 1001, OMOD 3) on `vop3`, the generation's VOP3 dword 0
/// of `v_xad_u32` with no field set (the fields sit at the same bits on
/// every generation).
fn xad_with_every_modifier(vop3: u32) -> Vec<u8> {
    let w0 = vop3 | 0x05 | 0b010 << 8 | 0b1001 << 11 | 1 << 15;
    let w1 = 0x040e_0501 | 0b101 << 29 | 3 << 27;
    [w0, w1].iter().flat_map(|w| w.to_le_bytes()).collect()
}

#[test]
fn xad_modifier_fields_are_decoded_on_every_generation() {
    use xad_harness::isa::Modifiers;
    let want = Modifiers {
        neg: 0b101,
        abs: 0b010,
        clamp: true,
        op_sel: 0b1001,
        omod: 3,
    };
    for (isa, vop3) in [
        (Isa::GFX9, 0xd1f3_0000),
        (Isa::GFX10, 0xd745_0000),
        (Isa::GFX1010, 0xd745_0000),
        (Isa::GFX11, 0xd645_0000),
        (Isa::GFX12, 0xd645_0000),
        (Isa::GFX1250, 0xd645_0000),
    ] {
        let bytes = xad_with_every_modifier(vop3);
        let (inst, len) = decode_one_for(isa, &bytes).unwrap_or_else(|e| {
            panic!("{:?}: {} does not decode: {e}", isa.generation, hex(&bytes))
        });
        assert_eq!(
            (inst.op, len, inst.mods),
            (Op::VXadU32, 8, want),
            "{:?}",
            isa.generation
        );
        assert_eq!(
            (inst.dst, inst.src),
            (5, [Src::Vgpr(1), Src::Vgpr(2), Src::Vgpr(3)])
        );
        assert_eq!(
            inst.to_string(),
            "v_xad_u32 v5, v1, v2, v3 neg:[1,0,1] abs:[0,1,0] op_sel:[1,0,0,1] clamp div:2",
            "{:?}",
            isa.generation
        );
        // One field at a time, each at its own bits.
        for (w, bit, field) in [
            (
                1,
                29,
                Modifiers {
                    neg: 1,
                    ..Modifiers::NONE
                },
            ),
            (
                1,
                31,
                Modifiers {
                    neg: 4,
                    ..Modifiers::NONE
                },
            ),
            (
                0,
                8,
                Modifiers {
                    abs: 1,
                    ..Modifiers::NONE
                },
            ),
            (
                0,
                15,
                Modifiers {
                    clamp: true,
                    ..Modifiers::NONE
                },
            ),
            (
                0,
                12,
                Modifiers {
                    op_sel: 2,
                    ..Modifiers::NONE
                },
            ),
            (
                1,
                27,
                Modifiers {
                    omod: 1,
                    ..Modifiers::NONE
                },
            ),
        ] {
            let mut words = [vop3 | 0x05, 0x040e_0501u32];
            words[w] |= 1 << bit;
            let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            let (inst, _) = decode_one_for(isa, &bytes).expect("decodes");
            assert_eq!(inst.mods, field, "{:?} word {w} bit {bit}", isa.generation);
        }
    }
    // Without a field set nothing is shown and nothing is decoded.
    let (plain, _) = decode_one(&[0x05, 0x00, 0x45, 0xd6, 0x01, 0x05, 0x0e, 0x04]).unwrap();
    assert_eq!(
        (plain.mods, plain.to_string()),
        (Modifiers::NONE, "v_xad_u32 v5, v1, v2, v3".into())
    );
}

#[test]
fn gfx12_memory_fields_decode_faithfully() {
    // s_load_b32 s5, s[0:1], -0x800000 (24-bit signed offset).
    let bytes = [0x40, 0x01, 0x00, 0xf4, 0x00, 0x00, 0x80, 0xf8];
    let (inst, _) = decode_one_for(Isa::GFX12, &bytes).unwrap();
    assert_eq!(
        (inst.op, inst.dst, inst.addr, inst.imm, inst.saddr),
        (Op::SLoadB32, 5, 0, -0x80_0000, None)
    );
    // The same dwords are no such instruction on gfx11 (21-bit offset, reserved bits there).
    assert!(decode_one(&bytes).map_or(true, |(g11, _)| g11.imm != inst.imm));
    // global_load_b32 v2, v1, s[4:5] offset:-8388608: vdst, vaddr, saddr, offset.
    let bytes = [
        0x04, 0x00, 0x05, 0xee, 0x02, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x80,
    ];
    let (inst, len) = decode_one_for(Isa::GFX12, &bytes).unwrap();
    assert_eq!(
        (len, inst.op, inst.dst, inst.addr, inst.saddr, inst.imm),
        (12, Op::GlobalLoadB32, 2, 1, Some(4), -0x80_0000)
    );
    // global_store_b32 v7, v5, s[10:11] offset:4: the data VGPR sits in dword 1 bits 30:23.
    let bytes = [
        0x0a, 0x80, 0x06, 0xee, 0x00, 0x00, 0x80, 0x02, 0x07, 0x04, 0x00, 0x00,
    ];
    let (inst, _) = decode_one_for(Isa::GFX12, &bytes).unwrap();
    assert_eq!(
        (inst.op, inst.data, inst.addr, inst.saddr, inst.imm),
        (Op::GlobalStoreB32, 5, 7, Some(10), 4)
    );
    assert_eq!(
        inst.to_string(),
        "global_store_b32 v7, v5, s[10:11] offset:4"
    );
}

#[test]
fn xad_and_special_operands_decode_faithfully() {
    // v_xad_u32 v5, v1, v2, v3 (D1F30005 040E0501).
    let (inst, len) = decode_one_for(
        Isa::GFX90A,
        &[0x05, 0x00, 0xf3, 0xd1, 0x01, 0x05, 0x0e, 0x04],
    )
    .unwrap();
    assert_eq!(
        (len, inst.op, inst.dst, inst.src),
        (
            8,
            Op::VXadU32,
            5,
            [Src::Vgpr(1), Src::Vgpr(2), Src::Vgpr(3)]
        )
    );
    assert_eq!(inst.generation, Generation::Gfx9);
    // v_xad_u32 v5, -1, 0.5, m0: gfx9's m0 (code 124) becomes the emulator's M0.
    let (inst, _) = decode_one_for(
        Isa::GFX90A,
        &[0x05, 0x00, 0xf3, 0xd1, 0xc1, 0xe0, 0xf1, 0x01],
    )
    .unwrap();
    assert_eq!(
        inst.src,
        [
            Src::Const(0xffff_ffff),
            Src::Const(0x3f00_0000),
            Src::Sgpr(M0)
        ]
    );
    assert_eq!(inst.to_string(), "v_xad_u32 v5, -1, 0.5, m0");
    // The same bytes are a different instruction (or none) on gfx11: never confused.
    assert!(decode_one_for(
        Isa::GFX11,
        &[0x05, 0x00, 0xf3, 0xd1, 0x01, 0x05, 0x0e, 0x04]
    )
    .is_err());
    // v_mov_b32_dpp v0, v1 row_bcast:31 ... bound_ctrl:1: gfx9's broadcast control.
    let (inst, _) = decode_one_for(
        Isa::GFX90A,
        &[0xfa, 0x02, 0x00, 0x7e, 0x01, 0x43, 0x09, 0xff],
    )
    .unwrap();
    assert_eq!(
        inst.dpp,
        Some(Dpp::Dpp16 {
            ctrl: 0x143,
            row_mask: 0xf,
            bank_mask: 0xf,
            bound_ctrl: true,
            fi: false
        })
    );
    // v_add_co_u32_e32 v0, vcc, v1, v2: gfx9's VOP2 carry op writes VCC.
    let (inst, _) = decode_one_for(Isa::GFX90A, &[0x01, 0x05, 0x00, 0x32]).unwrap();
    assert_eq!((inst.op, inst.sdst), (Op::VAddCoU32, VCC));
    // s_load_dword s5, s[0:1], s4 offset:0x10 (soe + imm).
    let (inst, _) = decode_one_for(
        Isa::GFX90A,
        &[0x40, 0x41, 0x02, 0xc0, 0x10, 0x00, 0x00, 0x08],
    )
    .unwrap();
    assert_eq!(
        (inst.op, inst.dst, inst.addr, inst.saddr, inst.imm),
        (Op::SLoadB32, 5, 0, Some(4), 0x10)
    );
    // global_load_dword v2, v[4:5], off offset:-16: saddr 0x7f is `off`, 13-bit signed offset.
    let (inst, _) = decode_one_for(
        Isa::GFX90A,
        &[0xf0, 0x9f, 0x50, 0xdc, 0x04, 0x00, 0x7f, 0x02],
    )
    .unwrap();
    assert_eq!(
        (inst.op, inst.dst, inst.addr, inst.saddr, inst.imm),
        (Op::GlobalLoadB32, 2, 4, None, -16)
    );
}

#[test]
fn gfx10_fields_decode_faithfully() {
    // v_xad_u32 v5, v1, v2, v3 is D7450005 040E0501 (opcode 837).
    let (inst, len) = decode_one_for(
        Isa::GFX10,
        &[0x05, 0x00, 0x45, 0xd7, 0x01, 0x05, 0x0e, 0x04],
    )
    .unwrap();
    assert_eq!(
        (len, inst.op, inst.dst, inst.src),
        (
            8,
            Op::VXadU32,
            5,
            [Src::Vgpr(1), Src::Vgpr(2), Src::Vgpr(3)]
        )
    );
    // m0 is code 124 and null 125 on gfx10: v_xad_u32 v5, m0, null, v1.
    let (inst, _) = decode_one_for(
        Isa::GFX10,
        &[0x05, 0x00, 0x45, 0xd7, 0x7c, 0xfa, 0x04, 0x04],
    )
    .unwrap();
    assert_eq!(inst.src, [Src::Sgpr(M0), Src::Null, Src::Vgpr(1)]);
    // The same dwords read as gfx11 mean null, m0 (and a different opcode): never confused.
    assert!(decode_one_for(
        Isa::GFX11,
        &[0x05, 0x00, 0x45, 0xd7, 0x7c, 0xfa, 0x04, 0x04]
    )
    .is_err());
    // s_mov_b32 null, s1 (sdst 125) and s_mov_b32 m0, s1 (sdst 124).
    let (inst, _) = decode_one_for(Isa::GFX10, &[0x01, 0x03, 0xfd, 0xbe]).unwrap();
    assert_eq!((inst.op, inst.sgpr_dst()), (Op::SMovB32, NULL));
    let (inst, _) = decode_one_for(Isa::GFX10, &[0x01, 0x03, 0xfc, 0xbe]).unwrap();
    assert_eq!(inst.sgpr_dst(), M0);
    // A VOP3 literal (gfx10 has them): v_xad_u32 v5, v1, s2, 0x4d2.
    let (inst, len) = decode_one_for(
        Isa::GFX10,
        &[
            0x05, 0x00, 0x45, 0xd7, 0x01, 0x05, 0xfc, 0x03, 0xd2, 0x04, 0x00, 0x00,
        ],
    )
    .unwrap();
    assert_eq!(
        (len, inst.src),
        (12, [Src::Vgpr(1), Src::Sgpr(2), Src::Lit(0x4d2)])
    );
    // s_load_dword s0, s[2:3], -0x10: 21-bit signed offset, soffset null.
    let (inst, _) = decode_one_for(
        Isa::GFX10,
        &[0x01, 0x00, 0x00, 0xf4, 0xf0, 0xff, 0x1f, 0xfa],
    )
    .unwrap();
    assert_eq!(
        (inst.op, inst.dst, inst.addr, inst.imm, inst.saddr),
        (Op::SLoadB32, 0, 2, -0x10, None)
    );
    // s_load_dword s0, s[2:3], m0: soffset code 124 is m0 here.
    let (inst, _) = decode_one_for(
        Isa::GFX10,
        &[0x01, 0x00, 0x00, 0xf4, 0x00, 0x00, 0x00, 0xf8],
    )
    .unwrap();
    assert_eq!(inst.saddr, Some(M0));
    // global_load_dword v2, v[4:5], off offset:-2048 (saddr 125 = off).
    let (inst, _) = decode_one_for(
        Isa::GFX10,
        &[0x00, 0x88, 0x30, 0xdc, 0x04, 0x00, 0x7d, 0x02],
    )
    .unwrap();
    assert_eq!(
        (inst.op, inst.dst, inst.addr, inst.saddr, inst.imm),
        (Op::GlobalLoadB32, 2, 4, None, -2048)
    );
    // global_store_dword v1, v5, s[10:11].
    let (inst, _) = decode_one_for(
        Isa::GFX10,
        &[0x00, 0x80, 0x70, 0xdc, 0x01, 0x05, 0x0a, 0x00],
    )
    .unwrap();
    assert_eq!(
        (inst.op, inst.addr, inst.data, inst.saddr),
        (Op::GlobalStoreB32, 1, 5, Some(10))
    );
    // DPP16 row_xmask:15 with fi, and DPP8 with fi (0xEA) on VOP1.
    let (inst, len) = decode_one_for(
        Isa::GFX10,
        &[0xfa, 0x02, 0x02, 0x7e, 0x02, 0x6f, 0x05, 0x30],
    )
    .unwrap();
    assert_eq!(len, 8);
    assert_eq!(
        inst.dpp,
        Some(Dpp::Dpp16 {
            ctrl: 0x16f,
            row_mask: 0x3,
            bank_mask: 0x0,
            bound_ctrl: false,
            fi: true
        })
    );
    let (inst, _) = decode_one_for(
        Isa::GFX10,
        &[0xea, 0x02, 0x02, 0x7e, 0x02, 0x00, 0x00, 0x00],
    )
    .unwrap();
    assert_eq!(
        inst.dpp,
        Some(Dpp::Dpp8 {
            sel: [0; 8],
            fi: true
        })
    );
    // SOPP numbers: s_endpgm is BF810000, s_waitcnt 0 prints all three counters.
    let (inst, _) = decode_one_for(Isa::GFX10, &0xbf81_0000u32.to_le_bytes()).unwrap();
    assert_eq!(inst.op, Op::SEndpgm);
    let (inst, _) = decode_one_for(Isa::GFX10, &0xbf8c_0000u32.to_le_bytes()).unwrap();
    assert_eq!(inst.to_string(), "s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)");
}

#[test]
fn gfx10_waitcnt_prints_as_llvm_does() {
    // Values and texts from llvm-mc-19 -mcpu=gfx1030 -disassemble.
    for (simm16, text) in [
        (0xffffu32, "s_waitcnt vmcnt(63) expcnt(7) lgkmcnt(63)"),
        (0xc07f, "s_waitcnt lgkmcnt(0)"),
        (0x3f70, "s_waitcnt vmcnt(0)"),
        (0x0080, "s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)"),
        (0xcf7f, "s_waitcnt lgkmcnt(15)"),
        (0x4000, "s_waitcnt vmcnt(16) expcnt(0) lgkmcnt(0)"),
        (0x3f23, "s_waitcnt vmcnt(3) expcnt(2)"),
    ] {
        let (inst, _) = decode_one_for(Isa::GFX10, &(0xbf8c_0000 | simm16).to_le_bytes()).unwrap();
        assert_eq!(inst.to_string(), text, "simm16 0x{simm16:04x}");
    }
}

/// gfx9's s_waitcnt fields (vmcnt [3:0]+[15:14], expcnt [6:4], lgkmcnt
/// [11:8]) print as llvm-mc 19 prints them for gfx908 (the words below are
/// its encodings); the waits themselves have no effect in the emulator.
#[test]
fn gfx9_waitcnt_prints_its_own_fields() {
    let cases = [
        (0xBF8C_C07Fu32, "s_waitcnt lgkmcnt(0)"),
        (0xBF8C_0F70, "s_waitcnt vmcnt(0)"),
        (0xBF8C_C37F, "s_waitcnt lgkmcnt(3)"),
        (0xBF8C_4F21, "s_waitcnt vmcnt(17) expcnt(2)"),
        (0xBF8C_CF7F, "s_waitcnt vmcnt(63) expcnt(7) lgkmcnt(15)"),
    ];
    for (word, want) in cases {
        let (inst, _) =
            xad_harness::isa::decode_one_for(xad_harness::isa::Isa::GFX9, &word.to_le_bytes())
                .unwrap();
        assert_eq!(inst.to_string(), want, "{word:08X}");
    }
}

// ---- v_pk_mov_b32 (gfx90a+) and v_mov_b64 (gfx940+): the moves AMD's own
// copy kernels use (HIP 7.2's __amd_rocclr_copyBuffer for gfx9) ----

/// llvm-mc-19 -mcpu=gfx942 (gfx90a encodes v_pk_mov_b32 alike): LLVM's text
/// and bytes.
const MOVES: &[(&str, [u8; 8])] = &[
    (
        "v_pk_mov_b32 v[14:15], v[10:11], v[12:13] op_sel:[0,1]",
        [0x0e, 0x50, 0xb3, 0xd3, 0x0a, 0x19, 0x02, 0x18],
    ),
    (
        "v_pk_mov_b32 v[14:15], v[10:11], v[12:13] op_sel:[1,0]",
        [0x0e, 0x48, 0xb3, 0xd3, 0x0a, 0x19, 0x02, 0x18],
    ),
    (
        "v_pk_mov_b32 v[10:11], v[10:11], v[12:13]",
        [0x0a, 0x40, 0xb3, 0xd3, 0x0a, 0x19, 0x02, 0x18],
    ),
    (
        "v_pk_mov_b32 v[4:5], s[2:3], v[6:7] op_sel:[1,1]",
        [0x04, 0x58, 0xb3, 0xd3, 0x02, 0x0c, 0x02, 0x18],
    ),
    (
        "v_mov_b64_e64 v[4:5], v[0:1]",
        [0x04, 0x00, 0x78, 0xd1, 0x00, 0x01, 0x00, 0x00],
    ),
];

/// Encodings LLVM assembles that the emulator refuses, and why: fields AMD's
/// pseudocode for V_PK_MOV_B32 does not read (op_sel_hi other than LLVM's
/// default, neg), a constant source, an odd VGPR pair.
const MOVES_REFUSED: &[(&str, [u8; 8], &str)] = &[
    (
        "op_sel:[1,0] op_sel_hi:[0,0]",
        [0x04, 0x48, 0xb3, 0xd3, 0x00, 0x05, 0x02, 0x00],
        "op_sel_hi",
    ),
    (
        "neg_lo:[1,0]",
        [0x04, 0x40, 0xb3, 0xd3, 0x00, 0x05, 0x02, 0x38],
        "neg_lo",
    ),
    (
        "src0 1",
        [0x04, 0x40, 0xb3, 0xd3, 0x81, 0x04, 0x02, 0x18],
        "constant source",
    ),
    (
        "vdst v5",
        [0x05, 0x40, 0xb3, 0xd3, 0x00, 0x05, 0x02, 0x18],
        "odd register",
    ),
];

#[test]
fn gfx90a_moves_decode_print_back_and_are_refused_where_they_do_not_exist() {
    use xad_harness::isa::decode_one_for;
    for (text, bytes) in MOVES {
        let isa = target::find("gfx942").unwrap().isa;
        let (inst, len) = decode_one_for(isa, bytes).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!((len, inst.to_string()), (8, text.to_string()));
        if text.starts_with("v_pk_mov_b32") {
            assert!(
                decode_one_for(target::find("gfx90a").unwrap().isa, bytes).is_ok(),
                "gfx90a {text}"
            );
            let err = decode_one_for(target::find("gfx908").unwrap().isa, bytes)
                .unwrap_err()
                .to_string();
            assert!(
                err.contains("gfx90a+") && !err.contains('\n'),
                "gfx908 {text}: {err}"
            );
        } else {
            let err = decode_one_for(target::find("gfx90a").unwrap().isa, bytes)
                .unwrap_err()
                .to_string();
            assert!(
                err.contains("gfx940+") && !err.contains('\n'),
                "gfx90a {text}: {err}"
            );
        }
    }
    for (what, bytes, why) in MOVES_REFUSED {
        let err = decode_one_for(target::find("gfx90a").unwrap().isa, bytes)
            .unwrap_err()
            .to_string();
        assert!(err.contains(why) && !err.contains('\n'), "{what}: {err}");
    }
}

/// The assembly the rows below were measured from (llvm-mc-19 -triple=amdgcn
/// -mcpu=gfx942 -show-encoding, LLVM 19.1.7).
const SOURCE: &str = "v_lshl_add_u64 v[2:3], s[4:5], 0, v[0:1]\nv_lshl_add_u64 v[2:3], v[4:5], v6, v[0:1]\nv_lshl_add_u64 v[0:1], v[0:1], 2, s[0:1]\nv_lshl_add_u64 v[2:3], v[4:5], 1, s[6:7]\nv_lshl_add_u64 v[2:3], v[4:5], 3, v[0:1]\nv_lshl_add_u64 v[10:11], v[254:255], 4, v[8:9]\nv_lshl_add_u64 v[2:3], v[4:5], 2, 5\nv_lshl_add_u64 v[2:3], v[4:5], 3, -1\nv_lshl_add_u64 v[2:3], v[4:5], 2, 1.0\nv_lshl_add_u64 v[2:3], 1, v6, v[0:1]\nv_lshl_add_u64 v[2:3], v[4:5], s6, v[0:1]\nv_lshl_add_u64 v[2:3], vcc, 1, v[0:1]\nv_lshl_add_u64 v[2:3], v[4:5], 7, exec\n";

/// LLVM's canonical text and bytes for each line of [`SOURCE`].
const ROWS: &[(&str, &[u8])] = &[
    (
        "v_lshl_add_u64 v[2:3], s[4:5], 0, v[0:1]",
        &[0x02, 0x00, 0x08, 0xd2, 0x04, 0x00, 0x01, 0x04],
    ),
    (
        "v_lshl_add_u64 v[2:3], v[4:5], v6, v[0:1]",
        &[0x02, 0x00, 0x08, 0xd2, 0x04, 0x0d, 0x02, 0x04],
    ),
    (
        "v_lshl_add_u64 v[0:1], v[0:1], 2, s[0:1]",
        &[0x00, 0x00, 0x08, 0xd2, 0x00, 0x05, 0x01, 0x00],
    ),
    (
        "v_lshl_add_u64 v[2:3], v[4:5], 1, s[6:7]",
        &[0x02, 0x00, 0x08, 0xd2, 0x04, 0x03, 0x19, 0x00],
    ),
    (
        "v_lshl_add_u64 v[2:3], v[4:5], 3, v[0:1]",
        &[0x02, 0x00, 0x08, 0xd2, 0x04, 0x07, 0x01, 0x04],
    ),
    (
        "v_lshl_add_u64 v[10:11], v[254:255], 4, v[8:9]",
        &[0x0a, 0x00, 0x08, 0xd2, 0xfe, 0x09, 0x21, 0x04],
    ),
    (
        "v_lshl_add_u64 v[2:3], v[4:5], 2, 5",
        &[0x02, 0x00, 0x08, 0xd2, 0x04, 0x05, 0x15, 0x02],
    ),
    (
        "v_lshl_add_u64 v[2:3], v[4:5], 3, -1",
        &[0x02, 0x00, 0x08, 0xd2, 0x04, 0x07, 0x05, 0x03],
    ),
    (
        "v_lshl_add_u64 v[2:3], v[4:5], 2, 1.0",
        &[0x02, 0x00, 0x08, 0xd2, 0x04, 0x05, 0xc9, 0x03],
    ),
    (
        "v_lshl_add_u64 v[2:3], 1, v6, v[0:1]",
        &[0x02, 0x00, 0x08, 0xd2, 0x81, 0x0c, 0x02, 0x04],
    ),
    (
        "v_lshl_add_u64 v[2:3], v[4:5], s6, v[0:1]",
        &[0x02, 0x00, 0x08, 0xd2, 0x04, 0x0d, 0x00, 0x04],
    ),
    (
        "v_lshl_add_u64 v[2:3], vcc, 1, v[0:1]",
        &[0x02, 0x00, 0x08, 0xd2, 0x6a, 0x02, 0x01, 0x04],
    ),
    (
        "v_lshl_add_u64 v[2:3], v[4:5], 7, exec",
        &[0x02, 0x00, 0x08, 0xd2, 0x04, 0x0f, 0xf9, 0x01],
    ),
];

#[test]
fn gfx942_encodings_decode_and_print_back() {
    for (text, bytes) in ROWS {
        let (inst, len) =
            decode_one_for(Isa::GFX940, bytes).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(inst.op, Op::VLshlAddU64, "{text}");
        assert_eq!((len, inst.to_string()), (8, text.to_string()));
    }
    // Every gfx940 target decodes it; the op's gfx9 number is 520 (0x208).
    for name in ["gfx942", "gfx950", "gfx9-4-generic"] {
        let isa = target::find(name).unwrap().isa;
        assert!(decode_one_for(isa, ROWS[0].1).is_ok(), "{name}");
    }
    assert_eq!(
        gfx9::opcode(Op::VLshlAddU64),
        Some((xad_harness::isa::Format::Vop3, 0x208))
    );
    match llvm_mc_rows("llvm-mc-19", "gfx942", "", SOURCE) {
        None => println!("note: llvm-mc-19 not found: the rows are not re-measured"),
        Some(rows) => {
            let want: Vec<(String, Vec<u8>)> = ROWS
                .iter()
                .map(|(t, b)| (t.to_string(), b.to_vec()))
                .collect();
            assert_eq!(rows, want, "llvm-mc-19 -mcpu=gfx942 re-measured");
            // gfx90a's assembler refuses every line: not an instruction there.
            assert_eq!(
                llvm_mc_rows("llvm-mc-19", "gfx90a", "", SOURCE),
                Some(vec![])
            );
        }
    }
}

fn one_wave() -> Dispatch {
    Dispatch {
        grid_blocks: [1, 1, 1],
        block: [64, 1, 1],
    }
}

/// On gfx908, gfx90a and gfx9-generic the bytes are not an instruction: a
/// one-line decode error naming the op and where it exists.
#[test]
fn targets_without_gfx940_insts_refuse_it() {
    for name in ["gfx908", "gfx90a", "gfx9-generic"] {
        let isa = target::find(name).unwrap().isa;
        for (text, bytes) in ROWS {
            let err = decode_one_for(isa, bytes).unwrap_err().to_string();
            assert!(
                err.contains("v_lshl_add_u64") && err.contains("gfx940+") && !err.contains('\n'),
                "{name} {text}: {err}"
            );
        }
    }
    // Through the emulator: a gfx90a device faults with one line.
    let mut dev = EmuDevice::for_target(target::find("gfx90a").unwrap());
    let mut code = ROWS[4].1.to_vec();
    code.extend_from_slice(&0xBF81_0000u32.to_le_bytes());
    let kd = KernelDescriptor {
        rsrc2: 2 << 1 | 1 << 7,
        code_properties: 1 << 3,
        ..Default::default()
    };
    let m = dev.load_code("lshl", &code, kd);
    let err = dev
        .launch(m, "lshl", &[0u8; 8], one_wave(), Duration::from_secs(5))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("v_lshl_add_u64") && err.contains("gfx940+") && !err.contains('\n'),
        "{err}"
    );
}
