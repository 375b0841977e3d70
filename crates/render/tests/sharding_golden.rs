//! Golden cases for the sharding strategies (issue 8): one folder per case under
//! `testdata/sharding/`, plus checks of what the goldens must mean. The promtool test checks
//! these configs too, with shard 0's environment (SHARD_BUCKETS included) substituted.

mod support;

use std::collections::BTreeMap;
use support::Golden;

use api::ShardingStrategy;
use render::desired::DesiredObject;
use render::plan::Plan;
use render::sharding::{SHARD_BUCKETS_ENV, shard_buckets_regex};

fn main() {
    support::run_tests(
        "sharding",
        Golden::Everything,
        &[
            (
                "consistent_shards_get_their_own_bucket_regex_after_shard_and_shards",
                consistent_shards_get_their_own_bucket_regex_after_shard_and_shards,
            ),
            (
                "one_consistent_shard_keeps_every_bucket",
                one_consistent_shard_keeps_every_bucket,
            ),
            (
                "q1_default_strategy_renders_exactly_upstreams_rules_and_env",
                q1_default_strategy_renders_exactly_upstreams_rules_and_env,
            ),
        ],
    );
}

/// The literal env (name, value) of one container; `valueFrom` entries and the agent's
/// `AGENT_DEPLOY_MODE` (no sharding variable) are left out.
type Env = Vec<(String, String)>;

/// Every metrics StatefulSet of `plan`: (name, shard label, env of each container: the config
/// loader's init container, its sidecar and the agent).
fn shard_envs(plan: &Plan) -> Vec<(String, u32, Vec<Env>)> {
    let mut out = Vec::new();
    for object in &plan.objects {
        let DesiredObject::StatefulSet(sts) = &object.object else {
            continue;
        };
        let labels = sts.metadata.labels.clone().unwrap_or_default();
        let shard: u32 = labels["operator.agent.grafana.com/shard"]
            .parse()
            .expect("shard label");
        let pod = sts
            .spec
            .as_ref()
            .and_then(|s| s.template.spec.as_ref())
            .expect("pod spec");
        let envs = pod
            .init_containers
            .iter()
            .flatten()
            .chain(&pod.containers)
            .map(|c| {
                c.env
                    .iter()
                    .flatten()
                    .filter(|e| e.name != "AGENT_DEPLOY_MODE")
                    .filter_map(|e| e.value.clone().map(|v| (e.name.clone(), v)))
                    .collect()
            })
            .collect();
        out.push((sts.metadata.name.clone().unwrap_or_default(), shard, envs));
    }
    out
}

fn case(name: &str) -> support::CaseOutput {
    support::render_case(&support::repo_root().join("testdata/sharding").join(name))
}

fn consistent_shards_get_their_own_bucket_regex_after_shard_and_shards() {
    let out = case("consistent-three-shards");
    let shards = shard_envs(&out.plans[0]);
    assert_eq!(shards.len(), 3);
    for (name, shard, containers) in shards {
        assert_eq!(containers.len(), 3, "{name}: loader, reloader and agent");
        for env in containers {
            let names: Vec<&str> = env.iter().map(|(n, _)| n.as_str()).collect();
            assert_eq!(names, ["SHARD", "SHARDS", SHARD_BUCKETS_ENV], "{name}");
            let values: BTreeMap<_, _> = env.into_iter().collect();
            assert_eq!(values["SHARD"], shard.to_string());
            assert_eq!(values[SHARD_BUCKETS_ENV], shard_buckets_regex(shard, 3));
        }
    }
    let config = &out.files["config-agent-config.yaml"];
    // ServiceMonitor, PodMonitor and Probe jobs all keep $(SHARD_BUCKETS); none keeps $(SHARD).
    assert_eq!(config.matches("modulus: 4096").count(), 3, "{config}");
    assert_eq!(config.matches("regex: $(SHARD_BUCKETS)").count(), 3);
    assert!(!config.contains("regex: $(SHARD)\n"));
    assert!(config.contains("- __param_target\n        modulus: 4096"));
}

fn one_consistent_shard_keeps_every_bucket() {
    let out = case("consistent-one-shard");
    let shards = shard_envs(&out.plans[0]);
    assert_eq!(shards.len(), 1);
    for env in &shards[0].2 {
        let values: BTreeMap<_, _> = env.iter().cloned().collect();
        assert_eq!(values[SHARD_BUCKETS_ENV], shard_buckets_regex(0, 1));
    }
    assert!(out.files["config-agent-config.yaml"].contains("regex: $(SHARD_BUCKETS)"));
}

fn q1_default_strategy_renders_exactly_upstreams_rules_and_env() {
    let out = case("q1-hashmod-default");
    assert_eq!(out.plans.len(), 2);
    let default = &out.files["config-default-strategy-config.yaml"];
    let explicit = &out.files["config-explicit-hashmod-config.yaml"];
    assert_eq!(
        default.replace("default-strategy", "AGENT"),
        explicit.replace("explicit-hashmod", "AGENT")
    );
    assert!(default.ends_with(
        "      - source_labels:\n        - __address__\n        modulus: 2\n        target_label: __tmp_hash\n        action: hashmod\n      - source_labels:\n        - __tmp_hash\n        regex: $(SHARD)\n        action: keep\n"
    ), "{default}");
    assert_eq!(ShardingStrategy::default(), ShardingStrategy::Hashmod);
    for plan in &out.plans {
        for (name, _, containers) in shard_envs(plan) {
            for env in containers {
                let names: Vec<&str> = env.iter().map(|(n, _)| n.as_str()).collect();
                assert_eq!(names, ["SHARD", "SHARDS"], "{name}");
            }
        }
    }
}
