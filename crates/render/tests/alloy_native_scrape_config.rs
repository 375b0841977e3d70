//! ScrapeConfigs under `spec.alloy.configFormat: native` (issues 34 and 36): the agent's
//! metrics run natively (no fallback to the static format, no warning saying so), each
//! discovery is the component Alloy's converter makes of it, labelled and joined in the
//! converter's order, and every component runs in the real Alloy with the Secrets' files in
//! place. That the arguments equal the converter's is `alloy_native.rs`'s proof, which covers
//! the golden case read here.

mod support;

use std::path::PathBuf;

use render::alloy_syntax::write_file_keeping;
use render::assets::ASSETS_MOUNT_PATH;
use render::desired::{DesiredObject, Subsystem, assets_secret_name};
use render::expansion::SHARD_VARIABLES;
use render::plan::Plan;
use render::rejection::Rejection;
use serde_json::{Value, json};
use support::alloy_parse::components;
use support::alloy_run::{alloy_binary, loads, with_api_server};

fn case() -> PathBuf {
    support::repo_root().join("testdata/metrics/q36-scrape-config-native")
}

fn plan_of(input: &str) -> Plan {
    let mut loader = render::manifest::Loader::new();
    loader.add_source("input.yaml", input);
    let store = loader.finish().store;
    let mut plans = render::output::plan_all(&store, &support::options(&case()), None).into_iter();
    let plan = plans.next().expect("one agent");
    assert!(plans.next().is_none(), "one agent");
    plan
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

fn container_args(plan: &Plan) -> Vec<String> {
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

fn said(plan: &Plan) -> Vec<&Rejection> {
    plan.rejections.iter().chain(&plan.warnings).collect()
}

fn input() -> String {
    std::fs::read_to_string(case().join("input.yaml")).expect("the case's input")
}

#[test]
fn an_agent_selecting_scrape_configs_runs_its_metrics_natively() {
    let plan = plan_of(&input());
    let args = container_args(&plan);
    assert!(!args.is_empty(), "the metrics StatefulSet has arguments");
    assert!(
        !args.iter().any(|a| a.starts_with("--config.format")),
        "native: Alloy reads its own syntax: {args:?}"
    );
    let text = metrics_text(&plan);
    let parsed = components(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert!(
        parsed.contains_key("prometheus.scrape metrics_operator_primary_scrapeConfig_apps_kube"),
        "{text}"
    );
    let said = said(&plan);
    assert!(
        !said
            .iter()
            .any(|r| r.message.contains("no native Alloy translation")),
        "{said:#?}"
    );
    // Written natively, so not warned about; the TLS maxVersion Alloy lacks still is.
    let fields: Vec<&str> = said.iter().filter_map(|r| r.field.as_deref()).collect();
    assert!(
        !fields
            .iter()
            .any(|f| f.ends_with("followRedirects") || f.ends_with("enableHTTP2")),
        "{fields:?}"
    );
    assert!(
        fields.contains(&"spec.httpSDConfigs[0].tlsConfig.maxVersion"),
        "{fields:?}"
    );
}

#[test]
fn the_same_objects_in_static_format_keep_the_converter_warnings() {
    let text = input().replace("    configFormat: native\n", "    configFormat: static\n");
    let plan = plan_of(&text);
    assert!(
        container_args(&plan)
            .iter()
            .any(|a| a == "--config.format=static")
    );
    let said = said(&plan);
    for field in [
        "spec.httpSDConfigs[0].followRedirects",
        "spec.httpSDConfigs[0].enableHTTP2",
    ] {
        assert!(
            said.iter().any(|r| r.field.as_deref() == Some(field)),
            "{field}: {said:#?}"
        );
    }
}

#[test]
fn discoveries_are_labelled_per_kind_and_joined_in_the_converters_order() {
    let text = metrics_text(&plan_of(&input()));
    let parsed = components(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let job = "metrics_operator_primary_scrapeConfig_apps_every_discovery";
    let relabel = &parsed[&format!("discovery.relabel {job}")];
    let reference =
        |kind: &str, suffix: &str| json!({ "$ref": format!("{kind}.{job}{suffix}.targets") });
    let target = |address: &str| json!({ "__address__": address, "rack": "r1" });
    assert_eq!(
        relabel["targets"],
        Value::Array(vec![
            reference("discovery.consul", ""),
            reference("discovery.dns", ""),
            reference("discovery.dns", "_2"),
            reference("discovery.file", ""),
            reference("discovery.http", ""),
            reference("discovery.kubernetes", ""),
            target("10.0.0.1:9100"),
            target("10.0.0.2:9100"),
        ]),
        "{text}"
    );
    // Two of a kind: the second labelled `_2`.
    let kube = &parsed["discovery.relabel metrics_operator_primary_scrapeConfig_apps_kube"];
    assert_eq!(
        kube["targets"],
        json!([
            { "$ref": "discovery.kubernetes.metrics_operator_primary_scrapeConfig_apps_kube.targets" },
            { "$ref": "discovery.kubernetes.metrics_operator_primary_scrapeConfig_apps_kube_2.targets" },
        ]),
        "{text}"
    );
    // One discovery and no static targets: its export alone.
    let consul = &parsed["discovery.relabel metrics_operator_primary_scrapeConfig_apps_consul"];
    assert_eq!(
        consul["targets"],
        json!({ "$ref": "discovery.consul.metrics_operator_primary_scrapeConfig_apps_consul.targets" }),
        "{text}"
    );
    // The job's own client settings are its scrape's.
    let scrape = &parsed[&format!("prometheus.scrape {job}")];
    assert_eq!(scrape["enable_compression"], json!(false), "{text}");
    assert_eq!(
        scrape["oauth2"][0]["tls_config"][0]["min_version"],
        json!("TLS13"),
        "{text}"
    );
    assert_eq!(
        scrape["oauth2"][0]["proxy_url"],
        json!("http://proxy.example:3128"),
        "{text}"
    );
    assert_eq!(
        scrape["tls_config"][0]["min_version"],
        json!("TLS12"),
        "{text}"
    );
}

/// The golden case's native config, as shard 0 reads it, runs in the real Alloy until ready:
/// every discovery built with its arguments, credentials, CA file and proxy settings (the
/// Secrets' files written where the config names them; Kubernetes discoveries without an
/// address given one, as a host has no in-cluster settings). Alloy stops at the first load
/// when a component fails to build, so ready means every one did.
#[test]
fn every_scrape_config_component_runs_in_the_real_alloy() {
    let mut loader = render::manifest::Loader::new();
    loader.add_source("input.yaml", &input());
    let store = loader.finish().store;
    let agent = store.agents().next().expect("one agent").clone();
    let discovery = render::discover::discover(&agent, &store);
    let (h, _) = render::alloy::without_label_collisions(&discovery.hierarchy);
    let section = render::config::metrics::render(&h)
        .and_then(|r| r.config.metrics)
        .expect("a metrics config");
    let body = render::alloy_native::metrics(&section).expect("written natively");
    let text = write_file_keeping(&with_api_server(body), &SHARD_VARIABLES);
    let text = support::expand_reloader_env(&text, &support::shard_zero_env(&agent))
        .expect("the shard's variables");

    let dir = support::configs::scratch_dir("alloy-native-scrape-config", "run");
    let assets = dir.join("secrets");
    std::fs::create_dir_all(&assets).expect("assets folder");
    let plan = plan_of(&input());
    let secret = assets_secret_name(&plan.agent.name);
    let data = plan
        .objects
        .iter()
        .find_map(|o| match &o.object {
            DesiredObject::Secret(s) if s.metadata.name.as_deref() == Some(secret.as_str()) => {
                s.data.clone()
            }
            _ => None,
        })
        .expect("the assets Secret");
    for (key, value) in &data {
        std::fs::write(assets.join(key), &value.0).expect("an asset file");
    }
    let text = text.replace(ASSETS_MOUNT_PATH, &assets.display().to_string());
    assert!(text.contains("discovery.ec2"), "{text}");
    let outcome = loads(&alloy_binary(), &text, &dir.join("alloy"));
    assert!(outcome.is_ok(), "{outcome:?}\n{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A ScrapeConfig's second discovery of a kind is labelled `<job label>_2`: a ScrapeConfig
/// whose own label is that one, with a discovery of the same kind, would give Alloy two
/// components of one label (which it refuses, the whole config with them), so the later one
/// is left out by name; with discoveries of other kinds only, it runs beside it.
#[test]
fn a_job_labelled_as_anothers_second_discovery_of_its_kind_is_left_out() {
    let scrape_config = |name: &str, discoveries: &str| {
        format!(
            "---\napiVersion: monitoring.coreos.com/v1alpha1\nkind: ScrapeConfig\n\
             metadata: {{name: {name}, namespace: apps, labels: {{team: infra}}}}\n\
             spec:\n{discoveries}"
        )
    };
    let two_http = "  httpSDConfigs:\n  - url: http://a/sd\n  - url: http://b/sd\n";
    let mut text = input()
        .split("\n---\napiVersion: monitoring.coreos.com/v1alpha1")
        .next()
        .expect("the agent, instance and Secret")
        .to_owned();
    text.push('\n');
    text.push_str(&scrape_config("foo", two_http));
    text.push_str(&scrape_config(
        "foo-2",
        "  httpSDConfigs:\n  - url: http://c/sd\n",
    ));
    text.push_str(&scrape_config("bar", two_http));
    text.push_str(&scrape_config(
        "bar-2",
        "  dnsSDConfigs:\n  - names: [bar.example]\n",
    ));
    let plan = plan_of(&text);
    let left_out: Vec<(&str, Option<&str>)> = plan
        .rejections
        .iter()
        .map(|r| (r.object.name.as_str(), r.field.as_deref()))
        .collect();
    assert_eq!(
        left_out,
        [("foo-2", Some("metadata.name"))],
        "{:#?}",
        plan.rejections
    );
    let config = metrics_text(&plan);
    let parsed = components(&config).unwrap_or_else(|e| panic!("{e}\n{config}"));
    let job = "metrics_operator_primary_scrapeConfig_apps";
    for component in [
        format!("discovery.http {job}_foo_2"),
        format!("discovery.http {job}_bar_2"),
        format!("discovery.dns {job}_bar_2"),
        format!("prometheus.scrape {job}_bar_2"),
    ] {
        assert!(parsed.contains_key(&component), "{component}:\n{config}");
    }
    assert!(
        !parsed.contains_key(&format!("prometheus.scrape {job}_foo_2")),
        "{config}"
    );
}
