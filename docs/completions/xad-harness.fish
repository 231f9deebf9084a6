# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_xad_harness_global_optspecs
    string join \n h/help V/version
end

function __fish_xad_harness_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_xad_harness_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_xad_harness_using_subcommand
    set -l cmd (__fish_xad_harness_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c xad-harness -n "__fish_xad_harness_needs_command" -s h -l help -d 'Print help'
complete -c xad-harness -n "__fish_xad_harness_needs_command" -s V -l version -d 'Print version'
complete -c xad-harness -n "__fish_xad_harness_needs_command" -f -a "run" -d 'Run cases and compare every lane with the CPU model (the default command)'
complete -c xad-harness -n "__fish_xad_harness_needs_command" -f -a "devices" -d 'List HIP devices and whether the harness can run on them'
complete -c xad-harness -n "__fish_xad_harness_needs_command" -f -a "list" -d 'List the cases of the catalogue (with --target, those that target has), and the targets'
complete -c xad-harness -n "__fish_xad_harness_needs_command" -f -a "kernels" -d 'Write every target\'s embedded code objects to DIR/<target>/ (for llvm-objdump or other loaders)'
complete -c xad-harness -n "__fish_xad_harness_needs_command" -f -a "replay" -d 'Run the lanes of a `run --dump` directory again and say what reproduced'
complete -c xad-harness -n "__fish_xad_harness_needs_command" -f -a "schema" -d 'Print the JSON Schema of the `run --json` report'
complete -c xad-harness -n "__fish_xad_harness_needs_command" -f -a "bench" -d 'Measure the emulator pipeline against a native loop over the same data'
complete -c xad-harness -n "__fish_xad_harness_needs_command" -f -a "merge" -d 'Merge the JSON (and JUnit) reports of several runs, e.g. a fleet\'s nodes, into one; exits with their combined code'
complete -c xad-harness -n "__fish_xad_harness_needs_command" -f -a "report" -d 'Draw a saved JSON report (of `run` or `merge`) as one self-contained HTML page'
complete -c xad-harness -n "__fish_xad_harness_needs_command" -f -a "microbench" -d 'Time v_xad_u32 against v_xor_b32 + add and v_add3_u32 with the GPU\'s cycle counter (hardware only: the emulator and emulated devices are exit 77)'
complete -c xad-harness -n "__fish_xad_harness_needs_command" -f -a "soak" -d 'Run v_xad_u32 for a duration with inputs generated and results checked on the device'
complete -c xad-harness -n "__fish_xad_harness_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c xad-harness -n "__fish_xad_harness_using_subcommand run" -l lanes -d 'Lanes per case: 1 to 4294967296 (suffixes k, M, G allowed: 64M). Soak runs on hardware: 16M or more' -r
complete -c xad-harness -n "__fish_xad_harness_using_subcommand run" -l seed -d 'Seed for inputs and scalar arguments (decimal or 0x hex); printed on every run' -r
complete -c xad-harness -n "__fish_xad_harness_using_subcommand run" -l device -d 'HIP device indices, comma separated (default: every device that runs the target, concurrently; the emulator is device 0)' -r
complete -c xad-harness -n "__fish_xad_harness_using_subcommand run" -l case -d 'Cases to run: names or globs, comma separated (default: all)' -r
complete -c xad-harness -n "__fish_xad_harness_using_subcommand run" -l kernel -d 'Run your own kernel (.s assembled now, or a code object) against a case\'s ABI and model' -r -F
complete -c xad-harness -n "__fish_xad_harness_using_subcommand run" -l backend -d 'What executes the kernels (default: $XAD_BACKEND, else auto). `hip` demands hardware: no matching device is exit 77, never an emulator pass' -r -f -a "auto\t'A HIP device that runs one of our targets if there is one, else the emulator'
hip\t'A HIP device only; none usable is exit 77 (skipped), never an emulator pass'
emu\t'The embedded emulator only'"
complete -c xad-harness -n "__fish_xad_harness_using_subcommand run" -l target -d 'Target whose code objects run: a name (gfx1151, gfx12-generic, ...; see `list --target`) or `all`. Default: the device\'s own target (gfx1100 on the emulator)' -r
complete -c xad-harness -n "__fish_xad_harness_using_subcommand run" -l timeout -d 'Watchdog per dispatch, in seconds: 0.001 to 86400' -r
complete -c xad-harness -n "__fish_xad_harness_using_subcommand run" -l max-mismatches -d 'Failing lanes printed and recorded per case: 0 to 1000000' -r
complete -c xad-harness -n "__fish_xad_harness_using_subcommand run" -l json -d 'Write a JSON report here (also when the run fails); `-` writes it to stdout and the text to stderr. A FIFO or character device is written in place' -r -F
complete -c xad-harness -n "__fish_xad_harness_using_subcommand run" -l junit -d 'Write a JUnit XML report here (also when the run fails); `-` writes it to stdout and the text to stderr. A FIFO or character device is written in place' -r -F
complete -c xad-harness -n "__fish_xad_harness_using_subcommand run" -l html -d 'Write a self-contained HTML page of lane maps and bit histograms here (also when the run fails; `-`: stdout); `report REPORT.json --html` draws the same page from a saved report' -r -F
complete -c xad-harness -n "__fish_xad_harness_using_subcommand run" -l dump -d 'Write the blocks around failing lanes (inputs, expected, got as .npy) and the code object to this new or empty directory, for `replay`' -r -F
complete -c xad-harness -n "__fish_xad_harness_using_subcommand run" -l step-budget -d 'Instructions one emulated wave may execute before the emulator stops it as an endless loop (exit 3): 1 to 1000000000000. The embedded emulator only; a HIP device has the --timeout watchdog' -r
complete -c xad-harness -n "__fish_xad_harness_using_subcommand run" -s q -l quiet -d 'Print only the cases that did not pass and the closing line; no progress bar'
complete -c xad-harness -n "__fish_xad_harness_using_subcommand run" -s v -l verbose -d 'Print every line of every case: each unsettled word and its candidate readings, and with --target all each passing case (by default the JSON, JUnit and HTML reports hold them)'
complete -c xad-harness -n "__fish_xad_harness_using_subcommand run" -l dump-all -d 'With --dump: every lane, not only failing ones (at most 1048576 lanes per case)'
complete -c xad-harness -n "__fish_xad_harness_using_subcommand run" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xad-harness -n "__fish_xad_harness_using_subcommand devices" -l json -d 'Print JSON instead of text'
complete -c xad-harness -n "__fish_xad_harness_using_subcommand devices" -s h -l help -d 'Print help'
complete -c xad-harness -n "__fish_xad_harness_using_subcommand list" -l target -d 'Only the cases this target has (a name, or `all` for every target\'s list)' -r
complete -c xad-harness -n "__fish_xad_harness_using_subcommand list" -l json -d 'Print the cases as a JSON array instead of text: per case its kernel, wave size, outputs per lane, the features it requires and the targets that have it'
complete -c xad-harness -n "__fish_xad_harness_using_subcommand list" -s h -l help -d 'Print help'
complete -c xad-harness -n "__fish_xad_harness_using_subcommand kernels" -l out -d 'Directory to write into (created if missing): DIR/<target>/<kernel>.hsaco per target' -r -F
complete -c xad-harness -n "__fish_xad_harness_using_subcommand kernels" -s h -l help -d 'Print help'
complete -c xad-harness -n "__fish_xad_harness_using_subcommand replay" -l backend -d 'What executes the kernels (as for `run`; default auto, or $XAD_BACKEND)' -r -f -a "auto\t'A HIP device that runs one of our targets if there is one, else the emulator'
hip\t'A HIP device only; none usable is exit 77 (skipped), never an emulator pass'
emu\t'The embedded emulator only'"
complete -c xad-harness -n "__fish_xad_harness_using_subcommand replay" -l device -d 'HIP device index (the emulator is device 0)' -r
complete -c xad-harness -n "__fish_xad_harness_using_subcommand replay" -l case -d 'Only the dumped cases whose names match (globs, comma separated)' -r
complete -c xad-harness -n "__fish_xad_harness_using_subcommand replay" -l lane -d 'Only the blocks holding these global lanes (comma separated)' -r
complete -c xad-harness -n "__fish_xad_harness_using_subcommand replay" -l timeout -d 'Watchdog per dispatch, in seconds: 0.001 to 86400' -r
complete -c xad-harness -n "__fish_xad_harness_using_subcommand replay" -l max-mismatches -d 'Lane lines printed per case: 0 to 1000000' -r
complete -c xad-harness -n "__fish_xad_harness_using_subcommand replay" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xad-harness -n "__fish_xad_harness_using_subcommand schema" -s h -l help -d 'Print help'
complete -c xad-harness -n "__fish_xad_harness_using_subcommand bench" -l lanes -d 'Lanes per run (the speed target is stated for 67108864)' -r
complete -c xad-harness -n "__fish_xad_harness_using_subcommand bench" -l seed -d 'Seed for the inputs (decimal or 0x hex); random when not given' -r
complete -c xad-harness -n "__fish_xad_harness_using_subcommand bench" -l repeat -d 'Runs of each, interleaved; the median is reported, and the best' -r
complete -c xad-harness -n "__fish_xad_harness_using_subcommand bench" -l sha-lanes -d 'Lanes of the SHA-256 part (sha256_w32 emulated beside the sha2 crate), 1 to 4194304' -r
complete -c xad-harness -n "__fish_xad_harness_using_subcommand bench" -s h -l help -d 'Print help'
complete -c xad-harness -n "__fish_xad_harness_using_subcommand merge" -l json -d 'Write the merged JSON report here (`-`: stdout, the summary line then on stderr)' -r -F
complete -c xad-harness -n "__fish_xad_harness_using_subcommand merge" -l junit -d 'Write the merged JUnit report here (from the --junit-in reports; `-`: stdout)' -r -F
complete -c xad-harness -n "__fish_xad_harness_using_subcommand merge" -l html -d 'Write the merged report\'s HTML page here (its device x target grid links every node\'s sections)' -r -F
complete -c xad-harness -n "__fish_xad_harness_using_subcommand merge" -l junit-in -d 'JUnit reports to merge: one or more after each --junit-in, after the JSON reports' -r -F
complete -c xad-harness -n "__fish_xad_harness_using_subcommand merge" -l expect -d 'How many JSON reports the fleet should have produced; any other number is a fault (exit 3)' -r
complete -c xad-harness -n "__fish_xad_harness_using_subcommand merge" -s h -l help -d 'Print help'
complete -c xad-harness -n "__fish_xad_harness_using_subcommand report" -l html -d 'Write the self-contained HTML page here (`-`: stdout)' -r -F
complete -c xad-harness -n "__fish_xad_harness_using_subcommand report" -s h -l help -d 'Print help'
complete -c xad-harness -n "__fish_xad_harness_using_subcommand microbench" -l backend -d 'What executes (default: $XAD_BACKEND, else auto). Only a HIP hardware device times anything; the emulator and an emulated HIP device are exit 77' -r -f -a "auto\t'A HIP device that runs one of our targets if there is one, else the emulator'
hip\t'A HIP device only; none usable is exit 77 (skipped), never an emulator pass'
emu\t'The embedded emulator only'"
complete -c xad-harness -n "__fish_xad_harness_using_subcommand microbench" -l device -d 'HIP device index (default: the first device that runs one of our targets)' -r
complete -c xad-harness -n "__fish_xad_harness_using_subcommand microbench" -l iterations -d 'Loop trips of 32 ops per timed region: 1 to 512 (keeps a region far below 2^20 cycles)' -r
complete -c xad-harness -n "__fish_xad_harness_using_subcommand microbench" -l waves -d 'Waves in the throughput launch\'s workgroup: 2 to 16' -r
complete -c xad-harness -n "__fish_xad_harness_using_subcommand microbench" -l repeat -d 'Timed launches of each shape (after one warm-up): 1 to 100; medians are reported' -r
complete -c xad-harness -n "__fish_xad_harness_using_subcommand microbench" -l timeout -d 'Watchdog per launch, in seconds: 1 to 86400' -r
complete -c xad-harness -n "__fish_xad_harness_using_subcommand microbench" -l json -d 'Also write the measurements as JSON here (`-`: stdout, the text then on stderr)' -r -F
complete -c xad-harness -n "__fish_xad_harness_using_subcommand microbench" -l html -d 'Also write the measurements as a self-contained HTML page here: latency and throughput per form, with their spread over launches' -r -F
complete -c xad-harness -n "__fish_xad_harness_using_subcommand microbench" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xad-harness -n "__fish_xad_harness_using_subcommand soak" -l duration -d 'How long: seconds (90, 1.5) or with a unit (500ms, 30s, 10m, 2h); 0.1 s to 7 days' -r
complete -c xad-harness -n "__fish_xad_harness_using_subcommand soak" -l backend -d 'What executes (as for `run`; default $XAD_BACKEND, else auto)' -r -f -a "auto\t'A HIP device that runs one of our targets if there is one, else the emulator'
hip\t'A HIP device only; none usable is exit 77 (skipped), never an emulator pass'
emu\t'The embedded emulator only'"
complete -c xad-harness -n "__fish_xad_harness_using_subcommand soak" -l device -d 'HIP device index (default: the first; the emulator is device 0)' -r
complete -c xad-harness -n "__fish_xad_harness_using_subcommand soak" -l seed -d 'Seed of the inputs (decimal or 0x hex); random when not given' -r
complete -c xad-harness -n "__fish_xad_harness_using_subcommand soak" -l json -d 'Write the outcome as JSON here (also when it fails; `-`: stdout, the text then on stderr)' -r -F
complete -c xad-harness -n "__fish_xad_harness_using_subcommand soak" -l html -d 'Write an HTML page of the outcome here (per-unit coverage and mismatches; also when it fails)' -r -F
complete -c xad-harness -n "__fish_xad_harness_using_subcommand soak" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xad-harness -n "__fish_xad_harness_using_subcommand help; and not __fish_seen_subcommand_from run devices list kernels replay schema bench merge report microbench soak help" -f -a "run" -d 'Run cases and compare every lane with the CPU model (the default command)'
complete -c xad-harness -n "__fish_xad_harness_using_subcommand help; and not __fish_seen_subcommand_from run devices list kernels replay schema bench merge report microbench soak help" -f -a "devices" -d 'List HIP devices and whether the harness can run on them'
complete -c xad-harness -n "__fish_xad_harness_using_subcommand help; and not __fish_seen_subcommand_from run devices list kernels replay schema bench merge report microbench soak help" -f -a "list" -d 'List the cases of the catalogue (with --target, those that target has), and the targets'
complete -c xad-harness -n "__fish_xad_harness_using_subcommand help; and not __fish_seen_subcommand_from run devices list kernels replay schema bench merge report microbench soak help" -f -a "kernels" -d 'Write every target\'s embedded code objects to DIR/<target>/ (for llvm-objdump or other loaders)'
complete -c xad-harness -n "__fish_xad_harness_using_subcommand help; and not __fish_seen_subcommand_from run devices list kernels replay schema bench merge report microbench soak help" -f -a "replay" -d 'Run the lanes of a `run --dump` directory again and say what reproduced'
complete -c xad-harness -n "__fish_xad_harness_using_subcommand help; and not __fish_seen_subcommand_from run devices list kernels replay schema bench merge report microbench soak help" -f -a "schema" -d 'Print the JSON Schema of the `run --json` report'
complete -c xad-harness -n "__fish_xad_harness_using_subcommand help; and not __fish_seen_subcommand_from run devices list kernels replay schema bench merge report microbench soak help" -f -a "bench" -d 'Measure the emulator pipeline against a native loop over the same data'
complete -c xad-harness -n "__fish_xad_harness_using_subcommand help; and not __fish_seen_subcommand_from run devices list kernels replay schema bench merge report microbench soak help" -f -a "merge" -d 'Merge the JSON (and JUnit) reports of several runs, e.g. a fleet\'s nodes, into one; exits with their combined code'
complete -c xad-harness -n "__fish_xad_harness_using_subcommand help; and not __fish_seen_subcommand_from run devices list kernels replay schema bench merge report microbench soak help" -f -a "report" -d 'Draw a saved JSON report (of `run` or `merge`) as one self-contained HTML page'
complete -c xad-harness -n "__fish_xad_harness_using_subcommand help; and not __fish_seen_subcommand_from run devices list kernels replay schema bench merge report microbench soak help" -f -a "microbench" -d 'Time v_xad_u32 against v_xor_b32 + add and v_add3_u32 with the GPU\'s cycle counter (hardware only: the emulator and emulated devices are exit 77)'
complete -c xad-harness -n "__fish_xad_harness_using_subcommand help; and not __fish_seen_subcommand_from run devices list kernels replay schema bench merge report microbench soak help" -f -a "soak" -d 'Run v_xad_u32 for a duration with inputs generated and results checked on the device'
complete -c xad-harness -n "__fish_xad_harness_using_subcommand help; and not __fish_seen_subcommand_from run devices list kernels replay schema bench merge report microbench soak help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
