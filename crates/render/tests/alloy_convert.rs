//! Proof against the real Alloy (docs/alloy.md): every config the golden cases under
//! `testdata/` and the bundled `examples/` produce with runtime alloy goes through
//! `alloy convert --source-format=static` with the extra args the pods run with. None may
//! fail, and every diagnostic it reports must be one [`predicted`] expects for that config.
//!
//! The config is what a pod of shard 0 converts: `$(NAME)` references expanded as the
//! config-reloader does. Alloy comes from `scripts/build-alloy` (cached; `scripts/test.sh`
//! builds it before the tests), or `ALLOY_BIN`.

mod support;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use api::Runtime;
use render::alloy::TESTED_ALLOY_VERSION;
use render::input_ref::{InputRef, Kind};
use render::manifest::Loader;
use render::plan::Plan;
use render::store::InputStore;
use serde_json::Value;

/// The `--config.extra-args` of the pods.
const EXTRA_ARGS: &str = render::workloads::pod_template::ALLOY_EXTRA_ARGS;

fn alloy_binary() -> PathBuf {
    if let Some(path) = std::env::var_os("ALLOY_BIN") {
        return PathBuf::from(path);
    }
    let script = support::repo_root().join("scripts/build-alloy");
    let output = Command::new(&script)
        .env("GO_BUILD_QUIET", "1")
        .output()
        .unwrap_or_else(|e| panic!("{}: {e}", script.display()));
    assert!(
        output.status.success(),
        "scripts/build-alloy failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    PathBuf::from(String::from_utf8_lossy(&output.stdout).trim()).join("alloy")
}

/// One diagnostic of the converter: severity and summary.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Diagnostic {
    severity: String,
    summary: String,
}

impl std::fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "({}) {}", self.severity, self.summary)
    }
}

fn warning(summary: &str) -> Diagnostic {
    Diagnostic {
        severity: "Warning".to_owned(),
        summary: summary.to_owned(),
    }
}

/// What the converter reports for `config` (the parsed agent.yml) and nothing else, each for
/// a reason docs/alloy.md gives:
/// * it always asks to review the agent's command-line flags (the pods pass the ones that
///   matter: extra args, listen address, storage path);
/// * a metrics section names its `wal_directory`, which Alloy replaces with
///   `--storage.path` (set to the same directory).
fn predicted(config: &Value) -> BTreeSet<Diagnostic> {
    let mut out = BTreeSet::from([warning(
        "Please review your agent command line flags and ensure they are set in your Alloy config file where necessary.",
    )]);
    if config
        .get("metrics")
        .and_then(|m| m.get("wal_directory"))
        .is_some()
    {
        out.insert(warning(
            "The converter does not support converting the provided metrics wal_directory config: Use the run command flag --storage.path instead.",
        ));
    }
    out
}

/// The diagnostics of a `--report` file (lines `(<Severity>) <summary>`, details after them)
/// that say something is wrong or lost: Info lines only list what was converted into what.
fn parse_report(text: &str) -> BTreeSet<Diagnostic> {
    text.lines()
        .filter_map(|line| {
            let rest = line.strip_prefix('(')?;
            let (severity, summary) = rest.split_once(") ")?;
            ["Critical", "Error", "Warning"]
                .contains(&severity)
                .then(|| Diagnostic {
                    severity: severity.to_owned(),
                    summary: summary.to_owned(),
                })
        })
        .collect()
}

/// Converts the agent.yml at `path`; `Ok` with the diagnostics when Alloy accepts it.
fn convert(alloy: &Path, path: &Path) -> Result<BTreeSet<Diagnostic>, String> {
    let report = path.with_extension("report");
    let out = path.with_extension("alloy");
    let output = Command::new(alloy)
        .arg("convert")
        .arg("--source-format=static")
        .arg(format!("--extra-args={EXTRA_ARGS}"))
        .arg("--report")
        .arg(&report)
        .arg("--output")
        .arg(&out)
        .arg(path)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", alloy.display()))?;
    let diagnostics = parse_report(&std::fs::read_to_string(&report).unwrap_or_default());
    if output.status.success() {
        Ok(diagnostics)
    } else {
        Err(format!(
            "alloy convert failed:\n{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ))
    }
}

fn scratch_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "agent-operator-alloy-{}-{name}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// Every case folder of every area under `testdata/`.
fn all_cases() -> Vec<PathBuf> {
    let root = support::repo_root().join("testdata");
    let mut cases = Vec::new();
    for area in std::fs::read_dir(&root).expect("testdata").flatten() {
        for case in std::fs::read_dir(area.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            if case.path().join("input.yaml").exists() {
                cases.push(case.path());
            }
        }
    }
    cases.sort();
    cases
}

fn load(texts: &[(String, String)]) -> InputStore {
    let mut loader = Loader::new();
    for (source, text) in texts {
        loader.add_source(source, text);
    }
    loader.finish().store
}

/// Writes each alloy config of `plans` (shard 0, expanded) into `dir`.
fn config_files(
    name: &str,
    store: &InputStore,
    plans: &[Plan],
    dir: &Path,
) -> Result<Vec<(PathBuf, Value)>, String> {
    let mut files = Vec::new();
    for plan in plans {
        let agent = store
            .agents()
            .find(|a| InputRef::of(Kind::GrafanaAgent, a.as_ref()) == plan.agent)
            .ok_or_else(|| format!("agent {} not in the input", plan.agent))?;
        if agent.spec.runtime == Some(Runtime::Agent) {
            continue;
        }
        let env = support::shard_zero_env(agent);
        for config in &plan.configs {
            let expanded = support::expand_reloader_env(config.text.as_str(), &env)
                .map_err(|e| format!("{}: {e}", config.secret_name))?;
            let parsed: Value = serde_saphyr::from_str(&expanded)
                .map_err(|e| format!("{}: not YAML: {e}", config.secret_name))?;
            let path = dir.join(format!(
                "{}-{}-{}-{}.yml",
                name.replace('/', "__"),
                plan.agent.namespace,
                plan.agent.name,
                config.secret_name
            ));
            std::fs::write(&path, expanded).map_err(|e| e.to_string())?;
            files.push((path, parsed));
        }
    }
    Ok(files)
}

/// Every config rendered for runtime alloy from the golden inputs and the examples.
fn every_alloy_config(dir: &Path) -> Vec<(String, PathBuf, Value)> {
    let mut out = Vec::new();
    for case in all_cases() {
        let name = case
            .strip_prefix(support::repo_root().join("testdata"))
            .unwrap_or(&case)
            .display()
            .to_string();
        let text = std::fs::read_to_string(case.join("input.yaml")).expect("input");
        let store = load(&[("input.yaml".to_owned(), text)]);
        let rendered = support::render_case_as(&case, Some(Runtime::Alloy));
        let files = config_files(&name, &store, &rendered.plans, dir)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        out.extend(files.into_iter().map(|(p, v)| (name.clone(), p, v)));
    }
    let examples = support::repo_root().join("examples");
    let mut texts = Vec::new();
    for entry in std::fs::read_dir(&examples).expect("examples").flatten() {
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "yaml") {
            texts.push((
                path.display().to_string(),
                std::fs::read_to_string(&path).expect("example"),
            ));
        }
    }
    texts.sort();
    let store = load(&texts);
    let opts = render::PlanOptions {
        runtime: Runtime::Alloy,
        ..Default::default()
    };
    let plans = render::output::plan_all(&store, &opts, None);
    let files = config_files("examples", &store, &plans, dir).expect("examples");
    out.extend(
        files
            .into_iter()
            .map(|(p, v)| ("examples".to_owned(), p, v)),
    );
    out
}

#[test]
fn every_config_rendered_for_alloy_converts_with_only_predicted_diagnostics() {
    let alloy = alloy_binary();
    let dir = scratch_dir("cases");
    let configs = every_alloy_config(&dir);
    assert!(configs.len() > 100, "only {} configs", configs.len());
    let mut failures = Vec::new();
    let mut converted = 0;
    for (case, path, parsed) in &configs {
        match convert(&alloy, path) {
            Ok(diagnostics) => {
                let expected = predicted(parsed);
                let unexpected: Vec<String> = diagnostics
                    .difference(&expected)
                    .map(ToString::to_string)
                    .collect();
                let missing: Vec<String> = expected
                    .difference(&diagnostics)
                    .map(ToString::to_string)
                    .collect();
                if unexpected.is_empty() && missing.is_empty() {
                    converted += 1;
                } else {
                    failures.push(format!(
                        "{case}: {}: unpredicted {unexpected:?}, predicted but absent {missing:?}",
                        path.display()
                    ));
                }
            }
            Err(e) => failures.push(format!("{case}: {}: {e}", path.display())),
        }
    }
    eprintln!(
        "alloy {TESTED_ALLOY_VERSION}: {converted} of {} configs converted with only predicted diagnostics",
        configs.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {} configs (files under {}):\n{}",
        failures.len(),
        configs.len(),
        dir.display(),
        failures.join("\n")
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The check can fail: the same inputs rendered for the agent (instance names `ns/name`,
/// integrations without a metrics instance) are refused by Alloy, which is why runtime alloy
/// renders them otherwise.
#[test]
fn alloy_refuses_the_agent_rendering_of_names_and_integrations() {
    let alloy = alloy_binary();
    let dir = scratch_dir("agent");
    let case = support::repo_root().join("testdata/workloads/alloy-every-subsystem");
    let text = std::fs::read_to_string(case.join("input.yaml")).expect("input");
    let store = load(&[("input.yaml".to_owned(), text)]);
    let as_agent = support::render_case_as(&case, Some(Runtime::Agent));
    let files = config_files("agent", &store, &as_agent.plans, &dir).expect("configs");
    let logs = files
        .iter()
        .find(|(p, _)| p.display().to_string().ends_with("-logs-config.yml"))
        .expect("a logs config");
    let err = convert(&alloy, &logs.0).expect_err("logs_monitoring/primary is no identifier");
    assert!(err.contains("Critical"), "{err}");
    let integrations = files
        .iter()
        .find(|(p, _)| {
            p.display()
                .to_string()
                .ends_with("-integrations-deploy-config.yml")
        })
        .expect("an integrations config");
    let err = convert(&alloy, &integrations.0).expect_err("no metrics_instance");
    assert!(err.contains("undefined metrics config"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn reports_parse_into_diagnostics() {
    let text = "(Critical) a: b\ndetail line\n(Info) converted\n(Warning) c\nnot one\n";
    let parsed: Vec<String> = parse_report(text).iter().map(ToString::to_string).collect();
    assert_eq!(parsed, ["(Critical) a: b", "(Warning) c"]);
}
