//! Helpers of the decode tests (also the `llvm22` crate's, which includes this file): llvm-mc's
//! rows for a source, a table of rows decoded and compared with LLVM's text, the `.part` lists.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use xad_harness::isa::{decode_one_for, Inst, Isa};

/// `mc`'s (an llvm-mc) canonical text and bytes for every line of `source` it accepts, for
/// `-mcpu=<mcpu>` and, unless empty, `-mattr=<mattr>`; `None` when it cannot be run.
pub fn llvm_mc_rows(
    mc: &str,
    mcpu: &str,
    mattr: &str,
    source: &str,
) -> Option<Vec<(String, Vec<u8>)>> {
    let mut args = vec![
        "-triple=amdgcn".to_string(),
        format!("-mcpu={mcpu}"),
        "-show-encoding".to_string(),
    ];
    if !mattr.is_empty() {
        args.push(format!("-mattr={mattr}"));
    }
    let mut child = Command::new(mc)
        .args(&args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let mut stdin = child.stdin.take()?;
    let text = source.to_string();
    let writer = std::thread::spawn(move || stdin.write_all(text.as_bytes()));
    let out = child.wait_with_output().ok()?;
    writer.join().ok()?.ok()?;
    let rows = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_once("; encoding: ["))
        .map(|(text, enc)| {
            // A byte that is not hex (a fixup's placeholder) reads as 0: no table row has one.
            let bytes = enc
                .trim_end_matches(']')
                .split(',')
                .map(|x| u8::from_str_radix(x.trim().trim_start_matches("0x"), 16).unwrap_or(0))
                .collect();
            (text.trim().to_string(), bytes)
        })
        .collect();
    Some(rows)
}

pub fn hex(b: &[u8]) -> String {
    b.iter()
        .map(|x| format!("{x:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// LLVM prints some operands symbolically (waitcnt fields, delay_alu,
/// sendmsg, branch offsets, cache bits); for those only the mnemonic is compared.
pub fn symbolic(text: &str) -> bool {
    [
        "s_waitcnt ",
        "s_delay_alu",
        "s_sendmsg",
        "s_branch",
        "s_cbranch",
        " glc",
        " slc",
        " dlc",
        "s_setpc",
        "s_getpc",
        " th:",
        " scope:",
        "s_wait_alu",
    ]
    .iter()
    .any(|p| text.contains(p))
}

/// Decode every row of `rows` as `isa`: the mismatches, and the rows the
/// decoder refused (with its reason). A row matches when the decoded
/// instruction has the row's length and the text as LLVM printed it
/// (only the mnemonic where LLVM prints the operands symbolically).
pub fn decode_table(isa: Isa, rows: &[(&str, &[u8])]) -> (Vec<String>, Vec<String>) {
    decode_table_with(isa, rows, |text, inst| {
        let shown = inst.to_string();
        if symbolic(text) {
            text.split_whitespace().next() == shown.split_whitespace().next()
        } else {
            shown == *text
        }
    })
}

/// Decode every row of `rows` as `isa`, a decoded row matching when it has
/// the row's length and `same(llvm's text, instruction)`: the mismatches, and
/// the rows the decoder refused (with its reason).
pub fn decode_table_with(
    isa: Isa,
    rows: &[(&str, &[u8])],
    same: impl Fn(&str, &Inst) -> bool,
) -> (Vec<String>, Vec<String>) {
    let mut failures = Vec::new();
    let mut unsupported = Vec::new();
    for (text, bytes) in rows {
        match decode_one_for(isa, bytes) {
            Ok((inst, len)) => {
                if len != bytes.len() || !same(text, &inst) {
                    failures.push(format!(
                        "[{}] llvm: {text}\n      emu: {inst} (len {len})",
                        hex(bytes)
                    ));
                }
            }
            Err(e) => unsupported.push(format!("[{}] {text}: {e}", hex(bytes))),
        }
    }
    if std::env::var("EMU_LIST_UNSUPPORTED").is_ok() {
        eprintln!("{}", unsupported.join("\n"));
    }
    // LLVM assembled every row, so none is "not an instruction": an opcode the
    // emulator lacks is refused by its mnemonic (src/isa/unemulated.rs).
    let misnamed: Vec<_> = unsupported
        .iter()
        .filter(|u| u.contains("is not an instruction on"))
        .collect();
    assert!(
        misnamed.is_empty(),
        "LLVM's encodings called no instruction: {misnamed:#?}"
    );
    (failures, unsupported)
}

/// The `.part` lists of `tests/kernels/emu/<sub>` (the decode tables'
/// sources), concatenated in file-name order.
pub fn parts(sub: &str) -> String {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/kernels/emu")
        .join(sub);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "part"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect()
}
