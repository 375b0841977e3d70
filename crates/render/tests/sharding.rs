//! Sharding strategies (issue 8): upstream's `hashmod` stays the default and byte-identical
//! (Q1); `consistent` keeps shards balanced and moves about 1/(N+1) of the targets from N to
//! N+1 shards. The figures are asserted on a deterministic simulation of 10,000 targets that
//! evaluates the rendered rules with Prometheus semantics.

use std::collections::{BTreeMap, HashMap};
use std::process::Command;
use std::sync::OnceLock;

use api::ShardingStrategy;
use regex::Regex;
use render::sharding::simulate::{
    Report, ShardRules, assign, expand_reloader_env, shard_env, simulate, synthetic_targets,
};
use render::sharding::{
    CONSISTENT_BUCKETS, NO_BUCKETS_REGEX, SHARD_BUCKETS_ENV, bucket_owners, extra_env, hash64,
    hashmod, relabel_rules, shard_buckets_regex, shard_of,
};

const TARGETS: usize = 10_000;
const MAX_SHARDS: u32 = 16;

fn report() -> &'static Report {
    static REPORT: OnceLock<Report> = OnceLock::new();
    REPORT.get_or_init(|| simulate(&synthetic_targets(TARGETS), MAX_SHARDS).expect("simulation"))
}

fn rules_yaml(strategy: ShardingStrategy, shards: u32, source: &str) -> String {
    render::yaml::to_string(&relabel_rules(strategy, shards, source)).expect("yaml")
}

// ---- Prometheus hashmod --------------------------------------------------------------

#[test]
fn hash64_is_the_last_8_bytes_of_md5_big_endian() {
    // RFC 1321 test vectors: MD5("") = d41d8cd98f00b204 e9800998ecf8427e,
    // MD5("abc") = 900150983cd24fb0 d6963f7d28e17f72.
    assert_eq!(hash64(""), 0xe980_0998_ecf8_427e);
    assert_eq!(hash64("abc"), 0xd696_3f7d_28e1_7f72);
    // MD5("The quick brown fox jumps over the lazy dog") = 9e107d9d372bb682 6bd81d3542a419d6.
    assert_eq!(
        hash64("The quick brown fox jumps over the lazy dog"),
        0x6bd8_1d35_42a4_19d6
    );
}

#[test]
fn hashmod_matches_values_computed_independently() {
    // Computed with Python's hashlib as int.from_bytes(md5(v).digest()[8:], "big") % m,
    // the algorithm of Prometheus' relabel.go.
    assert_eq!(hashmod("", 3), 1);
    assert_eq!(hashmod("abc", 4096), 3954);
    assert_eq!(hashmod("10.244.0.10:8080", 4096), 1710);
    assert_eq!(hashmod("10.244.0.10:8080", 16), 14);
    assert_eq!(hashmod("example.com:443", 4096), 2761);
    assert_eq!(hashmod("example.com:443", 16), 9);
    // Two source labels joined with the default separator.
    assert_eq!(hashmod("a;b", 4096), 3338);
    // Modulus 1 (one shard) keeps everything in bucket 0.
    assert_eq!(hashmod("abc", 1), 0);
}

#[test]
fn simulated_rules_use_the_separator_and_hash_label() {
    let rules = relabel_rules(ShardingStrategy::Hashmod, 16, "__address__");
    let env = shard_env(ShardingStrategy::Hashmod, 14, 16);
    let compiled = ShardRules::compile(&rules, &env).expect("compiles");
    let mut hashes = HashMap::new();
    let keeps = |addr: &str, hashes: &mut HashMap<String, u64>| {
        compiled.keeps(
            &BTreeMap::from([("__address__".to_owned(), addr.to_owned())]),
            hashes,
        )
    };
    assert!(keeps("10.244.0.10:8080", &mut hashes));
    assert!(!keeps("example.com:443", &mut hashes));
}

// ---- Q1: the default stays upstream's --------------------------------------------------

#[test]
fn q1_default_strategy_keeps_upstreams_two_hashmod_rules() {
    assert_eq!(ShardingStrategy::default(), ShardingStrategy::Hashmod);
    for (shards, modulus) in [(0, 1), (1, 1), (3, 3), (16, 16)] {
        assert_eq!(
            rules_yaml(ShardingStrategy::Hashmod, shards, "__address__"),
            format!(
                "- source_labels:\n  - __address__\n  modulus: {modulus}\n  target_label: __tmp_hash\n  action: hashmod\n\
                 - source_labels:\n  - __tmp_hash\n  regex: $(SHARD)\n  action: keep\n"
            ),
            "shards {shards}"
        );
    }
    // Probes (Q2) hash __param_target with the same two rules.
    assert!(
        rules_yaml(ShardingStrategy::Hashmod, 2, "__param_target")
            .starts_with("- source_labels:\n  - __param_target\n  modulus: 2\n")
    );
    // No extra environment: the pods stay exactly upstream's (SHARD and SHARDS only).
    for shards in [1, 2, 5] {
        for shard in 0..shards {
            assert!(extra_env(ShardingStrategy::Hashmod, shard, shards).is_empty());
        }
    }
}

// ---- consistent: the rules and the env contract ---------------------------------------

#[test]
fn consistent_rules_hash_into_fixed_buckets_and_keep_shard_buckets() {
    let expected = format!(
        "- source_labels:\n  - __address__\n  modulus: {CONSISTENT_BUCKETS}\n  target_label: __tmp_hash\n  action: hashmod\n\
         - source_labels:\n  - __tmp_hash\n  regex: $(SHARD_BUCKETS)\n  action: keep\n"
    );
    // Independent of the shard count, so resizing never changes the config Secret.
    for shards in [1, 2, 7, 16, 100] {
        assert_eq!(
            rules_yaml(ShardingStrategy::Consistent, shards, "__address__"),
            expected
        );
    }
    assert_eq!(SHARD_BUCKETS_ENV, "SHARD_BUCKETS");
    assert_eq!(CONSISTENT_BUCKETS, 4096);
}

#[test]
fn consistent_env_is_exactly_shard_buckets() {
    let env = extra_env(ShardingStrategy::Consistent, 1, 3);
    assert_eq!(env.len(), 1);
    assert_eq!(env[0].0, "SHARD_BUCKETS");
    assert_eq!(env[0].1, shard_buckets_regex(1, 3));
}

#[test]
fn one_consistent_shard_keeps_every_bucket() {
    assert_eq!(
        shard_buckets_regex(0, 1),
        "([0-9]|[1-9][0-9]|[1-9][0-9][0-9]|[1-3][0-9][0-9][0-9]|40[0-8][0-9]|409[0-5])"
    );
    // Shard count 0 (spec: not above 1) is one shard.
    assert_eq!(shard_buckets_regex(0, 0), shard_buckets_regex(0, 1));
}

#[test]
fn two_consistent_shards_split_the_buckets_in_halves() {
    assert_eq!(
        shard_buckets_regex(0, 2),
        "([0-9]|[1-9][0-9]|[1-9][0-9][0-9]|1[0-9][0-9][0-9]|20[0-3][0-9]|204[0-7])"
    );
    assert_eq!(
        shard_buckets_regex(1, 2),
        "(204[8-9]|20[5-9][0-9]|2[1-9][0-9][0-9]|3[0-9][0-9][0-9]|40[0-8][0-9]|409[0-5])"
    );
}

/// Every `SHARD_BUCKETS` value, anchored as Prometheus anchors it, matches exactly the
/// buckets its shard owns, and every bucket belongs to exactly one shard.
#[test]
fn shard_buckets_regex_matches_exactly_the_owned_buckets() {
    let shard_counts: Vec<u32> = (1..=20).chain([31, 32, 33, 64, 100]).collect();
    for shards in shard_counts {
        let owners = bucket_owners(shards);
        let regexes: Vec<Regex> = (0..shards)
            .map(|shard| {
                let value = shard_buckets_regex(shard, shards);
                Regex::new(&format!("^(?:{value})$"))
                    .unwrap_or_else(|e| panic!("{shards} shards, shard {shard}: {value}: {e}"))
            })
            .collect();
        for bucket in 0..CONSISTENT_BUCKETS {
            let text = bucket.to_string();
            let matching: Vec<u32> = (0..shards)
                .filter(|s| regexes[*s as usize].is_match(&text))
                .collect();
            assert_eq!(
                matching,
                vec![owners[bucket as usize]],
                "{shards} shards, bucket {bucket}"
            );
        }
        // Nothing outside the bucket range or with leading zeros.
        for text in ["4096", "10000", "007", "", "-1", "1a"] {
            assert!(
                regexes.iter().all(|r| !r.is_match(text)),
                "{shards} shards match {text:?}"
            );
        }
    }
}

#[test]
fn shard_buckets_values_are_safe_to_substitute_anywhere() {
    let allowed = |c: char| c.is_ascii_digit() || "[]-|()".contains(c);
    for shards in (1..=128).chain([256, 500]) {
        for shard in 0..shards {
            let value = shard_buckets_regex(shard, shards);
            assert!(value.starts_with('(') && value.ends_with(')'), "{value}");
            assert!(value.chars().all(allowed), "{shards}/{shard}: {value}");
            // docs/sharding.md promises at most 450 bytes.
            assert!(
                value.len() <= 450,
                "{shards}/{shard}: {} bytes",
                value.len()
            );
        }
    }
}

#[test]
fn substituted_rules_still_parse_as_the_same_regex_string() {
    // The config holds `regex: $(SHARD_BUCKETS)` as a plain scalar; after the reloader's
    // substitution the YAML must still read back as exactly the value.
    let text = rules_yaml(ShardingStrategy::Consistent, 5, "__address__");
    for shard in 0..5 {
        let env = shard_env(ShardingStrategy::Consistent, shard, 5);
        let expanded = expand_reloader_env(&text, &env).expect("expands");
        let parsed: serde_json::Value = serde_saphyr::from_str(&expanded).expect("valid YAML");
        assert_eq!(
            parsed[1]["regex"].as_str(),
            Some(shard_buckets_regex(shard, 5).as_str()),
            "{expanded}"
        );
    }
}

#[test]
fn reloader_refuses_the_consistent_config_without_shard_buckets() {
    // During a switch, pods that still run without SHARD_BUCKETS fail the substitution and
    // keep their previous config (spec 3.11) until they are replaced.
    let text = rules_yaml(ShardingStrategy::Consistent, 2, "__address__");
    let old_env = shard_env(ShardingStrategy::Hashmod, 0, 2);
    let err = expand_reloader_env(&text, &old_env).expect_err("SHARD_BUCKETS is unset");
    assert!(err.contains("SHARD_BUCKETS"), "{err}");
}

#[test]
fn more_shards_than_buckets_leave_the_extra_shards_empty() {
    let shards = CONSISTENT_BUCKETS as u32 + 3;
    let owners = bucket_owners(shards);
    let mut sorted: Vec<u32> = owners.to_vec();
    sorted.sort_unstable();
    assert_eq!(sorted, (0..CONSISTENT_BUCKETS as u32).collect::<Vec<_>>());
    assert_eq!(
        shard_buckets_regex(CONSISTENT_BUCKETS as u32, shards),
        NO_BUCKETS_REGEX
    );
    assert!(
        !Regex::new(&format!("^(?:{NO_BUCKETS_REGEX})$"))
            .unwrap()
            .is_match("0")
    );
}

// ---- consistent: the assignment --------------------------------------------------------

#[test]
fn bucket_counts_differ_by_at_most_one() {
    for shards in 1..=128u32 {
        let owners = bucket_owners(shards);
        let mut counts = vec![0u64; shards as usize];
        for owner in owners.iter() {
            counts[*owner as usize] += 1;
        }
        let (min, max) = (counts.iter().min().unwrap(), counts.iter().max().unwrap());
        assert!(max - min <= 1, "{shards} shards: {min}..{max}");
        assert_eq!(counts.iter().sum::<u64>(), CONSISTENT_BUCKETS);
    }
}

#[test]
fn growing_by_one_shard_moves_only_the_new_shards_buckets() {
    for shards in 1..=128u32 {
        let before = bucket_owners(shards);
        let after = bucket_owners(shards + 1);
        let moved = before
            .iter()
            .zip(after.iter())
            .filter(|(a, b)| a != b)
            .count() as u64;
        assert!(
            before
                .iter()
                .zip(after.iter())
                .all(|(a, b)| a == b || *b == shards),
            "{shards} -> {}: a bucket moved between old shards",
            shards + 1
        );
        // Exactly the new shard's share: the minimum any balanced assignment can move.
        assert_eq!(
            moved,
            CONSISTENT_BUCKETS / u64::from(shards + 1),
            "{shards} -> {}",
            shards + 1
        );
    }
}

#[test]
fn shard_of_agrees_with_the_rendered_rules() {
    let targets = synthetic_targets(2_000);
    let mut hashes = HashMap::new();
    for strategy in [ShardingStrategy::Hashmod, ShardingStrategy::Consistent] {
        for shards in [1, 2, 5, 16] {
            let owners = assign(strategy, shards, &targets, &mut hashes).expect("assign");
            for (target, owner) in targets.iter().zip(owners) {
                assert_eq!(shard_of(strategy, shards, target), owner, "{target}");
            }
        }
    }
}

// ---- the simulation's figures -----------------------------------------------------------

#[test]
fn consistent_moves_at_most_one_share_plus_two_percent() {
    let report = report();
    assert_eq!(report.targets, TARGETS);
    assert_eq!(report.rows.len(), MAX_SHARDS as usize);
    for row in &report.rows {
        let n = f64::from(row.shards);
        let bound = 1.0 / (n + 1.0) + 0.02;
        assert!(
            row.moved_consistent <= bound,
            "{} -> {}: consistent moved {:.4} > {bound:.4}",
            row.shards,
            row.shards + 1,
            row.moved_consistent
        );
        // And upstream's hashmod moves about N/(N+1), which is what the strategy fixes.
        let upstream = n / (n + 1.0);
        assert!(
            (row.moved_hashmod - upstream).abs() <= 0.03,
            "{} -> {}: hashmod moved {:.4}, expected about {upstream:.4}",
            row.shards,
            row.shards + 1,
            row.moved_hashmod
        );
    }
}

#[test]
fn consistent_largest_shard_is_within_ten_percent_of_the_mean() {
    for row in &report().rows {
        assert!(
            row.balance_consistent <= 1.10,
            "{} shards: largest / mean = {:.4}",
            row.shards,
            row.balance_consistent
        );
    }
    // The simulation also assigned 17 shards (the last step); check its balance too.
    let targets = synthetic_targets(TARGETS);
    let owners = assign(
        ShardingStrategy::Consistent,
        MAX_SHARDS + 1,
        &targets,
        &mut HashMap::new(),
    )
    .expect("assign");
    let balance = render::sharding::simulate::balance(&owners, MAX_SHARDS + 1);
    assert!(balance <= 1.10, "17 shards: {balance:.4}");
}

#[test]
fn docs_show_the_measured_table() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/sharding.md");
    let docs = std::fs::read_to_string(&path).expect("docs/sharding.md");
    let markdown = report().to_markdown();
    let table = markdown
        .split_once("\n\n")
        .map(|(_, table)| table)
        .expect("a table after the heading line");
    assert!(
        docs.contains(table),
        "docs/sharding.md is out of date; paste the output of the shard_sim example:\n{table}"
    );
}

#[test]
fn report_table_lists_every_step() {
    let table = report().to_markdown();
    for n in 1..=MAX_SHARDS {
        assert!(table.contains(&format!("| {n} -> {} |", n + 1)), "{table}");
    }
}

// ---- promtool ---------------------------------------------------------------------------

/// A Prometheus config with one job per (strategy, shard count, shard), each carrying the
/// sharding rules with that shard's environment substituted as the reloader does.
fn substituted_prometheus_config(extra_regex: Option<&str>) -> String {
    let mut jobs = Vec::new();
    for strategy in [ShardingStrategy::Hashmod, ShardingStrategy::Consistent] {
        for shards in (1..=17).chain([64]) {
            for shard in 0..shards {
                let mut rules =
                    serde_json::to_value(relabel_rules(strategy, shards, "__address__"))
                        .expect("json");
                if let Some(bad) = extra_regex {
                    rules.as_array_mut().expect("list").push(serde_json::json!({
                        "source_labels": ["__address__"], "regex": bad, "action": "keep"
                    }));
                }
                jobs.push(serde_json::json!({
                    "job_name": format!("{strategy:?}-{shard}-of-{shards}"),
                    "static_configs": [{"targets": ["10.244.0.10:8080", "example.com:443"]}],
                    "relabel_configs": rules,
                }));
            }
        }
    }
    let config = serde_json::json!({ "scrape_configs": jobs });
    expand_per_job(&render::yaml::to_string(&config).expect("yaml"))
}

/// Substitutes each job's lines with the environment of the shard its name encodes
/// (`<strategy>-<shard>-of-<shards>`).
fn expand_per_job(text: &str) -> String {
    let mut out = String::new();
    let mut env = BTreeMap::new();
    for line in text.split_inclusive('\n') {
        if let Some(name) = line.trim_start().strip_prefix("- job_name: ") {
            let parts: Vec<&str> = name.trim().split('-').collect();
            let strategy = match parts[0] {
                "Hashmod" => ShardingStrategy::Hashmod,
                _ => ShardingStrategy::Consistent,
            };
            let shard: u32 = parts[1].parse().expect("shard");
            let shards: u32 = parts[3].parse().expect("shards");
            env = shard_env(strategy, shard, shards);
        }
        out.push_str(&expand_reloader_env(line, &env).expect("every name is set"));
    }
    out
}

fn promtool_check(config: &str, name: &str) -> std::process::Output {
    let dir = std::env::temp_dir().join(format!("agent-operator-sharding-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, config).expect("write config");
    Command::new("promtool")
        .args(["check", "config"])
        .arg(&path)
        .output()
        .expect("promtool must be installed (scripts/install-promtool.sh)")
}

#[test]
fn substituted_sharding_rules_pass_promtool_check_config() {
    let config = substituted_prometheus_config(None);
    assert!(config.contains("regex: ([0-9]|"), "{config}");
    let out = promtool_check(&config, "good.yml");
    assert!(
        out.status.success(),
        "promtool rejected the config:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn promtool_check_catches_a_broken_regex() {
    // Shows the check above can fail: the same config with one unbalanced regex is refused.
    let out = promtool_check(&substituted_prometheus_config(Some("(")), "bad.yml");
    assert!(!out.status.success(), "promtool accepted a broken regex");
}
