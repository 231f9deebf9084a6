//! What the decoder refuses, on every generation: unknown opcodes, reserved bits, truncated
//! words, another generation's encodings and an unsettled wide literal are errors with the
//! offset and the hex, and random bytes are values or errors, never a panic.

use crate::support::hex;
use xad_harness::isa::{
    decode, decode_at, decode_one, decode_one_for, DecodeError, Generation, Isa, Op, Src,
};

#[test]
fn unknown_and_truncated_encodings_are_errors_with_offset_and_hex() {
    // VOP3 opcode 0x3ff does not exist.
    let err = decode_at(&[0, 0, 0, 0, 0x00, 0x00, 0xff, 0xd7, 0, 0, 0, 0], 4, 0x1000).unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("offset 0x1004") && msg.contains("D7FF0000") && msg.contains("VOP3"),
        "{msg}"
    );
    // A literal that is missing at the end of the section.
    let err = decode_one(&[0xff, 0x02, 0x00, 0x7e]).unwrap_err();
    assert!(
        matches!(
            err,
            DecodeError::Truncated {
                needed: 8,
                available: 4,
                ..
            }
        ),
        "{err}"
    );
    // A DPP word that is missing.
    let err = decode_one(&[0x05, 0x00, 0x45, 0xd6, 0xfa, 0x04, 0x0e, 0x04, 0x01]).unwrap_err();
    assert!(
        matches!(err, DecodeError::Truncated { needed: 12, .. }),
        "{err}"
    );
    // DS is a known family the emulator does not execute.
    let err = decode_one(&[0, 0, 0, 0xd8, 0, 0, 0, 0]).unwrap_err();
    assert!(err.to_string().contains("DS"), "{err}");
}

#[test]
fn unsettled_wide_literal_is_refused() {
    // s_mov_b64 s[0:1], 0xffffec78: sign- vs zero-extension is unsettled.
    let err = decode_one(&[0xff, 0x01, 0x80, 0xbe, 0x78, 0xec, 0xff, 0xff]).unwrap_err();
    assert!(err.to_string().contains("unsettled"), "{err}");
    // ... but a literal with bit 31 clear is unambiguous.
    let (inst, _) = decode_one(&[0xff, 0x01, 0x80, 0xbe, 0x78, 0xec, 0xff, 0x7f]).unwrap();
    assert_eq!(inst.src[0], Src::Lit(0x7fff_ec78));
}

#[test]
fn other_generations_are_a_decode_error_not_a_panic() {
    // Every generation now decodes: v_xad_u32 v5, v1, v2, v3 as gfx9 and gfx10
    // encode it is v_xad_u32 there (their rows: decode_oracle, their fields:
    // decode_fields).
    let by_generation: [(Generation, [u8; 8]); 2] = [
        (
            Generation::Gfx9,
            [0x05, 0x00, 0xf3, 0xd1, 0x01, 0x05, 0x0e, 0x04],
        ),
        (
            Generation::Gfx10,
            [0x05, 0x00, 0x45, 0xd7, 0x01, 0x05, 0x0e, 0x04],
        ),
    ];
    for (generation, bytes) in by_generation {
        let isa = Isa {
            generation,
            dpp_src1_scalar: false,
            gfx940_insts: false,
            gfx90a_insts: false,
            gfx1250_insts: false,
            hazards: xad_harness::isa::HazardRules::Interlocked,
        };
        let inst = decode(isa, &bytes, 0, 0x100).unwrap_or_else(|e| panic!("{generation}: {e}"));
        assert_eq!(
            (inst.op, inst.offset, inst.generation),
            (Op::VXadU32, 0x100, generation)
        );
    }
    // Random bytes and empty input for every generation: values, never panics.
    for generation in Generation::ALL {
        let isa = Isa {
            generation,
            dpp_src1_scalar: true,
            gfx940_insts: true,
            gfx90a_insts: true,
            gfx1250_insts: false,
            hazards: xad_harness::isa::HazardRules::WriteAfterRead,
        };
        let _ = decode(isa, &[], 0, 0);
        let _ = decode(isa, &[0xff; 7], 3, 0);
    }
    // gfx11 through the Isa::GFX90A entry point is the same decoder as decode_at, and
    // gfx12 decodes the same v_xad_u32 bytes to the same operands.
    let bytes = [0x05, 0x00, 0x45, 0xd6, 0x01, 0x05, 0x0e, 0x04];
    let gfx11 = decode(Isa::GFX11, &bytes, 0, 0).unwrap();
    assert_eq!(gfx11, decode_at(&bytes, 0, 0).unwrap());
    let gfx12 = decode(Isa::GFX12, &bytes, 0, 0).unwrap();
    assert_eq!(
        (gfx12.op, gfx12.src, gfx12.generation),
        (Op::VXadU32, gfx11.src, Generation::Gfx12)
    );
    assert_eq!(gfx12.to_string(), "v_xad_u32 v5, v1, v2, v3");
}

#[test]
fn gfx12_reserved_bits_and_truncation_are_errors() {
    let load = [
        0x04u8, 0x00, 0x05, 0xee, 0x02, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
    ];
    // Reserved bits of VGLOBAL (dword 0 bit 7, dword 1 bit 8 and 31) and the scratch-only SVE bit.
    for (byte, bit) in [(0, 0x80), (5, 0x01), (7, 0x80), (6, 0x02)] {
        let mut b = load;
        b[byte] |= bit;
        let err = decode_one_for(Isa::GFX12, &b).unwrap_err();
        assert!(
            matches!(err, DecodeError::Unsupported { .. }) && err.to_string().contains("VGLOBAL"),
            "{err}"
        );
    }
    // The third dword missing.
    let err = decode_one_for(Isa::GFX12, &load[..8]).unwrap_err();
    assert!(
        matches!(err, DecodeError::Truncated { needed: 12, .. }),
        "{err}"
    );
    // SMEM dword 1 bit 24 is reserved on gfx12.
    let err = decode_one_for(
        Isa::GFX12,
        &[0x40, 0x01, 0x00, 0xf4, 0x00, 0x00, 0x00, 0xf9],
    )
    .unwrap_err();
    assert!(err.to_string().contains("reserved SMEM"), "{err}");
    // A gfx11 global_load is no gfx12 instruction (and gfx11's wait SOPK is gone).
    assert!(decode_one_for(
        Isa::GFX12,
        &[0x00, 0x00, 0x52, 0xdc, 0x01, 0x00, 0x04, 0x02]
    )
    .is_err());
    let err = decode_one_for(Isa::GFX12, &[0x00, 0x00, 0xfc, 0xbc]).unwrap_err();
    assert!(
        err.to_string().contains("is not an instruction on gfx12"),
        "{err}"
    );
    // Random-ish bytes: values, never panics.
    for seed in 0u32..2000 {
        let mut x = seed.wrapping_mul(0x9e37_79b9) ^ 0xdead_beef;
        let mut b = [0u8; 12];
        for byte in &mut b {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            *byte = x as u8;
        }
        b[3] = [0xee, 0xec, 0xed, 0xef, 0xf4, 0xbf, 0xd6][seed as usize % 7];
        for n in [4, 8, 12] {
            let _ = decode_one_for(Isa::GFX12, &b[..n]);
        }
    }
}

#[test]
fn gfx9_reserved_and_unknown_encodings_are_errors() {
    // clamp, abs, op_sel, omod, neg on an integer op other than v_xad_u32
    // (v_add3_u32 v5, v1, v2, v3), which decodes them.
    let add3 = [0x05u8, 0x00, 0xff, 0xd1, 0x01, 0x05, 0x0e, 0x04];
    for (byte, bit, name) in [
        (1, 0x80, "clamp"),
        (1, 0x01, "abs"),
        (1, 0x08, "op_sel"),
        (7, 0x08, "omod"),
        (7, 0x20, "neg"),
    ] {
        let mut b = add3;
        b[byte] |= bit;
        let err = decode_one_for(Isa::GFX90A, &b).unwrap_err();
        assert!(
            matches!(err, DecodeError::Unsupported { .. }) && err.to_string().contains(name),
            "{name}: {err}"
        );
        // v_xad_u32 v5, v1, v2, v3 decodes the same field (the emulator decides).
        let mut x = [0x05u8, 0x00, 0xf3, 0xd1, 0x01, 0x05, 0x0e, 0x04];
        x[byte] |= bit;
        let (inst, _) = decode_one_for(Isa::GFX90A, &x).expect("v_xad_u32 decodes its modifiers");
        assert_eq!(inst.mods.names(), [name], "{inst}");
    }
    let refused = |bytes: &[u8], why: &str| {
        let err = decode_one_for(Isa::GFX90A, bytes).expect_err(why);
        assert!(err.to_string().contains(why), "expected '{why}': {err}");
    };
    // A literal in VOP3 (src2 = 255) does not exist on gfx9.
    refused(
        &[
            0x05, 0x00, 0xf3, 0xd1, 0x01, 0x05, 0xfe, 0x03, 0x34, 0x12, 0, 0,
        ],
        "no literal",
    );
    // Two different SGPRs in one VALU instruction (constant bus).
    refused(
        &[0x05, 0x00, 0xf3, 0xd1, 0x01, 0x04, 0x0c, 0x04],
        "constant bus",
    );
    // Code 125 is reserved on gfx9 (m0 lives at 124), and gfx10's DPP8 code 0xE9 is no operand.
    refused(
        &[0x05, 0x00, 0xf3, 0xd1, 0x7d, 0x04, 0x0e, 0x04],
        "reserved on gfx9",
    );
    refused(
        &[0xe9, 0x02, 0x00, 0x7e, 0x01, 0x00, 0x00, 0x00],
        "reserved on gfx9",
    );
    // gfx10+ DPP controls (row_share 0x150) and gfx9's reserved DPP bits.
    refused(
        &[0xfa, 0x02, 0x00, 0x7e, 0x01, 0x50, 0x01, 0xff],
        "not valid on gfx9",
    );
    refused(
        &[0xfa, 0x02, 0x00, 0x7e, 0x01, 0x43, 0x05, 0xff],
        "reserved DPP",
    );
    // VOP3 opcode 0x3ff, SOPP opcode 127, scratch, the gfx90a acc bit.
    refused(
        &[0x00, 0x00, 0xff, 0xd3, 0x01, 0x05, 0x0e, 0x04],
        "is not an instruction on gfx9",
    );
    refused(&[0x00, 0x00, 0xff, 0xbf], "is not an instruction on gfx9");
    refused(&[0x00, 0x40, 0x50, 0xdc, 0x04, 0x00, 0x7f, 0x02], "scratch");
    refused(&[0x00, 0x80, 0x50, 0xdc, 0x01, 0x00, 0x84, 0x02], "AGPR");
    // A ttmp destination, and s_mov_b64 into an odd pair.
    refused(&[0x01, 0x00, 0xec, 0xbe], "ttmp");
    refused(&[0x02, 0x01, 0x81, 0xbe], "pair");
    // Truncation: SMEM's second dword, a literal, a DPP word.
    for bytes in [
        &[0x40, 0x01, 0x02, 0xc0][..],
        &[0xff, 0x02, 0x00, 0x7e],
        &[0xfa, 0x02, 0x00, 0x7e],
    ] {
        let err = decode(Isa::GFX90A, bytes, 0, 0x40).unwrap_err();
        assert!(
            matches!(
                err,
                DecodeError::Truncated {
                    offset: 0x40,
                    needed: 8,
                    available: 4,
                    ..
                }
            ),
            "{err}"
        );
    }
}

#[test]
fn random_gfx9_bytes_are_values_never_panics() {
    // A fixed-seed xorshift sweep over every encoding family's top byte.
    let tops = [
        0xbe, 0xbf, 0xb0, 0x80, 0xc0, 0xd1, 0xd0, 0xd2, 0xdc, 0x7e, 0x7d, 0x68, 0x32, 0xd8, 0xff,
    ];
    let mut decoded = 0u32;
    for seed in 0u32..20_000 {
        let mut x = seed.wrapping_mul(0x9e37_79b9) ^ 0x5eed_0009;
        let mut b = [0u8; 12];
        for byte in &mut b {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            *byte = x as u8;
        }
        b[3] = tops[seed as usize % tops.len()];
        for n in [0, 3, 4, 8, 12] {
            if let Ok((inst, len)) = decode_one_for(Isa::GFX90A, &b[..n]) {
                assert!(
                    len <= n && len % 4 == 0,
                    "seed {seed}: length {len} of {n} bytes"
                );
                let _ = inst.to_string();
                decoded += 1;
            }
        }
    }
    assert!(
        decoded > 1000,
        "the sweep decoded only {decoded} instructions"
    );
}

#[test]
fn gfx10_unknown_and_reserved_encodings_are_errors() {
    let refused = |bytes: &[u8], needle: &str| {
        let err = decode_one_for(Isa::GFX10, bytes).unwrap_err();
        assert!(
            matches!(err, DecodeError::Unsupported { .. }) && err.to_string().contains(needle),
            "[{}] {err}",
            hex(bytes)
        );
    };
    // No VOP3 DPP on gfx10 (src0 0xFA / 0xE9 / 0xEA).
    for code in [0xfa, 0xe9, 0xea] {
        refused(
            &[
                0x05, 0x00, 0x45, 0xd7, code, 0x04, 0x0e, 0x04, 0x01, 0x1b, 0x00, 0xff,
            ],
            "no DPP form on gfx10",
        );
    }
    // gfx11's v_xad_u32 opcode (581) is another op on gfx10, not v_xad_u32.
    assert!(decode_one_for(
        Isa::GFX10,
        &[0x05, 0x00, 0x45, 0xd6, 0x01, 0x05, 0x0e, 0x04]
    )
    .map_or(true, |(i, _)| i.op != Op::VXadU32));
    // gfx11's s_endpgm (BFB00000) is not an instruction the gfx10 column has.
    refused(
        &0xbfb0_0000u32.to_le_bytes(),
        "is not an instruction on gfx10",
    );
    // Unknown VOP3 opcode; the gfx9-only DPP controls row_bcast15 (0x142) and wave_shl (0x130).
    refused(&[0, 0, 0xff, 0xd7, 0, 0, 0, 0], "VOP3");
    refused(
        &[0xfa, 0x02, 0x02, 0x7e, 0x02, 0x42, 0x01, 0xff],
        "DPP16 control 0x142 is not valid on gfx10",
    );
    refused(
        &[0xfa, 0x02, 0x02, 0x7e, 0x02, 0x30, 0x01, 0xff],
        "DPP16 control 0x130 is not valid on gfx10",
    );
    // SMEM reserved bits 15 and 17 of dword 0 and 24:21 of dword 1.
    let load = [0x01u8, 0x00, 0x00, 0xf4, 0x10, 0x00, 0x00, 0xfa];
    for (byte, bit) in [(1, 0x80), (2, 0x02), (6, 0x20)] {
        let mut b = load;
        b[byte] |= bit;
        refused(&b, "reserved SMEM");
    }
    // FLAT: lds, reserved bit 25, segment 3, scratch, flat offset bit 11, saddr on flat.
    let global = [0x00u8, 0x80, 0x30, 0xdc, 0x01, 0x00, 0x04, 0x02];
    let mut lds = global;
    lds[1] |= 0x20;
    refused(&lds, "lds");
    let mut reserved = global;
    reserved[3] |= 0x02;
    refused(&reserved, "reserved FLAT");
    refused(
        &[0x00, 0xc0, 0x30, 0xdc, 0x01, 0x00, 0x04, 0x02],
        "segment 3",
    );
    refused(&[0x00, 0x40, 0x30, 0xdc, 0x01, 0x00, 0x7d, 0x02], "scratch");
    refused(
        &[0x00, 0x08, 0x30, 0xdc, 0x04, 0x00, 0x7d, 0x02],
        "flat offset bit 11",
    );
    refused(
        &[0x00, 0x00, 0x30, 0xdc, 0x04, 0x00, 0x04, 0x02],
        "flat instructions take no saddr",
    );
    // A missing literal and a missing second dword are Truncated, with the offset.
    let err = decode(
        Isa::GFX10,
        &[0, 0, 0, 0, 0x05, 0x00, 0x45, 0xd7, 0xff, 0x02, 0xfe, 0x03],
        4,
        0x1000,
    )
    .unwrap_err();
    assert!(
        matches!(err, DecodeError::Truncated { needed: 12, .. })
            && err.to_string().contains("0x1004"),
        "{err}"
    );
    assert!(matches!(
        decode_one_for(Isa::GFX10, &global[..4]),
        Err(DecodeError::Truncated { needed: 8, .. })
    ));
}

/// Random dwords behind each gfx10 encoding prefix, at every length: values, never panics.
#[test]
fn gfx10_random_bytes_never_panic() {
    let seed = 0x5eed_0010u32;
    let mut x = seed;
    let mut decoded = 0;
    for i in 0..20_000u32 {
        let mut b = [0u8; 12];
        for byte in &mut b {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            *byte = x as u8;
        }
        // Steer a share of the cases into the families gfx10 decodes.
        if i % 2 == 0 {
            b[3] = [
                0xbe, 0xbf, 0xb0, 0x80, 0xf4, 0xdc, 0xd7, 0xd5, 0xd4, 0x7e, 0x7d, 0x4a,
            ][(i / 2) as usize % 12];
        }
        for n in [0, 3, 4, 8, 12] {
            if decode_one_for(Isa::GFX10, &b[..n]).is_ok() {
                decoded += 1;
            }
        }
    }
    // The sweep reaches the decoder's accepting paths too (seed 0x{seed:08x}).
    assert!(
        decoded > 1000,
        "seed 0x{seed:08x}: only {decoded} random encodings decoded"
    );
}
