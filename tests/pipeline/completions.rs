//! Shell completions for bash, zsh and fish, generated from the clap tree
//! (`xad_harness::commands::Cli`) with clap_complete, as the man pages are
//! with clap_mangen: the committed files in docs/completions/ must be what
//! the tree gives today. After changing an option or a command, rewrite them
//! with
//!
//!     XAD_UPDATE_COMPLETIONS=1 cargo test --test pipeline -- completions::
//!
//! and commit docs/completions/. Loading them: docs/usage.md.

use clap::CommandFactory;
use clap_complete::{Generator, Shell};
use std::path::{Path, PathBuf};

fn completions_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/completions")
}

const SHELLS: [Shell; 3] = [Shell::Bash, Shell::Zsh, Shell::Fish];

/// The script clap_complete writes for `shell`, and its file name
/// (`xad-harness.bash`, `_xad-harness`, `xad-harness.fish`).
fn rendered(shell: Shell) -> (String, Vec<u8>) {
    let mut bytes = Vec::new();
    let mut command = xad_harness::commands::Cli::command();
    clap_complete::generate(shell, &mut command, "xad-harness", &mut bytes);
    if shell == Shell::Bash {
        bytes = mend_hyphenated_bash(&bytes);
    }
    (shell.file_name("xad-harness"), bytes)
}

/// clap_complete 4.6.12's bash script never completes a subcommand's
/// options when the binary's name has a hyphen (clap-rs/clap#6421, fixed
/// upstream by #6428, not yet released): its dispatch loop spells the state
/// `xad__harness__subcmd__run` while its case arms spell it
/// `xad__subcmd__harness__subcmd__run`. The arms are respelt the loop's way;
/// `bash_completes_commands_and_options_from_the_script` proves the result
/// in bash, and fails if a release changes the spelling either way.
fn mend_hyphenated_bash(script: &[u8]) -> Vec<u8> {
    String::from_utf8_lossy(script)
        .replace("xad__subcmd__harness", "xad__harness")
        .into_bytes()
}

#[test]
fn the_completions_are_the_clap_tree() {
    let dir = completions_dir();
    let update = std::env::var_os("XAD_UPDATE_COMPLETIONS").is_some_and(|v| v == "1");
    let mut wrong = Vec::new();
    for shell in SHELLS {
        let (name, want) = rendered(shell);
        assert!(
            String::from_utf8_lossy(&want).contains("max-mismatches"),
            "{name}: the script knows run's options"
        );
        if update {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join(&name), &want).unwrap();
            continue;
        }
        match std::fs::read(dir.join(&name)) {
            Err(_) => wrong.push(format!("{name}: missing")),
            Ok(have) if have != want => wrong.push(format!("{name}: differs from the clap tree")),
            Ok(_) => {}
        }
    }
    if update {
        eprintln!(
            "wrote {} completion script(s) to {}",
            SHELLS.len(),
            dir.display()
        );
        return;
    }
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .map(|d| {
            d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    let mut want: Vec<String> = SHELLS.iter().map(|s| s.file_name("xad-harness")).collect();
    want.sort();
    for extra in names.iter().filter(|n| !want.contains(n)) {
        wrong.push(format!("{extra}: no shell writes it any more"));
    }
    assert!(
        wrong.is_empty(),
        "docs/completions is stale (rewrite it with XAD_UPDATE_COMPLETIONS=1 cargo test --test pipeline -- completions::):\n{}",
        wrong.join("\n")
    );
}

/// The bash script, loaded in a real bash, registers a completion for
/// `xad-harness` that completes the commands and `run`'s options: what a
/// user gets after `source`-ing it. Skipped (saying
/// so) where bash is missing.
#[test]
fn bash_completes_commands_and_options_from_the_script() {
    let script = completions_dir().join("xad-harness.bash");
    let complete = |words: &str| -> Option<Vec<String>> {
        // COMP_WORDS as bash fills them for `xad-harness <words><TAB>`.
        let probe = format!(
            r#"source "$1" || exit 9
COMP_WORDS=(xad-harness {words}); COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1))
COMP_LINE="xad-harness {words}"; COMP_POINT=${{#COMP_LINE}}
fn=$(complete -p xad-harness | sed -E 's/.* -F ([^ ]+) .*/\1/') || exit 8
"$fn" xad-harness "${{COMP_WORDS[COMP_CWORD]}}" "${{COMP_WORDS[COMP_CWORD-1]}}"
printf '%s\n' "${{COMPREPLY[@]}}""#
        );
        let out = std::process::Command::new("bash")
            .args(["-c", &probe, "bash"])
            .arg(&script)
            .output()
            .ok()?;
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        Some(
            String::from_utf8_lossy(&out.stdout)
                .lines()
                .map(str::to_string)
                .collect(),
        )
    };
    let Some(commands) = complete("''") else {
        eprintln!("SKIPPED: no bash here");
        return;
    };
    for c in ["run", "list", "merge", "report", "soak"] {
        assert!(commands.contains(&c.to_string()), "{c}: {commands:?}");
    }
    let options = complete("run --ju").unwrap();
    assert_eq!(options, ["--junit"], "{options:?}");
    let options = complete("run --").unwrap();
    for o in ["--json", "--verbose", "--target", "--max-mismatches"] {
        assert!(options.contains(&o.to_string()), "{o}: {options:?}");
    }
    // Negative control: an option of another command is not offered.
    assert!(!options.contains(&"--junit-in".to_string()), "{options:?}");
}
