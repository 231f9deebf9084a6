//! `ci/slurm/` on a real Slurm: a one-node cluster on localhost (Debian 12's
//! `munge`, `slurmctld`, `slurmd`, Slurm 22.05) started in a temporary
//! directory, the batch script submitted with `sbatch --wait` as a 2-task job
//! array running the harness on the emulator (`XAD_BACKEND=emu`), its two
//! "node" reports merged with `ci/slurm/merge.sh`; the same with
//! `XAD_BACKEND=hip` (no GPU here: every task exits 77, and so does the
//! merge); and the script's srun mode (one job, the merge as its last step).
//!
//! The node has two stand-in GPUs, `gpu:gfx1100:2`: gres.conf names two
//! character devices made in the temporary directory (copies of /dev/null;
//! /dev/null and /dev/zero themselves where mknod is not allowed), because
//! slurmd drops a GPU without a device file, and a job asking for
//! `--gres=gpu:gfx1100:1` is then placed as on a real GPU node, with
//! `Flags=amd_gpu_env` setting ROCR_VISIBLE_DEVICES. Nothing is constrained
//! (task/none, proctrack/linuxproc: no cgroups needed).
//!
//! Needs root (the daemons run as root, in the foreground, as this test's
//! children) and the binaries; without them the test says why and returns,
//! except under CI=true, where it fails. Every daemon is stopped when the
//! test ends, also on failure, and every wait is bounded.

use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

const BINARIES: [&str; 7] = [
    "munged",
    "slurmctld",
    "slurmd",
    "sbatch",
    "sinfo",
    "scancel",
    "srun",
];
const HARNESS: &str = env!("CARGO_BIN_EXE_xad-harness");
const REPO: &str = env!("CARGO_MANIFEST_DIR");
/// Bound on any one wait: a daemon coming up, a job, a client command.
const LIMIT: Duration = Duration::from_secs(60);

/// Where a binary is: PATH, then the sbin directories a non-login root shell may lack.
fn find(binary: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(["/usr/sbin", "/sbin", "/usr/bin"].map(PathBuf::from))
        .map(|dir| dir.join(binary))
        .find(|p| p.is_file())
}

fn missing_prerequisite() -> Option<String> {
    let uid = fs::metadata("/proc/self")
        .map(|m| m.uid())
        .unwrap_or(u32::MAX);
    if uid != 0 {
        return Some(format!(
            "not root (uid {uid}): the Slurm daemons run as root"
        ));
    }
    let missing: Vec<&str> = BINARIES.into_iter().filter(|b| find(b).is_none()).collect();
    if !missing.is_empty() {
        return Some(format!(
            "{} not installed (apt-get install munge slurmctld slurmd; ci/setup.sh --tests does)",
            missing.join(", ")
        ));
    }
    None
}

/// Run a client command to its end within `limit`, its output in `log_dir`.
fn run_bounded(cmd: &mut Command, log: &Path, limit: Duration) -> (Option<ExitStatus>, String) {
    let out = fs::File::create(log).unwrap();
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(out.try_clone().unwrap())
        .stderr(out)
        .spawn()
        .unwrap_or_else(|e| panic!("starting {cmd:?}: {e}"));
    let status = wait_bounded(&mut child, limit);
    if status.is_none() {
        let _ = child.kill();
        let _ = child.wait();
    }
    (status, fs::read_to_string(log).unwrap_or_default())
}

fn wait_bounded(child: &mut Child, limit: Duration) -> Option<ExitStatus> {
    let start = Instant::now();
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            return Some(status);
        }
        if start.elapsed() > limit {
            return None;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A TCP port nobody listens on now.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The running cluster. Dropping it cancels its jobs and stops the daemons.
struct Cluster {
    dir: PathBuf,
    conf: PathBuf,
    /// (name, process), in start order; stopped in reverse.
    daemons: Vec<(&'static str, Child)>,
    commands: usize,
}

impl Cluster {
    fn start(dir: &Path) -> Cluster {
        for sub in ["munge", "state", "spool", "log", "dev", "submit", "reports"] {
            fs::create_dir_all(dir.join(sub)).unwrap();
        }
        // munged refuses a socket whose directories are not searchable by all.
        fs::set_permissions(dir, fs::Permissions::from_mode(0o711)).unwrap();
        let key = dir.join("munge/munge.key");
        let bytes: Vec<u8> = (0..1024).map(|_| rand::random::<u8>()).collect();
        fs::write(&key, bytes).unwrap();
        fs::set_permissions(&key, fs::Permissions::from_mode(0o400)).unwrap();

        let conf = dir.join("slurm.conf");
        let mut cluster = Cluster {
            dir: dir.to_path_buf(),
            conf: conf.clone(),
            daemons: Vec::new(),
            commands: 0,
        };
        let gpus = stand_in_gpus(&dir.join("dev"));
        fs::write(
            dir.join("gres.conf"),
            format!("NodeName=localhost Name=gpu Type=gfx1100 File={gpus} Flags=amd_gpu_env\n"),
        )
        .unwrap();
        let topology = cluster.topology();
        let d = dir.display();
        let socket = format!("{d}/munge/munge.socket");
        fs::write(
            &conf,
            format!(
                "ClusterName=xadtest\n\
                 SlurmctldHost=localhost(127.0.0.1)\n\
                 SlurmctldPort={ctld}\n\
                 SlurmdPort={slurmd}\n\
                 AuthType=auth/munge\n\
                 CredType=cred/munge\n\
                 AuthInfo=socket={socket}\n\
                 SlurmUser=root\n\
                 SlurmdUser=root\n\
                 StateSaveLocation={d}/state\n\
                 SlurmdSpoolDir={d}/spool\n\
                 SlurmctldPidFile={d}/slurmctld.pid\n\
                 SlurmdPidFile={d}/slurmd.pid\n\
                 SlurmctldLogFile={d}/log/slurmctld.log\n\
                 SlurmdLogFile={d}/log/slurmd.log\n\
                 ProctrackType=proctrack/linuxproc\n\
                 TaskPlugin=task/none\n\
                 SelectType=select/cons_tres\n\
                 SelectTypeParameters=CR_CPU\n\
                 JobAcctGatherType=jobacct_gather/none\n\
                 AccountingStorageType=accounting_storage/none\n\
                 MpiDefault=none\n\
                 GresTypes=gpu\n\
                 ReturnToService=2\n\
                 MinJobAge=300\n\
                 KillWait=5\n\
                 NodeName=localhost NodeAddr=127.0.0.1 {topology} Gres=gpu:gfx1100:2 State=UNKNOWN\n\
                 PartitionName=test Nodes=localhost Default=YES MaxTime=10 State=UP\n",
                ctld = free_port(),
                slurmd = free_port(),
            ),
        )
        .unwrap();

        cluster.daemon(
            "munged",
            &[
                "-F",
                &format!("--socket={socket}"),
                &format!("--key-file={}", key.display()),
                &format!("--log-file={d}/log/munged.log"),
                &format!("--pid-file={d}/munge/munged.pid"),
                &format!("--seed-file={d}/munge/munged.seed"),
            ],
        );
        cluster.wait_for("munged's socket", |_| Path::new(&socket).exists());
        let conf_arg = conf.display().to_string();
        cluster.daemon("slurmctld", &["-D", "-i", "-f", &conf_arg]);
        cluster.daemon("slurmd", &["-D", "-N", "localhost", "-f", &conf_arg]);
        cluster.wait_for("the node to be idle", |cluster| {
            let (status, out) = cluster.client(
                "sinfo",
                &["-h", "-n", "localhost", "-o", "%T"],
                Duration::from_secs(10),
            );
            status.is_some_and(|s| s.success()) && out.trim() == "idle"
        });
        cluster
    }

    /// The node's CPUs as slurmd sees them (`slurmd -C`), so the node
    /// registers instead of being drained for a mismatch.
    fn topology(&mut self) -> String {
        let (_, out) = self.client("slurmd", &["-C"], Duration::from_secs(10));
        let fields: Vec<&str> = out
            .split_whitespace()
            .filter(|f| {
                [
                    "CPUs=",
                    "Boards=",
                    "SocketsPerBoard=",
                    "CoresPerSocket=",
                    "ThreadsPerCore=",
                ]
                .iter()
                .any(|k| f.starts_with(k))
            })
            .collect();
        if fields.iter().any(|f| f.starts_with("CPUs=")) {
            fields.join(" ")
        } else {
            let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
            format!("CPUs={cpus}")
        }
    }

    fn daemon(&mut self, name: &'static str, args: &[&str]) {
        let log = fs::File::create(self.dir.join(format!("log/{name}.out"))).unwrap();
        let child = Command::new(find(name).unwrap())
            .args(args)
            .env("SLURM_CONF", &self.conf)
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap_or_else(|e| panic!("starting {name}: {e}"));
        self.daemons.push((name, child));
    }

    fn wait_for(&mut self, what: &str, mut ready: impl FnMut(&mut Cluster) -> bool) {
        let start = Instant::now();
        while !ready(self) {
            for (name, child) in &mut self.daemons {
                if let Ok(Some(status)) = child.try_wait() {
                    panic!("{name} exited ({status}) while waiting for {what}");
                }
            }
            assert!(start.elapsed() < LIMIT, "no {what} after {LIMIT:?}");
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// A Slurm client command against this cluster, bounded by `limit`.
    fn client(
        &mut self,
        name: &str,
        args: &[&str],
        limit: Duration,
    ) -> (Option<ExitStatus>, String) {
        self.commands += 1;
        let log = self
            .dir
            .join(format!("log/client-{}-{name}.out", self.commands));
        run_bounded(
            Command::new(find(name).unwrap())
                .args(args)
                .env("SLURM_CONF", &self.conf),
            &log,
            limit,
        )
    }

    /// `sbatch --wait` of the batch script, started now: call
    /// [`Submission::finish`] to wait for it.
    fn submit(&mut self, tag: &str, backend: &str, sbatch_args: &[&str]) -> Submission {
        let log = self.dir.join(format!("log/sbatch-{tag}.out"));
        let out = fs::File::create(&log).unwrap();
        let child = Command::new(find("sbatch").unwrap())
            .args(["--wait", "--time=2", "--gres=gpu:gfx1100:1"])
            .args(sbatch_args)
            .arg(Path::new(REPO).join("ci/slurm/xad-harness.sbatch"))
            .args(["--case", "basic,vgpr_w32", "--lanes", "256", "--seed", "1"])
            .current_dir(self.dir.join("submit"))
            .env("SLURM_CONF", &self.conf)
            .env("XAD_BACKEND", backend)
            .env("XAD_HOME", REPO)
            .env("XAD_HARNESS", HARNESS)
            .env("XAD_REPORT_DIR", self.dir.join("reports"))
            .env_remove("LD_LIBRARY_PATH")
            .stdin(Stdio::null())
            .stdout(out.try_clone().unwrap())
            .stderr(out)
            .spawn()
            .expect("starting sbatch");
        Submission { child, log }
    }

    fn logs(&self) -> String {
        let mut text = String::new();
        for name in [
            "slurmctld.log",
            "slurmd.log",
            "munged.out",
            "slurmctld.out",
            "slurmd.out",
        ] {
            let body = fs::read_to_string(self.dir.join("log").join(name)).unwrap_or_default();
            let tail: Vec<&str> = body.lines().rev().take(30).collect();
            text += &format!("--- {name} (last lines)\n");
            for line in tail.into_iter().rev() {
                text += line;
                text.push('\n');
            }
        }
        text
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("{}", self.logs());
        }
        if self.daemons.iter().any(|(name, _)| *name == "slurmctld") {
            let _ = self.client("scancel", &["--user=root"], Duration::from_secs(10));
        }
        while let Some((name, mut child)) = self.daemons.pop() {
            if let Ok(pid) = i32::try_from(child.id()) {
                // SAFETY: kill(2) on the pid of our own child, which has not
                // been waited for yet, so the pid cannot have been reused.
                unsafe {
                    libc::kill(pid, libc::SIGTERM);
                }
            }
            if wait_bounded(&mut child, Duration::from_secs(10)).is_none() {
                eprintln!("{name} did not stop on SIGTERM in 10 s; killing it");
                let _ = child.kill();
                let _ = child.wait();
            }
        }
    }
}

/// Two stand-in GPU device files for gres.conf (slurmd drops a GPU without one).
fn stand_in_gpus(dev: &Path) -> String {
    let made = (128..130).all(|minor| {
        let path = dev.join(format!("renderD{minor}"));
        Command::new("mknod")
            .arg(&path)
            .args(["c", "1", "3"]) // /dev/null's numbers: harmless to open
            .status()
            .is_ok_and(|s| s.success())
    });
    if made {
        format!("{}/renderD[128-129]", dev.display())
    } else {
        "/dev/null,/dev/zero".to_string()
    }
}

struct Submission {
    child: Child,
    log: PathBuf,
}

impl Submission {
    /// sbatch's exit code (an array's: its highest task's), and the job id.
    fn finish(mut self, deadline: Instant) -> (i32, String) {
        let left = deadline.saturating_duration_since(Instant::now());
        let status = wait_bounded(&mut self.child, left);
        let out = fs::read_to_string(&self.log).unwrap_or_default();
        let Some(status) = status else {
            let _ = self.child.kill();
            let _ = self.child.wait();
            panic!("sbatch --wait still running after {LIMIT:?}:\n{out}");
        };
        let job = out
            .lines()
            .find_map(|l| l.strip_prefix("Submitted batch job "))
            .unwrap_or_else(|| panic!("no job id from sbatch:\n{out}"))
            .trim()
            .to_string();
        (status.code().unwrap_or(-1), job)
    }
}

fn read_json(path: &Path) -> Value {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn job_outputs(dir: &Path) -> String {
    let mut text = String::new();
    for entry in fs::read_dir(dir.join("submit"))
        .into_iter()
        .flatten()
        .flatten()
    {
        text += &format!("--- {}\n", entry.path().display());
        text += &fs::read_to_string(entry.path()).unwrap_or_default();
    }
    text
}

/// `ci/slurm/merge.sh` on one job's reports: its exit code and output.
fn merge(cluster: &mut Cluster, reports: &Path, expect: usize) -> (i32, String) {
    cluster.commands += 1;
    let log = cluster
        .dir
        .join(format!("log/merge-{}.out", cluster.commands));
    let (status, out) = run_bounded(
        Command::new("bash")
            .arg(Path::new(REPO).join("ci/slurm/merge.sh"))
            .arg(reports)
            .arg(expect.to_string())
            .env("XAD_HARNESS", HARNESS)
            .env_remove("LD_LIBRARY_PATH"),
        &log,
        LIMIT,
    );
    let status = status.unwrap_or_else(|| panic!("merge.sh still running after {LIMIT:?}"));
    (status.code().unwrap_or(-1), out)
}

#[test]
fn batch_script_runs_a_job_array_and_merges_its_node_reports() {
    if let Some(why) = missing_prerequisite() {
        if std::env::var("CI").as_deref() == Ok("true") {
            panic!("CI=true and the Slurm test cannot run: {why}");
        }
        eprintln!("skipped: {why}");
        return;
    }
    let started = Instant::now();
    let dir = tempfile::Builder::new()
        .prefix("xad-slurm-")
        .tempdir()
        .unwrap();
    let mut cluster = Cluster::start(dir.path());
    eprintln!("cluster up in {:.1} s", started.elapsed().as_secs_f64());

    // All three at once: the node has 2 CPUs' worth of slots and 2 GPUs, so
    // Slurm runs them as resources free up, and sbatch --wait's polling
    // overlaps.
    let emu = cluster.submit("emu", "emu", &["--array=0-1"]);
    let hip = cluster.submit("hip", "hip", &["--array=0-1"]);
    let srun = cluster.submit("srun", "emu", &["--nodes=1"]);
    let deadline = Instant::now() + LIMIT;
    let (emu_code, emu_job) = emu.finish(deadline);
    let (hip_code, hip_job) = hip.finish(deadline);
    let (srun_code, srun_job) = srun.finish(deadline);
    eprintln!("jobs done in {:.1} s", started.elapsed().as_secs_f64());
    let outputs = job_outputs(dir.path());
    assert_eq!(
        emu_code, 0,
        "the emulator array job (sbatch exits with its highest task code)\n{outputs}"
    );
    assert_eq!(
        hip_code, 77,
        "XAD_BACKEND=hip on a node without an AMD GPU is skipped (77), never a pass\n{outputs}"
    );

    let reports = dir.path().join("reports");
    let host = fs::read_to_string("/proc/sys/kernel/hostname")
        .unwrap()
        .trim()
        .to_string();
    let emu_dir = reports.join(&emu_job);
    for task in ["localhost.0", "localhost.1"] {
        for ext in ["json", "xml"] {
            let path = emu_dir.join(format!("{task}.{ext}"));
            assert!(path.is_file(), "{} missing\n{outputs}", path.display());
        }
        assert!(
            reports
                .join(&hip_job)
                .join(format!("{task}.json"))
                .is_file(),
            "{outputs}"
        );
    }
    assert!(
        reports.join(&srun_job).join("localhost.json").is_file(),
        "{outputs}"
    );

    let (merged_code, merged_out) = merge(&mut cluster, &emu_dir, 2);
    assert_eq!(merged_code, 0, "{merged_out}");
    assert!(
        merged_out.contains("merged 2 report(s), 2 JUnit suites: 2 device(s)"),
        "{merged_out}"
    );
    let merged = read_json(&emu_dir.join("merged.json"));
    assert_eq!(merged["exit_code"], 0);
    let devices = merged["devices"].as_array().unwrap();
    assert_eq!(devices.len(), 2, "{merged}");
    for device in devices {
        assert_eq!(device["host"], host.as_str());
    }
    let from = merged["merged_from"].as_array().unwrap();
    let files: Vec<&str> = from.iter().filter_map(|f| f["file"].as_str()).collect();
    assert!(
        files[0].ends_with("/localhost.0.json") && files[1].ends_with("/localhost.1.json"),
        "{files:?}"
    );
    assert!(
        from.iter()
            .all(|f| f["exit_code"] == 0 && f["host"] == host.as_str()),
        "{from:?}"
    );
    assert_eq!(
        merged["summary"]["pass"].as_u64(),
        Some(4),
        "2 cases on each of 2 tasks"
    );
    let junit = fs::read_to_string(emu_dir.join("merged.xml")).unwrap();
    assert_eq!(junit.matches("<testsuite ").count(), 2, "{junit}");
    assert!(junit.contains(r#"tests="4""#), "{junit}");

    let (hip_merged, hip_out) = merge(&mut cluster, &reports.join(&hip_job), 2);
    assert_eq!(
        hip_merged, 77,
        "two skipped nodes merge to skipped\n{hip_out}"
    );
    assert_eq!(
        read_json(&reports.join(&hip_job).join("merged.json"))["exit_code"],
        77
    );

    assert_eq!(
        srun_code, 0,
        "the srun job ends with its merge's code\n{outputs}"
    );
    assert_eq!(
        read_json(&reports.join(&srun_job).join("merged.json"))["devices"]
            .as_array()
            .map(Vec::len),
        Some(1)
    );
    eprintln!("test took {:.1} s", started.elapsed().as_secs_f64());
}
