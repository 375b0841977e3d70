//! Every config the golden cases under `testdata/` and the bundled `examples/` render for one
//! runtime, written to files as a pod of shard 0 reads them (`$(NAME)` references expanded as
//! the config-reloader does): what the checks against the real agent and Alloy load.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use api::Runtime;
use render::desired::{DesiredObject, assets_secret_name};
use render::input_ref::{InputRef, Kind};
use render::manifest::Loader;
use render::plan::Plan;
use render::store::InputStore;
use serde_json::Value;

/// One rendered config, written to a file.
pub struct WrittenConfig {
    /// The case it comes from: its folder under `testdata/`, or `examples`.
    pub case: String,
    pub path: PathBuf,
    pub parsed: Value,
    /// The agent's assets Secret (`<agent>-secrets`, mounted in every pod at
    /// `render::assets::ASSETS_MOUNT_PATH`): key -> value.
    pub assets: BTreeMap<String, Vec<u8>>,
}

/// Every case folder of every area under `testdata/`, sorted.
pub fn all_cases() -> Vec<PathBuf> {
    let root = super::repo_root().join("testdata");
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

/// The data of the assets Secret among `plan`'s objects (empty when it has none).
fn assets_of(plan: &Plan) -> BTreeMap<String, Vec<u8>> {
    let name = assets_secret_name(&plan.agent.name);
    plan.objects
        .iter()
        .find_map(|o| match &o.object {
            DesiredObject::Secret(s) if s.metadata.name.as_deref() == Some(name.as_str()) => {
                Some(s.data.clone().unwrap_or_default())
            }
            _ => None,
        })
        .map(|data| data.into_iter().map(|(k, v)| (k, v.0)).collect())
        .unwrap_or_default()
}

/// Writes each static-mode config of `plans` that runs on `runtime` (shard 0, expanded) into
/// `dir`; configs in Alloy's syntax are `alloy_native`'s to check.
pub fn config_files(
    case: &str,
    store: &InputStore,
    plans: &[Plan],
    runtime: Runtime,
    dir: &Path,
) -> Result<Vec<WrittenConfig>, String> {
    let mut files = Vec::new();
    for plan in plans {
        let agent = store
            .agents()
            .find(|a| InputRef::of(Kind::GrafanaAgent, a.as_ref()) == plan.agent)
            .ok_or_else(|| format!("agent {} not in the input", plan.agent))?;
        if agent.spec.runtime.is_some_and(|r| r != runtime) {
            continue;
        }
        files.extend(static_config_files(case, agent, plan, dir)?);
    }
    Ok(files)
}

/// Writes each static-mode config of `agent`'s `plan` (shard 0, expanded) into `dir`.
fn static_config_files(
    case: &str,
    agent: &api::GrafanaAgent,
    plan: &Plan,
    dir: &Path,
) -> Result<Vec<WrittenConfig>, String> {
    let env = super::shard_zero_env(agent);
    let assets = assets_of(plan);
    let mut files = Vec::new();
    // Static-mode configs only: what the agent loads and Alloy converts.
    for config in plan.configs.iter().filter(|c| !c.alloy_syntax) {
        let expanded = super::expand_reloader_env(config.text.as_str(), &env)
            .map_err(|e| format!("{}: {e}", config.secret_name))?;
        let parsed: Value = serde_saphyr::from_str(&expanded)
            .map_err(|e| format!("{}: not YAML: {e}", config.secret_name))?;
        let path = dir.join(format!(
            "{}-{}-{}-{}.yml",
            case.replace('/', "__"),
            plan.agent.namespace,
            plan.agent.name,
            config.secret_name
        ));
        std::fs::write(&path, expanded).map_err(|e| e.to_string())?;
        files.push(WrittenConfig {
            case: case.to_owned(),
            path,
            parsed,
            assets: assets.clone(),
        });
    }
    Ok(files)
}

/// Every config of the golden inputs and the examples as runtime alloy runs it in the static
/// format (`configFormat: static`, the rollback, and what falls back to it; the native configs
/// are compared with these by the `alloy_native*` tests), written into `dir`.
pub fn every_static_alloy_config(dir: &Path) -> Vec<WrittenConfig> {
    let mut out = Vec::new();
    for input in super::alloy_inputs() {
        for agent in input.static_alloy_agents() {
            let files = static_config_files(&input.name, &agent.agent, &agent.plan, dir)
                .unwrap_or_else(|e| panic!("{}: {e}", input.name));
            out.extend(files);
        }
    }
    out
}

/// Every config rendered for `runtime` (the operator's `--runtime`) from the golden inputs and
/// the examples, written into `dir`.
pub fn every_config(runtime: Runtime, dir: &Path) -> Vec<WrittenConfig> {
    let mut out = Vec::new();
    for case in all_cases() {
        let name = case
            .strip_prefix(super::repo_root().join("testdata"))
            .unwrap_or(&case)
            .display()
            .to_string();
        let text = std::fs::read_to_string(case.join("input.yaml")).expect("input");
        let store = load(&[("input.yaml".to_owned(), text)]);
        let rendered = super::render_case_as(&case, Some(runtime));
        let files = config_files(&name, &store, &rendered.plans, runtime, dir)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        out.extend(files);
    }
    let examples = super::repo_root().join("examples");
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
        runtime,
        ..Default::default()
    };
    let plans = render::output::plan_all(&store, &opts, None);
    out.extend(config_files("examples", &store, &plans, runtime, dir).expect("examples"));
    out
}

/// A fresh directory under the temp dir for one test's files.
pub fn scratch_dir(test: &str, name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "agent-operator-{test}-{}-{name}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// The standard output of `scripts/<script> <args>` (with `GO_BUILD_QUIET=1`: the scripts
/// that build with Go print only what they are asked for).
pub fn run_script(script: &str, args: &[&str]) -> String {
    let script = super::repo_root().join("scripts").join(script);
    let output = std::process::Command::new(&script)
        .args(args)
        .env("GO_BUILD_QUIET", "1")
        .output()
        .unwrap_or_else(|e| panic!("{}: {e}", script.display()));
    assert!(
        output.status.success(),
        "{} failed:\n{}",
        script.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Runs `scripts/<script>` (a cached Go build; `scripts/test.sh` builds it before the tests)
/// and returns `<the directory it prints>/<binary>`, or `$<env>` when set.
pub fn built_binary(env: &str, script: &str, binary: &str) -> PathBuf {
    if let Some(path) = std::env::var_os(env) {
        return PathBuf::from(path);
    }
    PathBuf::from(run_script(script, &[]).trim()).join(binary)
}
