//! `ci/k8s/`: the Job manifest, parsed as YAML, asks for what a conformance
//! run on one AMD GPU needs (the ROCm device plugin's `amd.com/gpu`, a node
//! selected by the node labeller's labels, hardware only, no retries, reports
//! on a mounted volume), and its command line is one the harness accepts.

use crate::common;

use std::path::Path;

use yaml_rust2::{Yaml, YamlLoader};

const REPO: &str = env!("CARGO_MANIFEST_DIR");

fn documents(file: &str) -> Vec<Yaml> {
    let path = Path::new(REPO).join("ci/k8s").join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    YamlLoader::load_from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn of_kind<'a>(docs: &'a [Yaml], kind: &str) -> &'a Yaml {
    let found: Vec<&Yaml> = docs
        .iter()
        .filter(|d| d["kind"].as_str() == Some(kind))
        .collect();
    assert_eq!(found.len(), 1, "one {kind} expected");
    found[0]
}

fn strings(list: &Yaml) -> Vec<&str> {
    list.as_vec()
        .unwrap_or_else(|| panic!("not a list: {list:?}"))
        .iter()
        .map(|v| v.as_str().unwrap_or_else(|| panic!("not a string: {v:?}")))
        .collect()
}

/// The value after `option` in `args`.
fn after<'a>(args: &[&'a str], option: &str) -> &'a str {
    let i = args
        .iter()
        .position(|a| *a == option)
        .unwrap_or_else(|| panic!("{option} missing from {args:?}"));
    args.get(i + 1)
        .unwrap_or_else(|| panic!("{option} has no value"))
}

/// The container's env as (name, value or the field it is taken from).
fn env(container: &Yaml) -> Vec<(String, String)> {
    container["env"]
        .as_vec()
        .expect("env")
        .iter()
        .map(|e| {
            let name = e["name"].as_str().expect("env name").to_string();
            let value = match e["value"].as_str() {
                Some(v) => v.to_string(),
                None => format!(
                    "fieldRef:{}",
                    e["valueFrom"]["fieldRef"]["fieldPath"]
                        .as_str()
                        .expect("a value or a fieldRef")
                ),
            };
            (name, value)
        })
        .collect()
}

#[test]
fn the_job_asks_for_one_amd_gpu_on_a_labelled_node_without_retries() {
    let docs = documents("xad-harness-job.yaml");
    let job = of_kind(&docs, "Job");
    assert_eq!(job["apiVersion"].as_str(), Some("batch/v1"));
    assert_eq!(job["spec"]["backoffLimit"].as_i64(), Some(0));
    assert!(job["spec"]["activeDeadlineSeconds"]
        .as_i64()
        .is_some_and(|s| s > 0));
    let pod = &job["spec"]["template"]["spec"];
    assert_eq!(pod["restartPolicy"].as_str(), Some("Never"));

    // The node labeller's labels; none names the gfx target (so --target, below).
    let selector = pod["nodeSelector"].as_hash().expect("nodeSelector");
    assert!(!selector.is_empty());
    for (key, value) in selector {
        let key = key.as_str().unwrap();
        assert!(
            key == "amd.com/gpu.device-id" || key == "amd.com/gpu.product-name",
            "selector {key}"
        );
        // Quoted: an unquoted id of digits only would be a YAML number, which
        // the API server refuses as a label value.
        assert!(
            value.as_str().is_some_and(|v| !v.is_empty()),
            "{key}: {value:?}"
        );
    }

    let containers = pod["containers"].as_vec().expect("containers");
    assert_eq!(containers.len(), 1);
    let c = &containers[0];
    let limits = &c["resources"]["limits"];
    assert_eq!(limits["amd.com/gpu"].as_i64(), Some(1), "{limits:?}");
    for key in ["cpu", "memory"] {
        assert!(limits[key].as_str().is_some(), "limits.{key}");
        assert!(
            c["resources"]["requests"][key].as_str().is_some(),
            "requests.{key}"
        );
    }

    let env = env(c);
    let var = |name: &str| {
        env.iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
            .unwrap_or_else(|| panic!("env {name} missing"))
    };
    assert_eq!(var("XAD_BACKEND"), "hip");
    assert_eq!(var("NODE_NAME"), "fieldRef:spec.nodeName");

    assert_eq!(strings(&c["command"]), ["xad-harness"]);
    let args = strings(&c["args"]);
    assert_eq!(args[0], "run");
    assert_eq!(after(&args, "--backend"), "$(XAD_BACKEND)");
    let target = after(&args, "--target");
    assert!(
        xad_harness::platform::target::find(target).is_some(),
        "--target {target} is not one of the harness's targets"
    );
    // Kubernetes leaves an undefined $(VAR) as it is: every one must be in env.
    for arg in &args {
        let mut rest = *arg;
        while let Some(start) = rest.find("$(") {
            let end = rest[start..].find(')').expect("closed $(...)") + start;
            let name = &rest[start + 2..end];
            assert!(
                env.iter().any(|(n, _)| n == name),
                "$({name}) in args is not in env"
            );
            rest = &rest[end..];
        }
    }

    // Both reports under a mounted volume that the pod has.
    let mounts = c["volumeMounts"].as_vec().expect("volumeMounts");
    let volumes = pod["volumes"].as_vec().expect("volumes");
    let (json, junit) = (after(&args, "--json"), after(&args, "--junit"));
    assert_ne!(json, junit);
    for report in [json, junit] {
        let mount = mounts
            .iter()
            .find(|m| {
                let dir = m["mountPath"].as_str().unwrap();
                report.starts_with(&format!("{}/", dir.trim_end_matches('/')))
            })
            .unwrap_or_else(|| panic!("{report} is not under any volumeMount"));
        assert_ne!(
            mount["readOnly"].as_bool(),
            Some(true),
            "the report volume is written"
        );
        let name = mount["name"].as_str().unwrap();
        let volume = volumes
            .iter()
            .find(|v| v["name"].as_str() == Some(name))
            .unwrap_or_else(|| panic!("volumeMount {name} has no volume"));
        // A claim in this file, or an emptyDir.
        let claim = volume["persistentVolumeClaim"]["claimName"].as_str();
        if let Some(claim) = claim {
            let pvc = of_kind(&docs, "PersistentVolumeClaim");
            assert_eq!(pvc["metadata"]["name"].as_str(), Some(claim));
        } else {
            assert!(
                !volume["emptyDir"].is_badvalue(),
                "volume {name}: PVC or emptyDir"
            );
        }
    }
}

#[test]
fn the_image_is_a_documented_placeholder() {
    let docs = documents("xad-harness-job.yaml");
    let image = docs
        .iter()
        .find(|d| d["kind"].as_str() == Some("Job"))
        .map(|job| job["spec"]["template"]["spec"]["containers"][0]["image"].clone())
        .unwrap();
    let image = image.as_str().expect("image");
    assert!(image.starts_with("registry.example/"), "{image}");
    let readme = std::fs::read_to_string(Path::new(REPO).join("docs/fleets.md")).unwrap();
    assert!(
        readme.contains(image),
        "docs/fleets.md's Kubernetes section names the placeholder {image}"
    );
    let reader = documents("reports-reader.yaml");
    let pod = of_kind(&reader, "Pod");
    assert_eq!(pod["spec"]["containers"][0]["image"].as_str(), Some(image));
}

#[test]
fn the_reports_reader_mounts_the_jobs_claim_at_the_same_path() {
    let job_docs = documents("xad-harness-job.yaml");
    let job = of_kind(&job_docs, "Job");
    let job_pod = &job["spec"]["template"]["spec"];
    let reader_docs = documents("reports-reader.yaml");
    let reader = &of_kind(&reader_docs, "Pod")["spec"];
    let claim = |pod: &Yaml| {
        pod["volumes"][0]["persistentVolumeClaim"]["claimName"]
            .as_str()
            .map(str::to_string)
    };
    assert!(claim(job_pod).is_some());
    assert_eq!(claim(job_pod), claim(reader));
    assert_eq!(
        job_pod["containers"][0]["volumeMounts"][0]["mountPath"].as_str(),
        reader["containers"][0]["volumeMounts"][0]["mountPath"].as_str()
    );
}

/// The manifest's command line, with the volume replaced by a scratch
/// directory and the variables as Kubernetes would expand them, is accepted
/// by the harness: not a usage error, and both reports are written. (No GPU
/// here, so `--backend hip` is expected to end as 77.)
#[test]
fn the_harness_accepts_the_manifests_command_line() {
    let docs = documents("xad-harness-job.yaml");
    let job = of_kind(&docs, "Job");
    let c = &job["spec"]["template"]["spec"]["containers"][0];
    let mount = c["volumeMounts"][0]["mountPath"].as_str().unwrap();
    let dir = common::scratch("k8s_manifest_args");
    let env = env(c);
    let mut args: Vec<String> = strings(&c["args"])
        .into_iter()
        .map(|a| {
            let mut a = a.replace(mount, &dir.display().to_string());
            for (name, value) in &env {
                let value = if name == "NODE_NAME" { "node1" } else { value };
                a = a.replace(&format!("$({name})"), value);
            }
            a
        })
        .collect();
    // Few lanes, so that the check stays quick wherever it runs (a GPU, or a
    // manifest edited to the emulator).
    if let Some(i) = args.iter().position(|a| a == "--lanes") {
        args[i + 1] = "64".into();
    }
    let ran = common::run(common::harness().args(&args));
    assert_ne!(ran.code, 2, "{args:?}: {}", ran.all());
    assert!(dir.join("node1.json").is_file(), "{}", ran.all());
    assert!(dir.join("node1.xml").is_file(), "{}", ran.all());
}
