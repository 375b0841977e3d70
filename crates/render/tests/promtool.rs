//! Every generated metrics config must load in Prometheus: each golden case under
//! `testdata/*/` is rendered, and every `metrics.configs` entry of every agent.yml becomes a
//! Prometheus config checked by `promtool check config --syntax-only`.
//!
//! What the check sees is what an agent pod of shard 0 would load:
//! * `$(NAME)` references are expanded as the config-reloader does (spec 3.11), with
//!   `SHARD=0`, `SHARDS=<shards>`, `STATEFULSET_ORDINAL_NUMBER=0` and the sharding
//!   strategy's own variables; a reference to anything else fails, as it would in the pod;
//! * Debian's promtool is built without Kubernetes service discovery, so every
//!   `kubernetes_sd_configs` becomes a `static_configs` target (relabel rules, regexes, TLS
//!   and auth are still checked);
//! * `--syntax-only` skips checking that referenced files exist (secret paths, CA files).
//!
//! promtool must be installed (`scripts/install-promtool.sh`); without it this test fails.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use render::input_ref::{InputRef, Kind};
use render::manifest::Loader;
use serde_json::{Map, Value, json};

/// The target every `kubernetes_sd_configs` entry is replaced with.
const STAND_IN_TARGET: &str = "kubernetes-sd.invalid:80";

/// Scrape job keys newer than Debian's promtool (Prometheus 2.42) that the runtimes take:
/// the agent (Prometheus 2.49 fork) the first seven, Alloy's converter (Prometheus 3) the
/// others. `agent_loads` and `alloy_convert` prove them with the real binaries; here they
/// are left out so that promtool checks the rest of the job.
const NEWER_THAN_PROMTOOL: [&str; 12] = [
    "track_timestamps_staleness",
    "scrape_classic_histograms",
    "keep_dropped_targets",
    "native_histogram_bucket_limit",
    "enable_compression",
    "no_proxy",
    "proxy_from_environment",
    "proxy_connect_header",
    "scrape_protocols",
    "fallback_scrape_protocol",
    "always_scrape_classic_histograms",
    "convert_classic_histograms_to_nhcb",
];

/// Discoveries Debian's promtool is built without (its package leaves the Consul client
/// out): a job's entries are swapped for a static target, as Kubernetes discovery's are;
/// `agent_loads` and `alloy_convert` check them with the real binaries.
const NOT_IN_DEBIANS_PROMTOOL: [&str; 1] = ["consul_sd_configs"];

/// Swaps every `kubernetes_sd_configs` (and [`NOT_IN_DEBIANS_PROMTOOL`]) of `job` for a static
/// target, and leaves out the keys promtool is too old for ([`NEWER_THAN_PROMTOOL`],
/// `native_histogram_min_bucket_factor`), in the job and in its `oauth2` (whose token
/// requests have their own proxy settings since Prometheus 2.43).
fn without_kubernetes_sd(mut job: Value) -> Value {
    if let Some(map) = job.as_object_mut() {
        for key in NEWER_THAN_PROMTOOL
            .iter()
            .chain(&["native_histogram_min_bucket_factor"])
        {
            map.remove(*key);
            if let Some(oauth2) = map.get_mut("oauth2").and_then(Value::as_object_mut) {
                oauth2.remove(*key);
            }
        }
    }
    let swapped = job.as_object_mut().is_some_and(|map| {
        let kubernetes = map.remove("kubernetes_sd_configs").is_some();
        let missing = NOT_IN_DEBIANS_PROMTOOL
            .iter()
            .filter(|key| map.remove(**key).is_some())
            .count();
        kubernetes || missing > 0
    });
    if swapped && let Some(map) = job.as_object_mut() {
        let statics = map
            .entry("static_configs")
            .or_insert_with(|| Value::Array(Vec::new()));
        if let Some(list) = statics.as_array_mut() {
            list.push(json!({ "targets": [STAND_IN_TARGET] }));
        }
    }
    job
}

/// The Prometheus configs equivalent to one agent.yml's `metrics:` section: one per
/// instance (its jobs, and the remote_write the agent uses for it: its own, else the
/// global one), plus one for the global remote_write alone.
fn prometheus_configs(metrics: &Value) -> Vec<(String, Value)> {
    let global = metrics.get("global").cloned().unwrap_or(json!({}));
    let mut prom_global = Map::new();
    for key in ["external_labels", "scrape_interval", "scrape_timeout"] {
        if let Some(v) = global.get(key) {
            prom_global.insert(key.to_owned(), v.clone());
        }
    }
    let global_rw = global.get("remote_write").cloned();
    let mut out = Vec::new();
    if let Some(rw) = &global_rw {
        out.push((
            "global".to_owned(),
            json!({ "global": prom_global, "remote_write": rw }),
        ));
    }
    for (i, instance) in metrics
        .get("configs")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        let mut config = Map::new();
        config.insert("global".to_owned(), Value::Object(prom_global.clone()));
        let jobs: Vec<Value> = instance
            .get("scrape_configs")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .cloned()
            .map(without_kubernetes_sd)
            .collect();
        config.insert("scrape_configs".to_owned(), Value::Array(jobs));
        if let Some(rw) = instance.get("remote_write").or(global_rw.as_ref()) {
            config.insert("remote_write".to_owned(), rw.clone());
        }
        out.push((format!("instance-{i}"), Value::Object(config)));
    }
    out
}

/// Runs promtool on `files`; the error holds promtool's output.
fn promtool_check(files: &[PathBuf]) -> Result<(), String> {
    let output = Command::new("promtool")
        .args(["check", "config", "--syntax-only"])
        .args(files)
        .output()
        .map_err(|e| {
            format!("cannot run promtool ({e}); install it with scripts/install-promtool.sh")
        })?;
    if output.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ))
    }
}

/// Writes the Prometheus configs of every metrics section `case` renders into `dir`.
/// Returns the files, or why they could not be made.
fn case_files(case: &Path, dir: &Path) -> Result<Vec<PathBuf>, String> {
    let text = std::fs::read_to_string(case.join("input.yaml")).map_err(|e| e.to_string())?;
    let mut loader = Loader::new();
    loader.add_source("input.yaml", &text);
    let store = loader.finish().store;
    let output = support::render_case(case);
    let mut files = Vec::new();
    for plan in &output.plans {
        let agent = store
            .agents()
            .find(|a| InputRef::of(Kind::GrafanaAgent, a.as_ref()) == plan.agent)
            .ok_or_else(|| format!("agent {} not in the input", plan.agent))?;
        let env = support::shard_zero_env(agent);
        // Static-mode configs: Prometheus' own syntax inside (Alloy's are alloy_native's).
        for config in plan.configs.iter().filter(|c| !c.alloy_syntax) {
            let expanded = support::expand_reloader_env(config.text.as_str(), &env)
                .map_err(|e| format!("{}: {e}", config.secret_name))?;
            let parsed: Value = serde_saphyr::from_str(&expanded)
                .map_err(|e| format!("{}: not YAML: {e}", config.secret_name))?;
            let Some(metrics) = parsed.get("metrics") else {
                continue;
            };
            for (part, prom) in prometheus_configs(metrics) {
                let name = format!(
                    "{}-{}-{}-{part}.yml",
                    plan.agent.namespace, plan.agent.name, config.secret_name
                );
                let path = dir.join(name);
                let yaml = render::yaml::to_string(&prom).map_err(|e| e.to_string())?;
                std::fs::write(&path, yaml).map_err(|e| e.to_string())?;
                files.push(path);
            }
        }
    }
    Ok(files)
}

#[test]
fn promtool_is_installed() {
    let output = Command::new("promtool").arg("--version").output();
    assert!(
        output.as_ref().is_ok_and(|o| o.status.success()),
        "promtool is missing: run scripts/install-promtool.sh ({output:?})"
    );
}

#[test]
fn every_generated_metrics_config_passes_promtool() {
    let cases = support::configs::all_cases();
    assert!(
        cases
            .iter()
            .any(|c| c.starts_with(support::repo_root().join("testdata/metrics"))),
        "no metrics cases found"
    );
    let dir = support::configs::scratch_dir("promtool", "cases");
    let mut checked = 0;
    let mut failures = Vec::new();
    for case in &cases {
        let case_name = case
            .strip_prefix(support::repo_root().join("testdata"))
            .unwrap_or(case)
            .display()
            .to_string();
        let case_dir = dir.join(case_name.replace('/', "__"));
        std::fs::create_dir_all(&case_dir).expect("case dir");
        match case_files(case, &case_dir).and_then(|files| {
            checked += files.len();
            if files.is_empty() {
                Ok(())
            } else {
                promtool_check(&files)
            }
        }) {
            Ok(()) => {}
            Err(e) => failures.push(format!("{case_name}:\n{e}")),
        }
    }
    assert!(
        failures.is_empty(),
        "promtool rejected generated configs (files under {}):\n{}",
        dir.display(),
        failures.join("\n")
    );
    assert!(checked > 0, "no metrics config was checked");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn promtool_rejects_a_broken_config() {
    // The check must be able to fail: an invalid regex in a relabel rule.
    let dir = support::configs::scratch_dir("promtool", "broken");
    let metrics = json!({
        "global": {"external_labels": {"cluster": "a/b"}},
        "configs": [{
            "name": "a/b",
            "scrape_configs": [{
                "job_name": "x",
                "kubernetes_sd_configs": [{"role": "pod"}],
                "relabel_configs": [{"source_labels": ["a"], "regex": "(", "action": "keep"}],
            }],
        }],
    });
    let configs = prometheus_configs(&metrics);
    let path = dir.join("broken.yml");
    std::fs::write(&path, render::yaml::to_string(&configs[0].1).expect("yaml")).expect("write");
    let result = promtool_check(std::slice::from_ref(&path));
    let _ = std::fs::remove_dir_all(&dir);
    let err = result.expect_err("promtool must reject an invalid regex");
    assert!(err.contains("FAILED"), "{err}");
}

#[test]
fn kubernetes_sd_becomes_a_static_target() {
    let job = without_kubernetes_sd(json!({
        "job_name": "x",
        "kubernetes_sd_configs": [{"role": "pod"}],
        "relabel_configs": [],
    }));
    assert_eq!(
        job,
        json!({
            "job_name": "x",
            "relabel_configs": [],
            "static_configs": [{"targets": [STAND_IN_TARGET]}],
        })
    );
}

#[test]
fn reloader_expansion_fails_on_unset_variables() {
    let env = std::collections::BTreeMap::from([("SHARD".to_owned(), "0".to_owned())]);
    assert_eq!(
        support::expand_reloader_env("keep $(SHARD) $1 ${X} $(", &env).as_deref(),
        Ok("keep 0 $1 ${X} $(")
    );
    assert!(support::expand_reloader_env("$(NOPE)", &env).is_err());
}

#[test]
fn instances_without_remote_write_use_the_global_one() {
    let metrics = json!({
        "global": {"remote_write": [{"url": "http://global"}]},
        "configs": [
            {"name": "a/own", "remote_write": [{"url": "http://own"}]},
            {"name": "a/none"},
        ],
    });
    let configs = prometheus_configs(&metrics);
    assert_eq!(configs.len(), 3);
    assert_eq!(configs[0].1["remote_write"][0]["url"], "http://global");
    assert_eq!(configs[1].1["remote_write"][0]["url"], "http://own");
    assert_eq!(configs[2].1["remote_write"][0]["url"], "http://global");
}
