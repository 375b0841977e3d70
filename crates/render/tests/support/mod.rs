//! Golden-file harness: one folder per case under `testdata/<area>/<case>/`, each case one
//! test named after its folder (`cargo test --test metrics_golden -- <case>`), run by
//! libtest-mimic beside the area's other tests.
//!
//! Input: `input.yaml` (any number of documents; every GrafanaAgent in it is rendered), and
//! optionally `options.yaml` with `labels: {k: v}`, `operatorVersion: v1.2.3` and
//! `runtime: alloy` (the operator's `--runtime`).
//! Outputs compared with the files beside it (`UPDATE_GOLDEN=1` rewrites them):
//! * `objects.yaml`: the object stream `render` prints;
//! * `config-<secret name>.yaml`: each rendered agent.yml;
//! * `diagnostics.txt`: input diagnostics, rejections and warnings (runtime alloy), one per
//!   line (absent when none).
//!
//! An area whose cases test one config ([`Golden::ConfigOf`]) keeps only that config and the
//! diagnostics, so a change to the workloads or another config does not rewrite its cases.

#![allow(dead_code)]

pub mod alloy_parse;
pub mod alloy_run;
pub mod configs;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use libtest_mimic::{Arguments, Failed, Trial};
use render::PlanOptions;
use render::desired::Subsystem;
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

pub fn options(dir: &Path) -> PlanOptions {
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
        match v.get("runtime").and_then(|s| s.as_str()) {
            None | Some("agent") => {}
            Some("alloy") => opts.runtime = api::Runtime::Alloy,
            Some(other) => panic!("{}: runtime {other:?}", path.display()),
        }
    }
    opts
}

/// One input the Alloy proofs render for runtime alloy: a golden case (its `input.yaml`, named
/// by its path under `testdata/`) or all the bundled examples together (`examples`).
pub struct AlloyInput {
    pub name: String,
    /// `(source, text)` of each file.
    pub texts: Vec<(String, String)>,
    pub opts: PlanOptions,
}

/// One GrafanaAgent of an [`AlloyInput`] as runtime alloy in the static format (what the pods
/// run with `configFormat: static`, the rollback), discovered and planned: the side the native
/// configs are compared with.
pub struct StaticAlloyAgent {
    pub agent: std::sync::Arc<api::GrafanaAgent>,
    pub discovery: render::discover::Discovery,
    pub plan: Plan,
}

impl AlloyInput {
    /// Its GrafanaAgents that run on Alloy or may (an explicit `runtime: agent` is left out).
    pub fn static_alloy_agents(&self) -> Vec<StaticAlloyAgent> {
        let mut loader = Loader::new();
        for (source, text) in &self.texts {
            loader.add_source(source, text);
        }
        let store = loader.finish().store;
        store
            .agents()
            .filter(|agent| !agent.spec.runtime.is_some_and(|r| r != api::Runtime::Alloy))
            .map(|agent| {
                let mut alloy_agent: api::GrafanaAgent = agent.as_ref().clone();
                alloy_agent.spec.runtime = Some(api::Runtime::Alloy);
                alloy_agent.spec.alloy = Some(api::grafana_agent::AlloySpec {
                    config_format: Some(api::grafana_agent::AlloyConfigFormat::Static),
                    ..Default::default()
                });
                let agent = std::sync::Arc::new(alloy_agent);
                let discovery = render::discover::discover(&agent, &store);
                let plan = render::plan::plan(&discovery, &self.opts);
                StaticAlloyAgent {
                    agent,
                    discovery,
                    plan,
                }
            })
            .collect()
    }
}

/// Every golden case and the bundled examples, each with runtime alloy.
pub fn alloy_inputs() -> Vec<AlloyInput> {
    let mut out = Vec::new();
    for dir in configs::all_cases() {
        let name = dir
            .strip_prefix(repo_root().join("testdata"))
            .unwrap_or(&dir)
            .display()
            .to_string();
        let text = std::fs::read_to_string(dir.join("input.yaml")).expect("input");
        let mut opts = options(&dir);
        opts.runtime = api::Runtime::Alloy;
        out.push(AlloyInput {
            name,
            texts: vec![("input.yaml".into(), text)],
            opts,
        });
    }
    let mut examples = Vec::new();
    for entry in std::fs::read_dir(repo_root().join("examples"))
        .expect("examples")
        .flatten()
    {
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "yaml") {
            let text = std::fs::read_to_string(&path).expect("example");
            examples.push((path.display().to_string(), text));
        }
    }
    examples.sort();
    out.push(AlloyInput {
        name: "examples".into(),
        texts: examples,
        opts: PlanOptions {
            runtime: api::Runtime::Alloy,
            ..Default::default()
        },
    });
    out
}

/// Renders the case in `dir` without comparing anything.
pub fn render_case(dir: &Path) -> CaseOutput {
    render_case_as(dir, None)
}

/// [`render_case`], with the operator's `--runtime` set to `runtime` when given.
pub fn render_case_as(dir: &Path, runtime: Option<api::Runtime>) -> CaseOutput {
    let input = dir.join("input.yaml");
    let text =
        std::fs::read_to_string(&input).unwrap_or_else(|e| panic!("{}: {e}", input.display()));
    let mut loader = Loader::new();
    loader.add_source("input.yaml", &text);
    let loaded = loader.finish();
    let mut opts = options(dir);
    if let Some(runtime) = runtime {
        opts.runtime = runtime;
    }
    let plans = plan_all(&loaded.store, &opts, None);
    let mut files = BTreeMap::new();
    files.insert(
        "objects.yaml".to_owned(),
        objects_stream(&plans).expect("serializable"),
    );
    for p in &plans {
        for c in &p.configs {
            files.insert(
                format!("config-{}.yaml", c.secret_name),
                c.text.as_str().to_owned(),
            );
        }
    }
    let mut diagnostics: Vec<String> = loaded.diagnostics.iter().map(|d| d.to_string()).collect();
    for p in &plans {
        diagnostics.extend(p.rejections.iter().map(|r| format!("rejected: {r}")));
        diagnostics.extend(p.warnings.iter().map(|w| format!("warning: {w}")));
    }
    if !diagnostics.is_empty() {
        files.insert("diagnostics.txt".to_owned(), diagnostics.join("\n") + "\n");
    }
    CaseOutput { plans, files }
}

/// Which outputs of an area's cases are kept as golden files.
#[derive(Clone, Copy, Debug)]
pub enum Golden {
    /// The object stream, every config and the diagnostics.
    Everything,
    /// This subsystem's config and the diagnostics.
    ConfigOf(Subsystem),
}

impl Golden {
    /// The files of `out` this area keeps.
    fn select(self, out: &CaseOutput) -> BTreeMap<String, String> {
        let Golden::ConfigOf(subsystem) = self else {
            return out.files.clone();
        };
        let mut kept: Vec<String> = out
            .plans
            .iter()
            .flat_map(|p| &p.configs)
            .filter(|c| c.subsystem == subsystem)
            .map(|c| format!("config-{}.yaml", c.secret_name))
            .collect();
        kept.push("diagnostics.txt".to_owned());
        out.files
            .iter()
            .filter(|(name, _)| kept.contains(name))
            .map(|(name, text)| (name.clone(), text.clone()))
            .collect()
    }
}

/// Renders the case in `dir` and compares the outputs `golden` keeps with their golden files;
/// with `UPDATE_GOLDEN=1`, rewrites the golden files instead (and removes stale ones).
pub fn check_case(dir: &Path, golden: Golden) -> Result<(), String> {
    let files = golden.select(&render_case(dir));
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
    for stale in existing.iter().filter(|n| !files.contains_key(*n)) {
        if update {
            std::fs::remove_file(dir.join(stale)).expect("remove stale golden");
        } else {
            failures.push(format!(
                "{stale}: golden file exists but the case no longer produces it"
            ));
        }
    }
    for (name, actual) in &files {
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
    if failures.is_empty() {
        Ok(())
    } else {
        Err(format!("case {}:\n{}", dir.display(), failures.join("\n")))
    }
}

/// Runs one test per case of `area` (named after its folder) and `tests`, the area's other
/// tests, with libtest's command line (filters, `--exact`, `--list`, `--test-threads`).
pub fn run_tests(area: &str, golden: Golden, tests: &[(&'static str, fn())]) -> ! {
    let args = Arguments::from_args();
    let mut trials: Vec<Trial> = cases(area)
        .into_iter()
        .map(|dir| {
            let name = dir
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            Trial::test(name, move || check_case(&dir, golden).map_err(Failed::from))
        })
        .collect();
    // libtest-mimic fails a trial whose function panics, as libtest does.
    trials.extend(tests.iter().map(|&(name, test)| {
        Trial::test(name, move || {
            test();
            Ok(())
        })
    }));
    libtest_mimic::run(&args, trials).exit()
}

/// A line diff, enough to see what changed.
fn diff(expected: &str, actual: &str) -> String {
    pretty_assertions::StrComparison::new(expected, actual).to_string()
}

/// Replaces `$(NAME)` (`NAME` of `[a-zA-Z_0-9]+`) with `env[NAME]`, as the config-reloader
/// does; an unset name is an error.
pub fn expand_reloader_env(text: &str, env: &BTreeMap<String, String>) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("$(") {
        let after = &rest[start + 2..];
        let len = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(after.len());
        if len == 0 || !after[len..].starts_with(')') {
            out.push_str(&rest[..start + 2]);
            rest = after;
            continue;
        }
        let name = &after[..len];
        let value = env
            .get(name)
            .ok_or_else(|| format!("$({name}) is not set in the agent pod"))?;
        out.push_str(&rest[..start]);
        out.push_str(value);
        rest = &after[len + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// The shard-0 environment of `agent`'s pods.
pub fn shard_zero_env(agent: &api::GrafanaAgent) -> BTreeMap<String, String> {
    let metrics = agent.spec.metrics.as_ref();
    let shards = u32::try_from(render::sharding::effective_shards(metrics)).unwrap_or(1);
    let strategy = metrics
        .and_then(|m| m.sharding_strategy)
        .unwrap_or_default();
    let mut env = BTreeMap::from([
        ("SHARD".to_owned(), "0".to_owned()),
        ("SHARDS".to_owned(), shards.to_string()),
        ("STATEFULSET_ORDINAL_NUMBER".to_owned(), "0".to_owned()),
    ]);
    env.extend(render::sharding::extra_env(strategy, 0, shards));
    env
}
