//! Golden-file harness: one folder per case under `testdata/<area>/<case>/`.
//!
//! Input: `input.yaml` (any number of documents; every GrafanaAgent in it is rendered), and
//! optionally `options.yaml` with `labels: {k: v}` and `operatorVersion: v1.2.3`.
//! Outputs compared with the files beside it (`UPDATE_GOLDEN=1` rewrites them):
//! * `objects.yaml`: the object stream `render` prints;
//! * `config-<secret name>.yaml`: each rendered agent.yml;
//! * `diagnostics.txt`: input diagnostics and rejections, one per line (absent when none).

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use render::PlanOptions;
use render::manifest::Loader;
use render::output::{objects_stream, plan_all};
use render::plan::Plan;

/// Everything one case produced.
pub struct CaseOutput {
    pub plans: Vec<Plan>,
    pub files: BTreeMap<String, String>,
}

pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The case folders under `testdata/<area>`, sorted.
pub fn cases(area: &str) -> Vec<PathBuf> {
    let dir = repo_root().join("testdata").join(area);
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.join("input.yaml").exists())
        .collect();
    cases.sort();
    assert!(!cases.is_empty(), "no cases under {}", dir.display());
    cases
}

fn options(dir: &Path) -> PlanOptions {
    let mut opts = PlanOptions::default();
    let path = dir.join("options.yaml");
    if let Ok(text) = std::fs::read_to_string(&path) {
        let v: serde_json::Value = serde_saphyr::from_str(&text).expect("options.yaml");
        if let Some(labels) = v.get("labels").and_then(|l| l.as_object()) {
            for (k, val) in labels {
                opts.labels
                    .insert(k.clone(), val.as_str().unwrap_or_default().to_owned());
            }
        }
        if let Some(version) = v.get("operatorVersion").and_then(|s| s.as_str()) {
            opts.operator_version = version.to_owned();
        }
    }
    opts
}

/// Renders the case in `dir` without comparing anything.
pub fn render_case(dir: &Path) -> CaseOutput {
    let input = dir.join("input.yaml");
    let text =
        std::fs::read_to_string(&input).unwrap_or_else(|e| panic!("{}: {e}", input.display()));
    let mut loader = Loader::new();
    loader.add_source("input.yaml", &text);
    let loaded = loader.finish();
    let plans = plan_all(&loaded.store, &options(dir), None);
    let mut files = BTreeMap::new();
    files.insert(
        "objects.yaml".to_owned(),
        objects_stream(&plans).expect("serializable"),
    );
    for p in &plans {
        for c in &p.configs {
            files.insert(format!("config-{}.yaml", c.secret_name), c.text.clone());
        }
    }
    let mut diagnostics: Vec<String> = loaded.diagnostics.iter().map(|d| d.to_string()).collect();
    for p in &plans {
        diagnostics.extend(p.rejections.iter().map(|r| format!("rejected: {r}")));
    }
    if !diagnostics.is_empty() {
        files.insert("diagnostics.txt".to_owned(), diagnostics.join("\n") + "\n");
    }
    CaseOutput { plans, files }
}

/// Renders the case in `dir` and compares every output with its golden file; with
/// `UPDATE_GOLDEN=1`, rewrites the golden files instead (and removes stale ones).
pub fn run_case(dir: &Path) -> CaseOutput {
    let out = render_case(dir);
    let update = std::env::var("UPDATE_GOLDEN").is_ok_and(|v| v == "1");
    let is_golden = |name: &str| {
        name == "objects.yaml"
            || name == "diagnostics.txt"
            || (name.starts_with("config-") && name.ends_with(".yaml"))
    };
    let existing: Vec<String> = std::fs::read_dir(dir)
        .expect("case dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| is_golden(n))
        .collect();
    let mut failures = Vec::new();
    for stale in existing.iter().filter(|n| !out.files.contains_key(*n)) {
        if update {
            std::fs::remove_file(dir.join(stale)).expect("remove stale golden");
        } else {
            failures.push(format!(
                "{stale}: golden file exists but the case no longer produces it"
            ));
        }
    }
    for (name, actual) in &out.files {
        let path = dir.join(name);
        if update {
            std::fs::write(&path, actual).expect("write golden");
            continue;
        }
        match std::fs::read_to_string(&path) {
            Ok(expected) if &expected == actual => {}
            Ok(expected) => failures.push(format!("{name} differs:\n{}", diff(&expected, actual))),
            Err(_) => failures.push(format!(
                "{name}: no golden file (run with UPDATE_GOLDEN=1)\n{actual}"
            )),
        }
    }
    assert!(
        failures.is_empty(),
        "case {}:\n{}",
        dir.display(),
        failures.join("\n")
    );
    out
}

/// Runs every case of `area`, reporting all failing cases at once.
pub fn run_area(area: &str) {
    let mut failed = Vec::new();
    for case in cases(area) {
        if let Err(e) = std::panic::catch_unwind(|| run_case(&case)) {
            let msg = e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            failed.push(msg);
        }
    }
    assert!(
        failed.is_empty(),
        "{} case(s) failed:\n{}",
        failed.len(),
        failed.join("\n\n")
    );
}

/// A line diff, enough to see what changed.
fn diff(expected: &str, actual: &str) -> String {
    pretty_assertions::StrComparison::new(expected, actual).to_string()
}
