//! Helpers of the decode tests.

use std::io::Write;
use std::process::{Command, Stdio};

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
