//! `microbench` in this process: the host math on synthetic cycle values (a counter wrap
//! included), each generation's microbench kernel reading its counter around the six chains
//! (its instructions as the decoder reads the embedded code objects), and the README's example
//! as the printed format. The command as a process (refused without a HIP device) is the `cli`
//! crate's `microbench`.

use std::process::Command;
use xad_harness::commands::microbench::timing::{self, Counter, Record};
use xad_harness::isa::Generation;
use xad_harness::platform::embedded;
use xad_harness::platform::target::{Target, TARGETS};

/// One record as a kernel writes it (64 u32 words): regions (start, end), the
/// model's chain values, `iterations`, the marker with counter `kind`.
fn record_words(iterations: u32, spans: [(u64, u64); 6], kind: u32) -> Vec<u32> {
    let mut w = vec![0u32; timing::RECORD_WORDS];
    for (r, (start, end)) in spans.into_iter().enumerate() {
        w[6 * r] = start as u32;
        w[6 * r + 1] = (start >> 32) as u32;
        w[6 * r + 2] = end as u32;
        w[6 * r + 3] = (end >> 32) as u32;
        w[6 * r + 4] = timing::expected_value(r, iterations, timing::OPERANDS);
    }
    w[36] = iterations;
    w[37] = 0x4d42_0000 | kind;
    w
}

/// The counter reads `target`'s microbench kernel must hold, and the counter kind.
fn counter_of(target: &Target) -> (&'static [&'static str], Counter) {
    let gfx10_1 = matches!(target.name, "gfx1010" | "gfx10-1-generic");
    match target.generation() {
        Generation::Gfx9 => (&["s_memtime"], Counter::Memtime),
        Generation::Gfx10 if gfx10_1 => (&["s_memtime"], Counter::Memtime),
        Generation::Gfx10 | Generation::Gfx11 => (
            &["s_getreg_b32", "hwreg(HW_REG_SHADER_CYCLES, 0, 20)"],
            Counter::ShaderCycles20,
        ),
        Generation::Gfx12 => (
            &["s_getreg_b32", "hwreg(HW_REG_SHADER_CYCLES_"],
            Counter::ShaderCycles64,
        ),
    }
}

/// `llvm-objdump -d --mcpu=<target>` of the embedded code object: one
/// instruction per entry, `_e32`/`_e64` suffixes dropped, comments cut.
fn instructions(target: &Target, name: &str) -> Vec<String> {
    let k = embedded::find(target.name, name)
        .unwrap_or_else(|| panic!("{name} is not embedded for {}", target.name));
    let objdump = embedded::objdump_for(target.name)
        .unwrap_or_else(|| panic!("build.rs found no llvm-objdump for {}", target.name));
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join(format!("{name}.hsaco"));
    std::fs::write(&path, k.bytes).expect("write code object");
    let out = Command::new(objdump)
        .args(["-d", &format!("--mcpu={}", target.name)])
        .arg(&path)
        .output()
        .unwrap_or_else(|e| panic!("running {objdump}: {e}"));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.starts_with('\t') || l.starts_with("  "))
        .map(|l| {
            let text = l.split("//").next().unwrap_or("").trim();
            text.replacen("_e32 ", " ", 1).replacen("_e64 ", " ", 1)
        })
        .filter(|t| !t.is_empty())
        .collect()
}

/// The instructions of each timed region: after the counter read that opens
/// it, before the one that closes it. A read is `per_read` instructions
/// (gfx12 reads HI, LO, HI).
fn regions(insts: &[String], reads: &[&str], per_read: usize) -> Vec<Vec<String>> {
    let at: Vec<usize> = (0..insts.len())
        .filter(|&i| reads.iter().all(|r| insts[i].contains(r)))
        .collect();
    let groups: Vec<&[usize]> = at.chunks(per_read).collect();
    groups
        .chunks(2)
        .filter_map(|pair| match pair {
            [open, close] => Some(insts[open[per_read - 1] + 1..close[0]].to_vec()),
            _ => None,
        })
        .collect()
}

#[test]
fn host_math_on_synthetic_cycle_values_with_a_wrap() {
    let iterations = 8; // 256 ops per region
                        // Latency (one wave): xad 5 ticks/op, its dependent region across the
                        // 20-bit wrap (0xfff00 -> 0x400 is 0x500 = 1280 ticks); xor + add 10, add3 5.
    let latency = Record::parse(&record_words(
        iterations,
        [
            (0xf_ff00, 0x400),
            (1000, 3560),
            (0, 1280),
            (0, 512),
            (0, 1024),
            (0, 512),
        ],
        1,
    ))
    .expect("a record");
    assert_eq!(latency.counter, Counter::ShaderCycles20);
    assert_eq!(latency.ticks(0), 1280);
    // Throughput: two waves, 3 and 6 ticks/op/wave (the second wave wrapped too).
    let waves: Vec<Record> = [
        [
            (0, 1280),
            (0, 2560),
            (0, 1280),
            (0, 768),
            (0, 1536),
            (0, 768),
        ],
        [
            (0, 1280),
            (0, 2560),
            (0, 1280),
            (0xf_fe00, 0x100),
            (0xf_fa00, 0x0),
            (0xf_fe00, 0x100),
        ],
    ]
    .map(|spans| Record::parse(&record_words(iterations, spans, 1)).unwrap())
    .to_vec();
    let rows = timing::summarize(std::slice::from_ref(&latency), &waves, iterations);
    let got: Vec<(f64, Option<f64>, f64, Option<f64>)> = rows
        .iter()
        .map(|r| (r.latency, r.latency_ratio, r.throughput, r.throughput_ratio))
        .collect();
    assert_eq!(
        got,
        [
            (5.0, Some(1.0), 3.0, Some(1.0)),
            (10.0, Some(2.0), 6.0, Some(2.0)),
            (5.0, Some(1.0), 3.0, Some(1.0)),
        ]
    );
    // The records pass their checks; one wrong chain value does not.
    let all: Vec<Option<Record>> = waves.iter().cloned().map(Some).collect();
    assert!(timing::check_records("throughput", &all, iterations, timing::OPERANDS).is_empty());
    let mut wrong = latency;
    wrong.regions[0].value ^= 1;
    let problems = timing::check_records("latency", &[Some(wrong)], iterations, timing::OPERANDS);
    assert_eq!(problems.len(), 1, "{problems:?}");
    // A 64-bit counter does not wrap at 2^20.
    assert_eq!(timing::delta(0xf_ff00, 0x10_0100, 64), 0x200);
    assert_eq!(timing::delta(0xf_ff00, 0x10_0100, 20), 0x200);
    assert_eq!(timing::delta(0x10_0100, 0xf_ff00, 64), u64::MAX - 0x1ff);
}

#[test]
fn each_generations_microbench_kernel_reads_its_counter_around_the_six_chains() {
    let mut checked = 0;
    for target in TARGETS {
        if embedded::unbuilt(target.name).is_some() {
            continue; // gfx950 needs LLVM 22; nothing embedded to check
        }
        let name = timing::kernel_name(target);
        let insts = instructions(target, name);
        let (reads, _) = counter_of(target);
        let read_count = insts
            .iter()
            .filter(|i| reads.iter().all(|r| i.contains(r)))
            .count();
        let per_read = if target.generation() == Generation::Gfx12 {
            3
        } else {
            1
        };
        assert_eq!(
            read_count,
            12 * per_read,
            "{} {name}: counter reads\n{insts:#?}",
            target.name
        );
        // No other generation's counter.
        for other in [
            "s_memtime",
            "HW_REG_SHADER_CYCLES, 0, 20",
            "HW_REG_SHADER_CYCLES_",
        ] {
            if !reads
                .iter()
                .any(|r| r.contains(other.trim_end_matches(", 0, 20")))
            {
                assert!(
                    !insts.iter().any(|i| i.contains(other)),
                    "{} has {other}",
                    target.name
                );
            }
        }
        let add = if target.generation() == Generation::Gfx9 {
            "v_add_u32"
        } else {
            "v_add_nc_u32"
        };
        let found = regions(&insts, reads, per_read);
        assert_eq!(found.len(), 6, "{}: regions\n{found:#?}", target.name);
        let chain = |body: &[String]| -> Vec<String> {
            body.iter()
                .filter(|i| {
                    i.starts_with("v_xad_u32")
                        || i.starts_with("v_add3_u32")
                        || i.starts_with("v_xor_b32")
                        || i.starts_with(add)
                })
                .cloned()
                .collect()
        };
        // Dependent chains: 32 ops on v10 alone.
        let dep = |op: &str| vec![format!("{op} v10, v10, v2, v3"); 32];
        assert_eq!(chain(&found[0]), dep("v_xad_u32"), "{}", target.name);
        assert_eq!(chain(&found[2]), dep("v_add3_u32"), "{}", target.name);
        let xor_add: Vec<String> = (0..32)
            .flat_map(|_| {
                [
                    "v_xor_b32 v10, v10, v2".to_string(),
                    format!("{add} v10, v10, v3"),
                ]
            })
            .collect();
        assert_eq!(chain(&found[1]), xor_add, "{}", target.name);
        // Independent chains: v10..v17 round robin, 4 ops each, then the fold.
        let fold: Vec<String> = (11..18)
            .map(|k| format!("v_xor_b32 v10, v10, v{k}"))
            .collect();
        let indep = |op: &str| -> Vec<String> {
            (0..32)
                .map(|i| format!("{op} v{0}, v{0}, v2, v3", 10 + i % 8))
                .chain(fold.clone())
                .collect()
        };
        assert_eq!(chain(&found[3]), indep("v_xad_u32"), "{}", target.name);
        assert_eq!(chain(&found[5]), indep("v_add3_u32"), "{}", target.name);
        let indep_xor_add: Vec<String> = (0..4)
            .flat_map(|_| {
                (10..18)
                    .map(|k| format!("v_xor_b32 v{k}, v{k}, v2"))
                    .chain((10..18).map(|k| format!("{add} v{k}, v{k}, v3")))
            })
            .chain(fold.clone())
            .collect();
        assert_eq!(chain(&found[4]), indep_xor_add, "{}", target.name);
        // Each region loops, and its closing read waits for the chain's value.
        for (r, body) in found.iter().enumerate() {
            assert!(
                body.iter().any(|i| i.starts_with("s_cbranch_scc1")),
                "{} region {r}",
                target.name
            );
            let n = body.len();
            assert!(
                n >= 2
                    && body[n - 2].starts_with("v_readfirstlane_b32 s11, v10")
                    && body[n - 1].ends_with(", s11"),
                "{} region {r} must end reading the chain's value: {:?}",
                target.name,
                &body[n.saturating_sub(3)..]
            );
        }
        checked += 1;
    }
    assert!(checked >= 18, "only {checked} targets checked");
}

#[test]
fn the_counter_kind_in_each_kernel_matches_its_instructions() {
    // The kernel stores `0x4d420000 | kind` as an s_mov_b32 literal; the host
    // trusts that word for the counter's width.
    for target in TARGETS
        .iter()
        .filter(|t| embedded::unbuilt(t.name).is_none())
    {
        let insts = instructions(target, timing::kernel_name(target));
        let (_, counter) = counter_of(target);
        let kind = match counter {
            Counter::ShaderCycles20 => 1,
            Counter::ShaderCycles64 => 2,
            Counter::Memtime => 3,
        };
        let marker = format!("s_mov_b32 s77, 0x{:x}", 0x4d42_0000 | kind);
        assert!(insts.contains(&marker), "{}: no `{marker}`", target.name);
    }
}

/// docs/microbench.md's example output is the format `microbench` prints: rendered here
/// from placeholder values (1.11, 2.22, 3.33 stand for L.LL, T.TT, R.RR), no
/// timing involved.
#[test]
fn the_readme_example_is_the_printed_format() {
    use timing::{Form, Report, Row};
    let row = |form: Form, ratio: f64| Row {
        form,
        instructions: String::new(),
        latency: 1.11,
        latency_spread: [1.11, 1.11],
        latency_ratio: Some(ratio),
        throughput: 2.22,
        throughput_spread: [2.22, 2.22],
        throughput_ratio: Some(ratio),
    };
    let report = Report {
        command: "microbench",
        executor: "hardware: <device name> (<gcnArchName>), HIP runtime <version>".into(),
        target: "<target>".into(),
        counter: Counter::ShaderCycles20,
        counter_instruction: Counter::ShaderCycles20.describe(),
        iterations: timing::DEFAULT_ITERATIONS,
        ops_per_region: timing::ops_per_region(timing::DEFAULT_ITERATIONS),
        latency_waves: 1,
        throughput_waves: timing::DEFAULT_WAVES,
        independent_chains: timing::CHAINS,
        repeat: timing::DEFAULT_REPEAT,
        rows: vec![
            row(Form::Xad, 1.0),
            row(Form::XorAdd, 3.33),
            row(Form::Add3, 3.33),
        ],
    };
    let printed: Vec<String> = timing::lines(&report, Generation::Gfx11)
        .into_iter()
        .map(|l| {
            l.replace("1.11", "L.LL")
                .replace("2.22", "T.TT")
                .replace("3.33", "R.RR")
        })
        .collect();
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/microbench.md"))
            .unwrap();
    let section = readme
        .split("# Microbenchmarks")
        .nth(1)
        .expect("docs/microbench.md's section");
    let block: Vec<&str> = section
        .split("```\n")
        .nth(1)
        .expect("the example block")
        .lines()
        .collect();
    assert_eq!(
        block,
        printed.iter().map(String::as_str).collect::<Vec<_>>()
    );
}
