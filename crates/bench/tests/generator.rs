//! The synthetic input generator: deterministic, and what it writes is a valid input that
//! every generated agent selects in full.

use bench::generate::{Params, agent_name, generate};
use bench::measure::load;
use render::PlanOptions;

fn small(seed: u64) -> Params {
    let mut p = Params::scaled(200, seed);
    p.agents = 2;
    p
}

#[test]
fn the_same_seed_gives_the_same_bytes_and_another_seed_does_not() {
    let a = generate(&small(7));
    let b = generate(&small(7));
    assert_eq!(a, b);
    let c = generate(&small(8));
    assert_eq!(
        a.files.iter().map(|(n, _)| n).collect::<Vec<_>>(),
        c.files.iter().map(|(n, _)| n).collect::<Vec<_>>(),
        "the seed changes contents, not the layout"
    );
    assert_ne!(a, c);
}

#[test]
fn a_smaller_input_is_a_prefix_of_a_larger_one() {
    // Object i does not depend on the total count, so growing N only adds objects.
    let mut p = Params::scaled(100, 3);
    p.namespaces = 10;
    let small = generate(&p);
    p.service_monitors = 300;
    let large = generate(&p);
    let monitors = |c: &bench::generate::Corpus| {
        c.files
            .iter()
            .find(|(n, _)| n.starts_with("30-servicemonitors"))
            .map(|(_, t)| t.clone())
            .expect("service monitors file")
    };
    let (s, l) = (monitors(&small), monitors(&large));
    assert!(l.len() > 2 * s.len());
    assert!(l.starts_with(&s));
}

#[test]
fn large_counts_are_split_over_several_files() {
    let corpus = generate(&Params::scaled(4500, 1));
    let monitor_files: Vec<&str> = corpus
        .files
        .iter()
        .map(|(n, _)| n.as_str())
        .filter(|n| n.starts_with("30-"))
        .collect();
    assert_eq!(
        monitor_files,
        [
            "30-servicemonitors-0000.yaml",
            "30-servicemonitors-0001.yaml",
            "30-servicemonitors-0002.yaml"
        ]
    );
    let documents: usize = corpus
        .files
        .iter()
        .filter(|(n, _)| n.starts_with("30-"))
        .map(|(_, t)| t.matches("\nkind: ServiceMonitor\n").count())
        .sum();
    assert_eq!(documents, 4500);
}

#[test]
fn the_generated_input_loads_without_any_diagnostic() {
    let p = small(11);
    let loaded = load(&generate(&p).files);
    let diagnostics: Vec<String> = loaded.diagnostics.iter().map(ToString::to_string).collect();
    assert!(diagnostics.is_empty(), "{diagnostics:#?}");
    let s = &loaded.store;
    assert_eq!(s.agents().count(), 2);
    assert_eq!(s.objects::<api::MetricsInstance>().len(), 2);
    assert_eq!(s.objects::<api::LogsInstance>().len(), 2);
    assert_eq!(s.objects::<api::ServiceMonitor>().len(), p.service_monitors);
    assert_eq!(s.objects::<api::PodMonitor>().len(), p.pod_monitors);
    assert_eq!(s.objects::<api::Probe>().len(), p.probes);
    assert_eq!(s.objects::<api::PodLogs>().len(), p.pod_logs);
    // Every namespace, plus the agents' own.
    assert_eq!(s.namespaces().len(), p.namespaces + 1);
    // Two Secrets per namespace, plus the remote-write credentials.
    assert_eq!(
        s.data_objects(render::assets::AssetSource::Secret).count(),
        2 * p.namespaces + 1
    );
}

#[test]
fn the_input_has_the_variety_the_benchmark_claims() {
    let text: String = generate(&Params::scaled(500, 5))
        .files
        .into_iter()
        .map(|(_, t)| t)
        .collect();
    for needle in [
        "matchExpressions:",
        "operator: NotIn",
        "operator: Exists",
        "tlsConfig:",
        "keySecret:",
        "basicAuth:",
        "bearerTokenSecret:",
        "metricRelabelings:",
        "action: labeldrop",
        "any: true",
        "matchNames:",
        "jobLabel:",
        "targetLabels:",
        "podTargetLabels:",
        "sampleLimit:",
        "staticConfig:",
        "ingress:",
        "pipelineStages:",
    ] {
        assert!(
            text.contains(needle),
            "no {needle:?} in the generated input"
        );
    }
}

#[test]
fn every_generated_object_is_selected_by_its_agent_and_renders_without_rejection() {
    let p = small(13);
    let loaded = load(&generate(&p).files);
    let store = &loaded.store;
    let mut counts = [0usize; 4];
    for (a, agent) in store.agents().enumerate() {
        assert_eq!(agent.metadata.name.as_deref(), Some(agent_name(a).as_str()));
        let discovery = render::discover(agent, store);
        let rejections: Vec<String> = discovery
            .rejections
            .iter()
            .map(ToString::to_string)
            .collect();
        assert!(rejections.is_empty(), "{rejections:#?}");
        let h = &discovery.hierarchy;
        assert_eq!(h.metrics.len(), 1);
        assert_eq!(h.logs.len(), 1);
        let sms = h.metrics[0].service_monitors.len();
        // Agent a selects monitors a, a + agents, a + 2 agents, ...
        assert_eq!(
            sms,
            p.service_monitors.div_ceil(2) - a * (p.service_monitors % 2)
        );
        counts[0] += sms;
        counts[1] += h.metrics[0].pod_monitors.len();
        counts[2] += h.metrics[0].probes.len();
        counts[3] += h.logs[0].pod_logs.len();

        let plan = render::plan(&discovery, &PlanOptions::default());
        let rejections: Vec<String> = plan.rejections.iter().map(ToString::to_string).collect();
        assert!(rejections.is_empty(), "{rejections:#?}");
    }
    assert_eq!(
        counts,
        [p.service_monitors, p.pod_monitors, p.probes, p.pod_logs]
    );
}

#[test]
fn writing_refuses_a_directory_holding_other_files() {
    let dir = std::env::temp_dir().join(format!("bench-generator-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("mkdir");
    std::fs::write(dir.join("mine.yaml"), "a: 1\n").expect("write");
    let corpus = generate(&Params::scaled(20, 1));
    let refused = corpus.write_to(&dir);
    assert!(refused.is_err());
    assert!(
        dir.join("mine.yaml").exists(),
        "a user's file is never removed"
    );
    std::fs::remove_file(dir.join("mine.yaml")).expect("rm");
    let written = corpus
        .write_to(&dir)
        .expect("write to a directory of generated files");
    assert_eq!(written.len(), corpus.files.len());
    // Writing again replaces the generated files.
    corpus.write_to(&dir).expect("rewrite");
    std::fs::remove_dir_all(&dir).expect("cleanup");
}

#[test]
fn an_agent_whose_config_passes_one_mebibyte_compressed_gets_it_in_segments() {
    // Random relabeling text gzip cannot shrink much: ~1.8 MB of it in 300 monitors puts
    // the compressed config over the limit of one Secret without rendering thousands of
    // monitors. No ceiling: it is stored in segment Secrets, each within the limit.
    let mut p = Params::scaled(300, 17);
    p.payload_bytes = 3000;
    let loaded = load(&generate(&p).files);
    assert!(loaded.diagnostics.is_empty());
    let store = &loaded.store;
    let discovery = render::discover(store.agents().next().expect("a GrafanaAgent"), store);
    let plan = render::plan(&discovery, &PlanOptions::default());
    assert!(plan.rejections.is_empty(), "{:#?}", plan.rejections);

    let config = plan
        .configs
        .iter()
        .find(|c| c.secret_name == "agent-0-config")
        .expect("the metrics config");
    assert!(!config.segments.is_empty());
    let secrets: Vec<(&str, usize)> = plan
        .objects
        .iter()
        .filter_map(|o| match &o.object {
            render::desired::DesiredObject::Secret(s)
                if o.name() == "agent-0-config"
                    || config.segments.iter().any(|n| n == o.name()) =>
            {
                let bytes = s.data.iter().flatten().map(|(_, v)| v.0.len()).sum();
                Some((o.name(), bytes))
            }
            _ => None,
        })
        .collect();
    assert_eq!(secrets.len(), 1 + config.segments.len());
    let stored: usize = secrets.iter().map(|(_, bytes)| bytes).sum();
    assert!(stored > render::desired::SECRET_SIZE_LIMIT, "{secrets:?}");
    for (name, bytes) in &secrets {
        assert!(
            *bytes <= render::desired::SECRET_SIZE_LIMIT,
            "{name}: {bytes}"
        );
    }
    // The head comes after its segments, and everything else is planned too.
    let names: Vec<&str> = plan.objects.iter().map(|o| o.name()).collect();
    let head = names.iter().position(|n| *n == "agent-0-config");
    for segment in &config.segments {
        assert!(names.iter().position(|n| n == segment) < head, "{names:?}");
    }
    for wanted in ["agent-0-secrets", "agent-0-logs-config", "agent-0-logs"] {
        assert!(names.contains(&wanted), "{wanted} missing from {names:?}");
    }
}

#[test]
fn monitor_by_monitor_rendering_on_every_core_gives_the_typed_documents_text() {
    // Enough monitors for the parts to be rendered on several threads.
    let p = Params::scaled(300, 23);
    let loaded = load(&generate(&p).files);
    let discovery = render::discover(
        loaded.store.agents().next().expect("a GrafanaAgent"),
        &loaded.store,
    );
    let h = &discovery.hierarchy;
    let full = render::config::metrics::render(h).expect("metrics config");
    // Written as the operator writes every agent.yml: its strings escaped for the reloader
    // and the agent's expansion (docs/security.md).
    let expected = render::expansion::Strings::of(&h.agent)
        .to_yaml(render::expansion::ConfigOf::Sharded, &full.config)
        .expect("yaml");
    let once = render::render_cache::render_metrics_text(h)
        .expect("yaml")
        .expect("metrics config");
    assert!(once.text.as_str() == expected, "the texts differ");
    let mut cache = render::render_cache::MetricsConfigCache::new();
    let (cached, stats) = cache.render(h).expect("yaml").expect("metrics config");
    assert!(cached.text.as_str() == expected, "the cached text differs");
    assert_eq!(stats.misses, p.service_monitors + p.pod_monitors + p.probes);
}
