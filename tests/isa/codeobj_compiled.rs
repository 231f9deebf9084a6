//! Code objects a compiler made, not our assembler: `clang -O2` on a user's
//! plain xor-add kernels (tests/kernels/emu/gfx10/llvm/user_kernels.ll) for
//! one target of each generation. A code generator fills descriptor fields our kernels leave 0
//! (gfx10+'s SGPR count, which the hardware ignores): validation must accept
//! them, or every HIP-compiled kernel a user brings would be refused.

use std::path::Path;
use std::process::Command;

use xad_harness::platform::codeobj::descriptor::GRANULATED_WAVEFRONT_SGPR_COUNT;
use xad_harness::platform::codeobj::CodeObject;
use xad_harness::platform::embedded;

fn compile(mcpu: &str, dir: &Path) -> Vec<u8> {
    let tc = xad_harness::platform::toolchain::discover(mcpu, dir)
        .unwrap_or_else(|e| panic!("{mcpu}: {e}"));
    let src =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/kernels/emu/gfx10/llvm/user_kernels.ll");
    let obj = dir.join(format!("{mcpu}.o"));
    let out = Command::new(&tc.clang)
        .args([
            "--target=amdgcn-amd-amdhsa",
            &format!("-mcpu={mcpu}"),
            "-O2",
            "-nogpulib",
            "-c",
        ])
        .arg(&src)
        .arg("-o")
        .arg(&obj)
        .output()
        .expect("run clang");
    assert!(
        out.status.success(),
        "{mcpu}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let hsaco = dir.join(format!("{mcpu}.hsaco"));
    tc.link(&obj, &hsaco)
        .unwrap_or_else(|e| panic!("{mcpu}: {e}"));
    std::fs::read(hsaco).unwrap()
}

#[test]
fn compiled_kernels_pass_validation_on_every_generation() {
    let dir = tempfile::tempdir().unwrap();
    let mut sgpr_count_set = 0;
    for mcpu in ["gfx90a", "gfx1030", "gfx1100", "gfx1201"] {
        if embedded::unbuilt(mcpu).is_some() {
            continue;
        }
        let bytes = compile(mcpu, dir.path());
        let code = CodeObject::parse(&bytes)
            .unwrap_or_else(|e| panic!("{mcpu}: a compiled kernel is refused: {e}"));
        let k = code
            .kernel("user_xad")
            .unwrap_or_else(|e| panic!("{mcpu}: {e}"));
        k.descriptor
            .validate(mcpu)
            .unwrap_or_else(|e| panic!("{mcpu}: {e}"));
        if mcpu != "gfx90a" && k.descriptor.get(GRANULATED_WAVEFRONT_SGPR_COUNT) != 0 {
            sgpr_count_set += 1;
        }
    }
    // The test is worth something only while the compiler sets the field
    // somewhere on gfx10+ (LLVM 19 does on all three).
    assert!(
        sgpr_count_set > 0,
        "no compiled gfx10+ kernel set the SGPR count; the test checks nothing"
    );
}
