//! A MetricsInstance's `additionalScrapeConfigs` under `spec.alloy.configFormat: native`
//! (issue 34): the raw Prometheus jobs are written in Alloy's syntax (that their components
//! equal the converter's is `alloy_native.rs`'s proof, which covers the golden case read
//! here), the loader's `$(SHARD)` and `$(SHARDS)` in them keep working while a tenant's other
//! `$` stays literal, an item with what the native writer does not translate keeps its
//! agent's metrics static with a warning naming the instance, the Secret key, the item and
//! the field, and the native config runs in the real Alloy.

mod support;

use std::path::PathBuf;

use render::alloy_syntax::write_file_keeping;
use render::desired::{DesiredObject, Subsystem};
use render::expansion::SHARD_VARIABLES;
use render::plan::Plan;
use support::alloy_parse::components;
use support::alloy_run::{alloy_binary, loads, with_api_server};

fn case() -> PathBuf {
    support::repo_root().join("testdata/metrics/additional-scrape-configs-native")
}

fn input() -> String {
    std::fs::read_to_string(case().join("input.yaml")).expect("the case's input")
}

/// The plan of each GrafanaAgent of `input`.
fn plans(input: &str) -> Vec<Plan> {
    let mut loader = render::manifest::Loader::new();
    loader.add_source("input.yaml", input);
    let store = loader.finish().store;
    render::output::plan_all(&store, &support::options(&case()), None)
}

/// The pod environment of shard 0 of the GrafanaAgent `name` of the case.
fn shard_zero_env(name: &str) -> std::collections::BTreeMap<String, String> {
    let mut loader = render::manifest::Loader::new();
    loader.add_source("input.yaml", &input());
    let store = loader.finish().store;
    let agent = store
        .agents()
        .find(|a| a.metadata.name.as_deref() == Some(name))
        .expect("the agent");
    support::shard_zero_env(agent)
}

fn plan<'p>(plans: &'p [Plan], agent: &str) -> &'p Plan {
    plans
        .iter()
        .find(|p| p.agent.name == agent)
        .unwrap_or_else(|| panic!("no plan of {agent}"))
}

fn metrics_text(plan: &Plan) -> String {
    plan.configs
        .iter()
        .find(|c| c.subsystem == Subsystem::Metrics)
        .expect("a metrics config")
        .text
        .as_str()
        .to_owned()
}

fn statefulset_args(plan: &Plan) -> Vec<String> {
    plan.objects
        .iter()
        .filter_map(|o| match &o.object {
            DesiredObject::StatefulSet(s) => s.spec.as_ref(),
            _ => None,
        })
        .flat_map(|spec| spec.template.spec.iter().flat_map(|p| &p.containers))
        .flat_map(|c| c.args.iter().flatten().cloned())
        .collect()
}

#[test]
fn an_instance_with_translated_additional_jobs_runs_its_metrics_natively() {
    let plans = plans(&input());
    let native = plan(&plans, "agent");
    let args = statefulset_args(native);
    assert!(!args.is_empty());
    assert!(
        !args.iter().any(|a| a.starts_with("--config.format")),
        "{args:?}"
    );
    assert!(
        !native
            .warnings
            .iter()
            .any(|w| w.message.contains("no native Alloy translation")),
        "{:#?}",
        native.warnings
    );
    let text = metrics_text(native);
    let parsed = components(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    for component in [
        // The monitor's job first, then the additional ones in the Secret's order.
        "prometheus.scrape metrics_operator_primary_serviceMonitor_operator_web_0",
        "prometheus.scrape metrics_operator_primary_sharded",
        "prometheus.relabel metrics_operator_primary_sharded",
        "discovery.kubernetes metrics_operator_primary_kube_pods_2",
        "discovery.consul metrics_operator_primary_discovered",
        "discovery.ec2 metrics_operator_primary_discovered",
        "discovery.http metrics_operator_primary_discovered",
        "prometheus.scrape metrics_operator_primary_oauth",
    ] {
        assert!(parsed.contains_key(component), "{component}:\n{text}");
    }
    let monitor = text
        .find("prometheus.scrape \"metrics_operator_primary_serviceMonitor")
        .expect("the monitor's scrape");
    let additional = text
        .find("prometheus.scrape \"metrics_operator_primary_sharded")
        .expect("the additional job's scrape");
    assert!(monitor < additional, "{text}");
}

#[test]
fn shard_variables_stay_the_loaders_and_a_tenants_other_dollars_stay_literal() {
    let plans = plans(&input());
    let text = metrics_text(plan(&plans, "agent"));
    for kept in [
        "modulus       = \"$(SHARDS)\"",
        "regex         = \"$(SHARD)\"",
        // Alloy's literals expand nothing; the loader never sees `$(NOPE)`.
        "replacement  = \"${AGENT_SECRET}$\\u0028NOPE)$$\"",
    ] {
        assert!(text.contains(kept), "{kept}:\n{text}");
    }
    let env = shard_zero_env("agent");
    let expanded = support::expand_reloader_env(&text, &env).expect("the shard's variables");
    assert!(expanded.contains("modulus       = \"2\""), "{expanded}");
    assert!(expanded.contains("regex         = \"0\""), "{expanded}");
    assert!(expanded.contains("$\\u0028NOPE)"), "{expanded}");
}

#[test]
fn an_untranslated_item_keeps_its_agents_metrics_static_naming_the_field() {
    let plans = plans(&input());
    let fallback = plan(&plans, "fallback");
    assert!(
        statefulset_args(fallback)
            .iter()
            .any(|a| a == "--config.format=static"),
        "the fallback agent's metrics stay static"
    );
    let warning = fallback
        .warnings
        .iter()
        .find(|w| w.field.as_deref() == Some("spec.additionalScrapeConfigs"))
        .unwrap_or_else(|| panic!("{:#?}", fallback.warnings));
    assert_eq!(warning.object.name, "docker");
    for named in [
        "key \"jobs.yaml\" of Secret operator/docker-jobs",
        "item [1]",
        "docker_sd_configs",
    ] {
        assert!(
            warning.message.contains(named),
            "{named}: {}",
            warning.message
        );
    }
    // A Secret's value is never quoted: the job's name is not in the message.
    assert!(
        !warning.message.contains("containers"),
        "{}",
        warning.message
    );

    // The same instance without the docker job: native, unwarned.
    let translated = input().replace(
        "    - job_name: containers\n      docker_sd_configs:\n      - host: unix:///var/run/docker.sock\n",
        "",
    );
    let plans = self::plans(&translated);
    let fallback = plan(&plans, "fallback");
    assert!(
        !statefulset_args(fallback)
            .iter()
            .any(|a| a.starts_with("--config.format")),
    );
    assert!(fallback.warnings.is_empty(), "{:#?}", fallback.warnings);
}

#[test]
fn fields_the_native_writer_does_not_read_are_named_in_the_item() {
    let cases = [
        (
            "- job_name: a\n  kubernetes_sd_configs:\n  - role: pod\n    kubeconfig_file: /k\n",
            "kubernetes_sd_configs[0].kubeconfig_file",
        ),
        (
            "- job_name: a\n  static_configs: [{targets: [x:1]}]\n  tls_config: {max_version: TLS13}\n",
            "tls_config.max_version",
        ),
        (
            "- job_name: a\n  relabel_configs:\n  - {source_labels: [a], modulus: $(NOPE), target_label: b, action: hashmod}\n",
            "relabel_configs[0].modulus",
        ),
        ("- job_name: a\n  sample_limit: lots\n", "sample_limit"),
    ];
    for (jobs, field) in cases {
        let text = input().replace(
            "    - job_name: plain\n      static_configs:\n      - targets: ['10.0.2.1:9100']\n    - job_name: containers\n      docker_sd_configs:\n      - host: unix:///var/run/docker.sock\n",
            &jobs
                .lines()
                .map(|l| format!("    {l}\n"))
                .collect::<String>(),
        );
        let plans = plans(&text);
        let fallback = plan(&plans, "fallback");
        let warning = fallback
            .warnings
            .iter()
            .find(|w| w.field.as_deref() == Some("spec.additionalScrapeConfigs"))
            .unwrap_or_else(|| panic!("{jobs}: {:#?}", fallback.warnings));
        assert!(
            warning.message.contains(&format!("item [0]: {field} ")),
            "{jobs}: {}",
            warning.message
        );
    }
}

/// The native config, as shard 0 reads it, runs in the real Alloy until ready: every
/// additional job's discoveries, relabel rules (the loader's modulus a numeric string) and
/// scrape settings built (Alloy stops at the first load when a component fails to build).
/// The Kubernetes discoveries get an API server address, as a host has no in-cluster
/// settings.
#[test]
fn the_additional_jobs_run_in_the_real_alloy() {
    let mut loader = render::manifest::Loader::new();
    loader.add_source("input.yaml", &input());
    let store = loader.finish().store;
    let agent = store
        .agents()
        .find(|a| a.metadata.name.as_deref() == Some("agent"))
        .expect("the native agent");
    let discovery = render::discover::discover(agent, &store);
    let (h, _) = render::alloy::without_label_collisions(&discovery.hierarchy);
    let section = render::config::metrics::render(&h)
        .and_then(|r| r.config.metrics)
        .expect("a metrics config");
    let body = render::alloy_native::metrics(&section).expect("written natively");
    let text = write_file_keeping(&with_api_server(body), &SHARD_VARIABLES);
    let text = support::expand_reloader_env(&text, &support::shard_zero_env(agent))
        .expect("the shard's variables");
    assert!(text.contains("modulus       = \"2\""), "{text}");
    for kind in [
        "discovery.consul",
        "discovery.dns",
        "discovery.ec2",
        "discovery.file",
    ] {
        assert!(text.contains(kind), "{kind}: {text}");
    }
    let dir = support::configs::scratch_dir("alloy-native-additional", "run");
    let outcome = loads(&alloy_binary(), &text, &dir.join("alloy"));
    assert!(outcome.is_ok(), "{outcome:?}\n{text}");
    let _ = std::fs::remove_dir_all(&dir);
}
