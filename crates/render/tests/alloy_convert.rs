//! Proof against the real Alloy (docs/alloy.md): every config the golden cases under
//! `testdata/` and the bundled `examples/` produce with runtime alloy in the static format
//! (`spec.alloy.configFormat: static`, the rollback, and what falls back to it under
//! `native`) goes through `alloy convert --source-format=static` with the extra args the pods
//! run with. None may fail, and every diagnostic it reports must be one [`predicted`] expects
//! for that config.
//!
//! The config is what a pod of shard 0 converts: `$(NAME)` references expanded as the
//! config-reloader does. Alloy comes from `scripts/build-alloy` (cached; `scripts/test.sh`
//! builds it before the tests), or `ALLOY_BIN`.

mod support;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use api::Runtime;
use render::alloy::ALLOY_VERSION;
use render::manifest::Loader;
use serde_json::Value;
use support::configs::WrittenConfig;

/// The `--config.extra-args` of the pods.
const EXTRA_ARGS: &str = render::workloads::pod_template::ALLOY_EXTRA_ARGS;

fn alloy_binary() -> PathBuf {
    support::configs::built_binary("ALLOY_BIN", "build-alloy", "alloy")
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

#[test]
fn every_config_rendered_for_alloy_converts_with_only_predicted_diagnostics() {
    let alloy = alloy_binary();
    let dir = support::configs::scratch_dir("alloy", "cases");
    let configs = support::configs::every_static_alloy_config(&dir);
    assert!(configs.len() > 100, "only {} configs", configs.len());
    let mut failures = Vec::new();
    let mut converted = 0;
    for WrittenConfig {
        case, path, parsed, ..
    } in &configs
    {
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
        "alloy {ALLOY_VERSION}: {converted} of {} configs converted with only predicted diagnostics",
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
    let dir = support::configs::scratch_dir("alloy", "agent");
    let case = support::repo_root().join("testdata/workloads/alloy-every-subsystem");
    let text = std::fs::read_to_string(case.join("input.yaml")).expect("input");
    let mut loader = Loader::new();
    loader.add_source("input.yaml", &text);
    let store = loader.finish().store;
    let as_agent = support::render_case_as(&case, Some(Runtime::Agent));
    let files =
        support::configs::config_files("agent", &store, &as_agent.plans, Runtime::Agent, &dir)
            .expect("configs");
    let logs = files
        .iter()
        .find(|c| c.path.display().to_string().ends_with("-logs-config.yml"))
        .expect("a logs config");
    let err = convert(&alloy, &logs.path).expect_err("logs_monitoring/primary is no identifier");
    assert!(err.contains("Critical"), "{err}");
    let integrations = files
        .iter()
        .find(|c| {
            c.path
                .display()
                .to_string()
                .ends_with("-integrations-deploy-config.yml")
        })
        .expect("an integrations config");
    let err = convert(&alloy, &integrations.path).expect_err("no metrics_instance");
    assert!(err.contains("undefined metrics config"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The eventhandler rule of runtime alloy is Alloy's: the case
/// `testdata/workloads/alloy-eventhandler` keeps an eventhandler whose timings are written out
/// at the agent's defaults (whole seconds; it converts, above) and rejects one with
/// `send_timeout: 30`; Alloy refuses that value, and each of the three timings off its default.
#[test]
fn alloy_refuses_eventhandler_timings_other_than_the_defaults() {
    let alloy = alloy_binary();
    let dir = support::configs::scratch_dir("alloy", "eventhandler");
    let case = support::repo_root().join("testdata/workloads/alloy-eventhandler");
    let kept = std::fs::read_to_string(case.join("config-agent-a-integrations-deploy-config.yaml"))
        .expect("the case's config");
    let path = dir.join("defaults.yml");
    std::fs::write(&path, &kept).expect("write");
    assert_eq!(
        convert(&alloy, &path).map(|d| d.len()),
        Ok(2),
        "the defaults convert with the two warnings every integrations config gets"
    );
    for (field, default, other) in [
        ("send_timeout", 60, 30),
        ("informer_resync", 120, 300),
        ("flush_interval", 10, 20),
    ] {
        let written = format!("{field}: {default}");
        assert!(kept.contains(&written), "{written} not in:\n{kept}");
        let path = dir.join(format!("{field}.yml"));
        std::fs::write(&path, kept.replace(&written, &format!("{field}: {other}"))).expect("write");
        let err = convert(&alloy, &path).expect_err(field);
        assert!(err.contains(&format!("eventhandler {field}")), "{err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The binary these tests run is the release the operator deploys by default.
#[test]
fn the_alloy_tested_is_the_default_image_release() {
    let alloy = alloy_binary();
    let output = Command::new(&alloy)
        .arg("--version")
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", alloy.display()));
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{text}");
    assert!(
        text.starts_with(&format!("alloy, version {ALLOY_VERSION} ")),
        "{} is not Alloy {ALLOY_VERSION}, the default image's release: {text}",
        alloy.display()
    );
}

#[test]
fn reports_parse_into_diagnostics() {
    let text = "(Critical) a: b\ndetail line\n(Info) converted\n(Warning) c\nnot one\n";
    let parsed: Vec<String> = parse_report(text).iter().map(ToString::to_string).collect();
    assert_eq!(parsed, ["(Critical) a: b", "(Warning) c"]);
}
