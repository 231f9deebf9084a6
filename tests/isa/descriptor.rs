//! The kernel descriptor against LLVM, and the initial wave state the emulator
//! builds from it.
//!
//! 1. A table: small kernels that each set one `.amdhsa_*` directive (every one
//!    LLVM 19 accepts for gfx1100) are assembled into one code object;
//!    `llvm-objdump --disassemble-symbols=<k>.kd` prints every field it decodes
//!    and each must equal ours, and ours must hold the value the directive set.
//! 2. Kernels that enable each user and system SGPR run on the emulator: one
//!    stores every initial SGPR and v0 per lane, one stores the dispatch
//!    packet, the queue and the descriptor behind the pointers, and the basic
//!    xad kernel with each enable added (its registers moved accordingly) must
//!    pass through the CLI.
//! 3. Descriptors LLVM would not write (a reserved bit, too many user SGPRs)
//!    are refused before any launch, as bad input.
//!
//! Everything is assembled with the project's own toolchain discovery; with no
//! LLVM on the machine the tests print why and return (CI has LLVM 19).

use crate::common::*;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::time::Duration;
use xad_harness::platform::codeobj::descriptor::{self as kdf, KernelDescriptor};
use xad_harness::platform::codeobj::CodeObject;
use xad_harness::platform::device::{Device, Dispatch};
use xad_harness::platform::emu::EmuDevice;

/// One test kernel: its `.amdhsa_*` directives (without the prefix) and body.
struct Kernel {
    name: String,
    directives: Vec<String>,
    body: String,
}

impl Kernel {
    fn new(name: &str, directives: &[&str], body: &str) -> Kernel {
        Kernel {
            name: name.into(),
            directives: directives.iter().map(|d| d.to_string()).collect(),
            body: body.into(),
        }
    }
    fn has(&self, directive: &str) -> bool {
        self.directives
            .iter()
            .any(|d| d.split_whitespace().next() == Some(directive))
    }
    fn value(&self, directive: &str) -> Option<u32> {
        let d = self
            .directives
            .iter()
            .find(|d| d.split_whitespace().next() == Some(directive))?;
        d.split_whitespace().nth(1)?.parse().ok()
    }
    fn wave64(&self) -> bool {
        self.value("wavefront_size32") == Some(0)
    }
    fn kernarg_size(&self) -> u32 {
        self.value("kernarg_size").unwrap_or(8)
    }

    /// The kernel's code and descriptor block; directives the test did not set
    /// get defaults (registers, wave32, an 8-byte kernarg segment).
    fn source(&self) -> String {
        let mut d: Vec<String> = self.directives.clone();
        for (name, default) in [
            ("next_free_vgpr", "32"),
            ("next_free_sgpr", "32"),
            ("wavefront_size32", "1"),
            ("kernarg_size", "8"),
            ("user_sgpr_kernarg_segment_ptr", "1"),
        ] {
            if !self.has(name) {
                d.push(format!("{name} {default}"));
            }
        }
        let n = &self.name;
        let directives: String = d.iter().map(|d| format!("  .amdhsa_{d}\n")).collect();
        format!(
            ".text\n.globl {n}\n.p2align 8\n.type {n},@function\n{n}:\n{}\n.L{n}_end:\n.size {n}, .L{n}_end - {n}\n\
             .rodata\n.p2align 6\n.amdhsa_kernel {n}\n{directives}.end_amdhsa_kernel\n\n",
            self.body
        )
    }

    fn metadata(&self) -> String {
        format!(
            "  - .name: {n}\n    .symbol: {n}.kd\n    .kernarg_segment_size: {k}\n    .kernarg_segment_align: 8\n    \
             .group_segment_fixed_size: 0\n    .private_segment_fixed_size: 0\n    .wavefront_size: {w}\n    \
             .sgpr_count: 32\n    .vgpr_count: 32\n    .max_flat_workgroup_size: 1024\n    .args:\n      \
             - {{ .name: out, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global }}\n",
            n = self.name,
            k = self.kernarg_size(),
            w = if self.wave64() { 64 } else { 32 }
        )
    }
}

/// One code object holding `kernels`, with metadata the loader accepts.
fn code_object_source(kernels: &[Kernel]) -> String {
    let mut s = String::from(".amdgcn_target \"amdgcn-amd-amdhsa--gfx1100\"\n\n");
    for k in kernels {
        s += &k.source();
    }
    s +=
        ".amdgpu_metadata\n---\namdhsa.version: [ 1, 2 ]\namdhsa.target: amdgcn-amd-amdhsa--gfx1100\namdhsa.kernels:\n";
    for k in kernels {
        s += &k.metadata();
    }
    s + "...\n.end_amdgpu_metadata\n"
}

// ---------------------------------------------------------------------------
// 1. The table against llvm-objdump.

/// Each row: the directive set (without `.amdhsa_`), the directive whose decoded
/// value is checked, and that value (where LLVM rounds, the rounded one).
const TABLE: &[(&str, &str, u64)] = &[
    ("user_sgpr_dispatch_ptr 1", "user_sgpr_dispatch_ptr", 1),
    ("user_sgpr_queue_ptr 1", "user_sgpr_queue_ptr", 1),
    (
        "user_sgpr_kernarg_segment_ptr 0",
        "user_sgpr_kernarg_segment_ptr",
        0,
    ),
    ("user_sgpr_dispatch_id 1", "user_sgpr_dispatch_id", 1),
    (
        "user_sgpr_private_segment_size 1",
        "user_sgpr_private_segment_size",
        1,
    ),
    ("user_sgpr_count 12", "user_sgpr_count", 12),
    ("wavefront_size32 0", "wavefront_size32", 0),
    ("enable_private_segment 1", "enable_private_segment", 1),
    (
        "system_sgpr_workgroup_id_x 0",
        "system_sgpr_workgroup_id_x",
        0,
    ),
    (
        "system_sgpr_workgroup_id_y 1",
        "system_sgpr_workgroup_id_y",
        1,
    ),
    (
        "system_sgpr_workgroup_id_z 1",
        "system_sgpr_workgroup_id_z",
        1,
    ),
    (
        "system_sgpr_workgroup_info 1",
        "system_sgpr_workgroup_info",
        1,
    ),
    ("system_vgpr_workitem_id 1", "system_vgpr_workitem_id", 1),
    ("system_vgpr_workitem_id 2", "system_vgpr_workitem_id", 2),
    ("next_free_vgpr 1", "next_free_vgpr", 8),
    ("next_free_vgpr 9", "next_free_vgpr", 16),
    ("next_free_vgpr 256", "next_free_vgpr", 256),
    ("next_free_sgpr 100", "next_free_sgpr", 8),
    ("reserve_vcc 0", "reserve_vcc", 0),
    ("reserve_xnack_mask 0", "reserve_xnack_mask", 0),
    ("float_round_mode_32 3", "float_round_mode_32", 3),
    ("float_round_mode_16_64 1", "float_round_mode_16_64", 1),
    ("float_denorm_mode_32 1", "float_denorm_mode_32", 1),
    ("float_denorm_mode_16_64 0", "float_denorm_mode_16_64", 0),
    ("dx10_clamp 0", "dx10_clamp", 0),
    ("ieee_mode 0", "ieee_mode", 0),
    ("fp16_overflow 1", "fp16_overflow", 1),
    ("workgroup_processor_mode 0", "workgroup_processor_mode", 0),
    ("memory_ordered 0", "memory_ordered", 0),
    ("forward_progress 1", "forward_progress", 1),
    (
        "exception_fp_ieee_invalid_op 1",
        "exception_fp_ieee_invalid_op",
        1,
    ),
    ("exception_fp_denorm_src 1", "exception_fp_denorm_src", 1),
    (
        "exception_fp_ieee_div_zero 1",
        "exception_fp_ieee_div_zero",
        1,
    ),
    (
        "exception_fp_ieee_overflow 1",
        "exception_fp_ieee_overflow",
        1,
    ),
    (
        "exception_fp_ieee_underflow 1",
        "exception_fp_ieee_underflow",
        1,
    ),
    (
        "exception_fp_ieee_inexact 1",
        "exception_fp_ieee_inexact",
        1,
    ),
    ("exception_int_div_zero 1", "exception_int_div_zero", 1),
    ("uses_dynamic_stack 1", "uses_dynamic_stack", 1),
    (
        "group_segment_fixed_size 65536",
        "group_segment_fixed_size",
        65536,
    ),
    (
        "private_segment_fixed_size 1234",
        "private_segment_fixed_size",
        1234,
    ),
    ("kernarg_size 4096", "kernarg_size", 4096),
];

/// Rows that need wave64 beside their directive.
const WAVE64_TABLE: &[(&str, &str, u64)] = &[
    ("shared_vgpr_count 2", "shared_vgpr_count", 2),
    ("next_free_vgpr 5", "next_free_vgpr", 8),
];

/// Our decoding of what `llvm-objdump` prints as `.amdhsa_<directive>` (or as a
/// `; NAME` comment for the gfx11 rsrc3 fields); `None` for a name we do not know.
fn ours(kd: &KernelDescriptor, directive: &str) -> Option<u64> {
    use kdf::*;
    let f = |field: BitField| Some(u64::from(kd.get(field)));
    match directive {
        "group_segment_fixed_size" => Some(kd.group_segment_fixed_size.into()),
        "private_segment_fixed_size" => Some(kd.private_segment_fixed_size.into()),
        "kernarg_size" => Some(kd.kernarg_size.into()),
        "next_free_vgpr" => Some(kd.vgpr_count().into()),
        // gfx10+ allocate SGPRs statically: LLVM prints (granules + 1) * 8.
        "next_free_sgpr" => Some((u64::from(kd.get(GRANULATED_WAVEFRONT_SGPR_COUNT)) + 1) * 8),
        // Not encoded in a gfx10+ descriptor; LLVM prints 0.
        "reserve_vcc" | "reserve_xnack_mask" => Some(0),
        "float_round_mode_32" => f(FLOAT_ROUND_MODE_32),
        "float_round_mode_16_64" => f(FLOAT_ROUND_MODE_16_64),
        "float_denorm_mode_32" => f(FLOAT_DENORM_MODE_32),
        "float_denorm_mode_16_64" => f(FLOAT_DENORM_MODE_16_64),
        "dx10_clamp" => f(ENABLE_DX10_CLAMP),
        "ieee_mode" => f(ENABLE_IEEE_MODE),
        "fp16_overflow" => f(FP16_OVFL),
        "workgroup_processor_mode" => f(WGP_MODE),
        "memory_ordered" => f(MEM_ORDERED),
        "forward_progress" => f(FWD_PROGRESS),
        "enable_private_segment" => f(ENABLE_PRIVATE_SEGMENT),
        "user_sgpr_count" => f(USER_SGPR_COUNT),
        "system_sgpr_workgroup_id_x" => f(ENABLE_SGPR_WORKGROUP_ID_X),
        "system_sgpr_workgroup_id_y" => f(ENABLE_SGPR_WORKGROUP_ID_Y),
        "system_sgpr_workgroup_id_z" => f(ENABLE_SGPR_WORKGROUP_ID_Z),
        "system_sgpr_workgroup_info" => f(ENABLE_SGPR_WORKGROUP_INFO),
        "system_vgpr_workitem_id" => f(ENABLE_VGPR_WORKITEM_ID),
        "exception_fp_ieee_invalid_op" => f(EXCEPTION_FP_INVALID_OP),
        "exception_fp_denorm_src" => f(EXCEPTION_FP_DENORMAL_SOURCE),
        "exception_fp_ieee_div_zero" => f(EXCEPTION_FP_DIV_ZERO),
        "exception_fp_ieee_overflow" => f(EXCEPTION_FP_OVERFLOW),
        "exception_fp_ieee_underflow" => f(EXCEPTION_FP_UNDERFLOW),
        "exception_fp_ieee_inexact" => f(EXCEPTION_FP_INEXACT),
        "exception_int_div_zero" => f(EXCEPTION_INT_DIV_ZERO),
        "user_sgpr_private_segment_buffer" => f(ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER),
        "user_sgpr_dispatch_ptr" => f(ENABLE_SGPR_DISPATCH_PTR),
        "user_sgpr_queue_ptr" => f(ENABLE_SGPR_QUEUE_PTR),
        "user_sgpr_kernarg_segment_ptr" => f(ENABLE_SGPR_KERNARG_SEGMENT_PTR),
        "user_sgpr_dispatch_id" => f(ENABLE_SGPR_DISPATCH_ID),
        "user_sgpr_flat_scratch_init" => f(ENABLE_SGPR_FLAT_SCRATCH_INIT),
        "user_sgpr_private_segment_size" => f(ENABLE_SGPR_PRIVATE_SEGMENT_SIZE),
        "wavefront_size32" => f(ENABLE_WAVEFRONT_SIZE32),
        "uses_dynamic_stack" => f(USES_DYNAMIC_STACK),
        "user_sgpr_kernarg_preload_length" => f(KERNARG_PRELOAD_LENGTH),
        "user_sgpr_kernarg_preload_offset" => f(KERNARG_PRELOAD_OFFSET),
        "SHARED_VGPR_COUNT" | "shared_vgpr_count" => f(SHARED_VGPR_COUNT),
        "INST_PREF_SIZE" | "inst_pref_size" => f(INST_PREF_SIZE),
        "TRAP_ON_START" => f(TRAP_ON_START),
        "TRAP_ON_END" => f(TRAP_ON_END),
        "IMAGE_OP" => f(IMAGE_OP),
        _ => None,
    }
}

/// `llvm-objdump -D --disassemble-symbols=<k>.kd,...`: per kernel, every
/// `.amdhsa_<name> <value>` line and every `; NAME <value>` comment.
fn objdump_fields(
    objdump: &Path,
    hsaco: &Path,
    names: &[&str],
) -> BTreeMap<String, Vec<(String, u64)>> {
    let symbols: Vec<String> = names.iter().map(|n| format!("{n}.kd")).collect();
    let out = Command::new(objdump)
        .arg("-D")
        .arg(format!("--disassemble-symbols={}", symbols.join(",")))
        .arg(hsaco)
        .output()
        .unwrap_or_else(|e| panic!("run {}: {e}", objdump.display()));
    assert!(
        out.status.success(),
        "llvm-objdump failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let mut fields: BTreeMap<String, Vec<(String, u64)>> = BTreeMap::new();
    let mut current = None;
    for line in text.lines().map(str::trim) {
        if let Some(sym) = line
            .split_once('<')
            .and_then(|(_, r)| r.strip_suffix(".kd>:"))
        {
            current = Some(sym.to_string());
            continue;
        }
        let Some(k) = &current else { continue };
        let body = line
            .strip_prefix(".amdhsa_")
            .or_else(|| line.strip_prefix("; "));
        let mut words = body.unwrap_or("").split_whitespace();
        if let (Some(name), Some(value), None) = (words.next(), words.next(), words.next()) {
            if name != "kernel" {
                if let Ok(v) = value.parse::<u64>() {
                    fields
                        .entry(k.clone())
                        .or_default()
                        .push((name.to_string(), v));
                }
            }
        }
    }
    fields
}

/// Every field LLVM printed that our decoding disagrees with or does not know.
fn mismatches(kd: &KernelDescriptor, printed: &[(String, u64)]) -> Vec<String> {
    printed
        .iter()
        .filter_map(|(name, llvm)| match ours(kd, name) {
            Some(v) if v == *llvm => None,
            Some(v) => Some(format!("{name}: llvm-objdump {llvm}, ours {v}")),
            None => Some(format!(
                "{name}: llvm-objdump prints {llvm}, which our table does not decode"
            )),
        })
        .collect()
}

fn table_kernels() -> Vec<(Kernel, &'static str, u64)> {
    let rows = TABLE
        .iter()
        .map(|r| (r, false))
        .chain(WAVE64_TABLE.iter().map(|r| (r, true)));
    rows.enumerate()
        .map(|(i, (&(set, check, want), wave64))| {
            let mut directives = vec![set];
            if wave64 {
                directives.push("wavefront_size32 0");
            }
            (
                Kernel::new(&format!("k{i}"), &directives, "  s_endpgm"),
                check,
                want,
            )
        })
        .collect()
}

#[test]
fn every_directive_decodes_as_llvm_objdump_prints_it() {
    let dir = scratch("descriptor-table");
    let Some(tc) = gfx1100_toolchain(&dir) else {
        return;
    };
    let Some(objdump) = tc.objdump.clone() else {
        eprintln!("skipped: {} has no llvm-objdump beside it", tc.origin);
        return;
    };
    let (kernels, checks): (Vec<Kernel>, Vec<(&str, u64)>) = table_kernels()
        .into_iter()
        .map(|(k, c, w)| (k, (c, w)))
        .unzip();
    let hsaco = build_gfx1100(&tc, &dir, "table", &code_object_source(&kernels));
    let co = CodeObject::parse(&std::fs::read(&hsaco).unwrap())
        .expect("every kernel LLVM writes validates");
    let names: Vec<&str> = kernels.iter().map(|k| k.name.as_str()).collect();
    let printed = objdump_fields(&objdump, &hsaco, &names);
    for (k, (check, want)) in kernels.iter().zip(&checks) {
        let kd = co.kernel(&k.name).unwrap().descriptor;
        let fields = printed
            .get(&k.name)
            .unwrap_or_else(|| panic!("llvm-objdump printed nothing for {}.kd", k.name));
        assert!(
            fields.len() >= 40,
            "{}: only {} fields printed",
            k.name,
            fields.len()
        );
        let bad = mismatches(&kd, fields);
        assert!(bad.is_empty(), "{} ({:?}): {bad:#?}", k.name, k.directives);
        assert_eq!(
            ours(&kd, check),
            Some(*want),
            "{} ({:?}): decoded {check}",
            k.name,
            k.directives
        );
    }
    // Negative control: the bit positions main used to read (dispatch ptr at
    // bit 0) disagree with LLVM on the dispatch-ptr kernel.
    let kd = co.kernel("k0").unwrap().descriptor;
    let shifted = KernelDescriptor {
        code_properties: (kd.code_properties & !0b111) | (kd.code_properties >> 1 & 0b11),
        ..kd
    };
    assert!(
        !mismatches(&shifted, &printed["k0"]).is_empty(),
        "a shifted decoding must be caught"
    );
}

// ---------------------------------------------------------------------------
// 2. The emulator's initial state.

/// Store the 32-bit values `regs` (SGPR or VGPR names) to `out + v4 + offset`,
/// four at a time, through v[20:23].
fn store_regs(regs: &[String], base: &str, offset: u32) -> String {
    let mut s = String::new();
    for (i, chunk) in regs.chunks(4).enumerate() {
        for (j, r) in chunk.iter().enumerate() {
            s += &format!("  v_mov_b32 v{}, {r}\n", 20 + j);
        }
        let n = chunk.len();
        let (op, vr) = if n == 1 {
            ("b32", "v20".to_string())
        } else {
            (
                ["", "", "b64", "b96", "b128"][n],
                format!("v[20:{}]", 19 + n),
            )
        };
        s += &format!(
            "  global_store_{op} v4, {vr}, {base} offset:{}\n",
            offset + 16 * i as u32
        );
    }
    s
}

const BLOCK: [u32; 3] = [16, 2, 2];

const GRID: [u32; 3] = [2, 2, 2];

const RECORD_WORDS: usize = 16;

/// Per lane: s0-s12 and v0 at out[global lane * 16]; the global lane is
/// (x + 16y + 32z) + 64 * (wg.x + 2 wg.y + 4 wg.z), from v0 and s9-s11.
fn dump_kernel() -> Kernel {
    let mut body = String::from(
        "  s_load_b64 s[14:15], s[4:5], 0x0\n  v_and_b32 v1, 0x3ff, v0\n  v_bfe_u32 v2, v0, 10, 10\n  v_bfe_u32 v3, v0, 20, 10\n\
         \x20 v_lshl_add_u32 v4, v2, 4, v1\n  v_lshl_add_u32 v4, v3, 5, v4\n  s_lshl_b32 s16, s10, 1\n  s_add_u32 s16, s16, s9\n\
         \x20 s_lshl_b32 s17, s11, 2\n  s_add_u32 s16, s16, s17\n  s_lshl_b32 s16, s16, 6\n  v_add_nc_u32 v4, s16, v4\n\
         \x20 v_lshlrev_b32 v4, 6, v4\n  s_waitcnt lgkmcnt(0)\n",
    );
    let regs: Vec<String> = (0..13)
        .map(|i| format!("s{i}"))
        .chain(["v0".to_string()])
        .collect();
    body += &store_regs(&regs, "s[14:15]", 0);
    body += "  s_endpgm";
    let mut directives = ALL_ENABLES.to_vec();
    directives.push("next_free_vgpr 24");
    Kernel::new("dump", &directives, &body)
}

/// One wave: the 64-byte packet at s[0:1], the first 64 bytes of the queue at
/// s[2:3] and its read_dispatch_id at +128, and the 64-byte descriptor the
/// packet's kernel_object points at, stored at out[0..], out[16..], out[32..],
/// out[48..] (every lane stores the same words).
fn structs_kernel() -> Kernel {
    let mut body = String::from(
        "  s_load_b64 s[14:15], s[4:5], 0x0\n  s_load_b512 s[16:31], s[0:1], 0x0\n  s_load_b512 s[32:47], s[2:3], 0x0\n\
         \x20 s_load_b64 s[48:49], s[2:3], 0x80\n  s_waitcnt lgkmcnt(0)\n  s_load_b512 s[64:79], s[24:25], 0x0\n\
         \x20 s_waitcnt lgkmcnt(0)\n  v_mov_b32 v4, 0\n",
    );
    let words = |from: u32, n: u32| {
        (from..from + n)
            .map(|i| format!("s{i}"))
            .collect::<Vec<_>>()
    };
    body += &store_regs(&words(16, 16), "s[14:15]", 0);
    body += &store_regs(&words(32, 16), "s[14:15]", 64);
    body += &store_regs(&words(48, 2), "s[14:15]", 128);
    body += &store_regs(&words(64, 16), "s[14:15]", 192);
    body += "  s_endpgm";
    let mut directives = ALL_ENABLES.to_vec();
    directives.extend(["next_free_vgpr 24", "next_free_sgpr 96"]);
    Kernel::new("structs", &directives, &body)
}

/// Launch `name` with `out` as its one argument; returns out's words.
fn launch(
    dev: &mut EmuDevice,
    module: xad_harness::platform::device::ModuleId,
    name: &str,
    dispatch: Dispatch,
    words: usize,
) -> Vec<u32> {
    let out = dev.alloc(words * 4).unwrap();
    dev.write(out, &vec![0xa5; words * 4]).unwrap();
    dev.launch(
        module,
        name,
        &out.to_le_bytes(),
        dispatch,
        Duration::from_secs(60),
    )
    .unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut bytes = vec![0u8; words * 4];
    dev.read(out, &mut bytes).unwrap();
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn u64_at(w: &[u32], i: usize) -> u64 {
    u64::from(w[i]) | u64::from(w[i + 1]) << 32
}

/// Both kernels, loaded on a fresh emulator; `None` (skip) without LLVM.
fn sgpr_kernels(
    stem: &str,
) -> Option<(
    EmuDevice,
    xad_harness::platform::device::ModuleId,
    CodeObject,
)> {
    let dir = scratch(stem);
    let tc = gfx1100_toolchain(&dir)?;
    let hsaco = build_gfx1100(
        &tc,
        &dir,
        stem,
        &code_object_source(&[dump_kernel(), structs_kernel()]),
    );
    let bytes = std::fs::read(&hsaco).unwrap();
    let mut dev = EmuDevice::new();
    let module = dev.load(&bytes).expect("load");
    Some((dev, module, CodeObject::parse(&bytes).unwrap()))
}

#[test]
fn every_user_and_system_sgpr_is_set_up_in_llvm_order() {
    let Some((mut dev, module, _)) = sgpr_kernels("descriptor-dump") else {
        return;
    };
    let dispatch = Dispatch {
        grid_blocks: GRID,
        block: BLOCK,
    };
    let lanes = 512;
    let first = launch(&mut dev, module, "dump", dispatch, lanes * RECORD_WORDS);
    let second = launch(&mut dev, module, "dump", dispatch, lanes * RECORD_WORDS);
    let (packet, queue, kernarg) = (u64_at(&first, 0), u64_at(&first, 2), u64_at(&first, 4));
    assert!(
        packet != 0 && queue != 0 && kernarg != 0,
        "pointers: packet 0x{packet:x} queue 0x{queue:x} kernarg 0x{kernarg:x}"
    );
    assert_eq!(
        u64_at(&second, 6),
        u64_at(&first, 6) + 1,
        "dispatch ids count launches"
    );
    for g in 0..lanes {
        let r = &first[g * RECORD_WORDS..(g + 1) * RECORD_WORDS];
        let (local, wg) = (g % 64, g / 64);
        let (x, y, z) = (local % 16, local / 16 % 2, local / 32);
        let wave = local / 32;
        let want_info = u32::from(wave == 0) << 31 | (wave as u32) << 20 | 2;
        assert_eq!(
            (u64_at(r, 0), u64_at(r, 2), u64_at(r, 4)),
            (packet, queue, kernarg),
            "lane {g}: pointers"
        );
        assert_eq!(u64_at(r, 6), u64_at(&first, 6), "lane {g}: dispatch id");
        assert_eq!(
            r[8], 20,
            "lane {g}: private segment size (18 rounded up to dwords)"
        );
        assert_eq!(
            [r[9], r[10], r[11]],
            [wg % 2, wg / 2 % 2, wg / 4].map(|v| v as u32),
            "lane {g}: workgroup id"
        );
        assert_eq!(r[12], want_info, "lane {g}: workgroup info");
        assert_eq!(r[13], (x | y << 10 | z << 20) as u32, "lane {g}: v0");
    }
}

#[test]
fn packet_queue_and_descriptor_behind_the_pointers() {
    let Some((mut dev, module, co)) = sgpr_kernels("descriptor-structs") else {
        return;
    };
    let w = launch(
        &mut dev,
        module,
        "structs",
        Dispatch {
            grid_blocks: [3, 1, 1],
            block: [32, 1, 1],
        },
        64,
    );
    let (packet, queue) = (&w[0..16], &w[16..32]);
    assert_eq!(
        packet[0] & 0xffff,
        2 | 2 << 9 | 2 << 11,
        "header: kernel dispatch, system-scope fences"
    );
    assert_eq!(
        packet[0] >> 16,
        3,
        "setup: 3 dimensions, as HIP module launches"
    );
    assert_eq!(
        [packet[1] & 0xffff, packet[1] >> 16, packet[2] & 0xffff],
        [32, 1, 1],
        "workgroup size"
    );
    assert_eq!(
        [packet[3], packet[4], packet[5]],
        [96, 1, 1],
        "grid size in work-items"
    );
    assert_eq!(
        [packet[6], packet[7]],
        [18, 0],
        "private and group segment sizes"
    );
    assert_eq!(
        [packet[12], packet[13], packet[14], packet[15]],
        [0; 4],
        "reserved2 and completion_signal"
    );
    assert_eq!(
        [queue[0], queue[1]],
        [0, 1],
        "queue type MULTI, features KERNEL_DISPATCH"
    );
    assert_eq!(
        [queue[6], queue[7], queue[8], queue[9]],
        [1, 0, 0, 0],
        "ring of one packet, queue id 0"
    );
    let (write_id, read_id) = (u64_at(queue, 14), u64_at(&w, 32));
    assert_eq!(
        write_id,
        read_id + 1,
        "the packet is written and being read"
    );
    let kd: Vec<u8> = w[48..64].iter().flat_map(|x| x.to_le_bytes()).collect();
    assert_eq!(
        kd,
        co.kernel("structs").unwrap().descriptor.to_bytes(),
        "kernel_object holds the descriptor"
    );
    // Negative control: the same words from a kernel that did not enable the
    // queue pointer could not be these (its s[2:3] is the kernarg pointer).
    assert_ne!(
        u64_at(queue, 2),
        u64_at(packet, 10),
        "queue base_address (the ring) is not the kernarg segment"
    );
}

#[test]
fn user_sgpr_count_llvm_accepts_but_gfx11_cannot_load_is_refused() {
    let dir = scratch("descriptor-count");
    let Some(tc) = gfx1100_toolchain(&dir) else {
        return;
    };
    let k = Kernel::new("many", &["user_sgpr_count 17"], "  s_endpgm");
    let hsaco = build_gfx1100(&tc, &dir, "many", &code_object_source(&[k]));
    let err = CodeObject::parse(&std::fs::read(hsaco).unwrap())
        .expect_err("17 user SGPRs")
        .to_string();
    assert!(err.contains("USER_SGPR_COUNT is 17"), "{err}");
}
