//! A deterministic simulation of how targets spread over shards and how many move when the
//! shard count changes, for both strategies.
//!
//! It does not trust [`super::shard_of`]: for every shard it takes the rules
//! [`super::relabel_rules`] renders, substitutes `$(NAME)` from that shard's environment as
//! the config-reloader does (`SHARD`, `SHARDS` and [`super::extra_env`]; an unset name is an
//! error), and evaluates them with Prometheus semantics (`hashmod`: MD5 of the source values
//! joined with the separator, last 8 bytes big-endian, modulo; `keep`: the regex anchored at
//! both ends). A target must be kept by exactly one shard.
//!
//! Run it with `cargo run --release -p agent-operator-render --example shard_sim`.

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};

use api::ShardingStrategy;
use regex::Regex;

use super::{extra_env, hash64, relabel_rules};
use crate::relabel::RelabelRule;

/// Prometheus' default relabel separator.
const DEFAULT_SEPARATOR: &str = ";";

/// `count` synthetic scrape addresses shaped like pod endpoints: `10.<a>.<b>.<c>:<port>`,
/// 200 pods per /24, four common exporter ports.
pub fn synthetic_targets(count: usize) -> Vec<String> {
    const PORTS: [u16; 4] = [8080, 9100, 9090, 8443];
    (0..count)
        .map(|i| {
            let pod = i / PORTS.len();
            let subnet = pod / 200;
            format!(
                "10.{}.{}.{}:{}",
                244 + subnet / 256,
                subnet % 256,
                10 + pod % 200,
                PORTS[i % PORTS.len()]
            )
        })
        .collect()
}

/// Replaces every `$(NAME)` (`NAME` of `[a-zA-Z_0-9]+`) with `env[NAME]`, as the
/// config-reloader does (spec 3.11); an unset name is an error.
pub fn expand_reloader_env(text: &str, env: &BTreeMap<String, String>) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("$(") {
        let after = &rest[start + 2..];
        let name_len = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(after.len());
        if name_len == 0 || !after[name_len..].starts_with(')') {
            // Not a reference: keep the `$(` and go on after it.
            out.push_str(&rest[..start + 2]);
            rest = after;
            continue;
        }
        let name = &after[..name_len];
        let value = env
            .get(name)
            .ok_or_else(|| format!("environment variable {name} is not set"))?;
        out.push_str(&rest[..start]);
        out.push_str(value);
        rest = &after[name_len + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// The environment one shard's pods get for sharding: `SHARD`, `SHARDS`, then
/// [`extra_env`] (the order the workloads put them in).
pub fn shard_env(strategy: ShardingStrategy, shard: u32, shards: u32) -> BTreeMap<String, String> {
    let mut env = BTreeMap::new();
    env.insert("SHARD".to_owned(), shard.to_string());
    env.insert("SHARDS".to_owned(), shards.to_string());
    env.extend(extra_env(strategy, shard, shards));
    env
}

/// One relabel rule after env substitution, in the subset of actions sharding uses.
#[derive(Debug)]
enum Step {
    HashMod {
        sources: Vec<String>,
        separator: String,
        modulus: u64,
        target: String,
    },
    Filter {
        sources: Vec<String>,
        separator: String,
        regex: Regex,
        keep: bool,
        /// Match results by input: sharding filters see few distinct hash values, and
        /// regex matching dominates the simulation's time otherwise.
        matches: RefCell<HashMap<String, bool>>,
    },
}

/// One shard's relabel rules, substituted and compiled.
#[derive(Debug)]
pub struct ShardRules {
    steps: Vec<Step>,
}

impl ShardRules {
    /// Substitutes `env` into `rules` and compiles them. Supports `hashmod`, `keep` and
    /// `drop`, which is all sharding emits.
    pub fn compile(rules: &[RelabelRule], env: &BTreeMap<String, String>) -> Result<Self, String> {
        let mut steps = Vec::with_capacity(rules.len());
        for (i, rule) in rules.iter().enumerate() {
            let expand =
                |s: &str| expand_reloader_env(s, env).map_err(|e| format!("rule {i}: {e}"));
            let sources = rule
                .source_labels
                .iter()
                .map(|s| expand(s))
                .collect::<Result<Vec<_>, _>>()?;
            let separator = expand(rule.separator.as_deref().unwrap_or(DEFAULT_SEPARATOR))?;
            let action = rule
                .action
                .as_deref()
                .unwrap_or("replace")
                .to_ascii_lowercase();
            steps.push(match action.as_str() {
                "hashmod" => Step::HashMod {
                    sources,
                    separator,
                    modulus: rule
                        .modulus
                        .filter(|m| *m > 0)
                        .ok_or_else(|| format!("rule {i}: hashmod without a modulus"))?,
                    target: expand(
                        rule.target_label
                            .as_deref()
                            .ok_or_else(|| format!("rule {i}: hashmod without a target"))?,
                    )?,
                },
                "keep" | "drop" => {
                    let pattern = expand(rule.regex.as_deref().unwrap_or("(.*)"))?;
                    // Prometheus anchors relabel regexes at both ends.
                    let regex = Regex::new(&format!("^(?:{pattern})$"))
                        .map_err(|e| format!("rule {i}: regex {pattern:?}: {e}"))?;
                    Step::Filter {
                        sources,
                        separator,
                        regex,
                        keep: action == "keep",
                        matches: RefCell::new(HashMap::new()),
                    }
                }
                other => return Err(format!("rule {i}: action {other} is not simulated")),
            });
        }
        Ok(ShardRules { steps })
    }

    /// Whether the rules keep a target with these labels. `hashes` memoizes [`hash64`] by
    /// input, since every shard hashes the same values.
    pub fn keeps(
        &self,
        labels: &BTreeMap<String, String>,
        hashes: &mut HashMap<String, u64>,
    ) -> bool {
        // Labels the rules set, looked up before `labels` (kept small and unshared rather
        // than cloning the target's labels for every shard).
        let mut written: Vec<(&str, String)> = Vec::new();
        for step in &self.steps {
            match step {
                Step::HashMod {
                    sources,
                    separator,
                    modulus,
                    target,
                } => {
                    let value = joined(labels, &written, sources, separator);
                    let hash = match hashes.get(value.as_ref()) {
                        Some(hash) => *hash,
                        None => {
                            let hash = hash64(&value);
                            hashes.insert(value.into_owned(), hash);
                            hash
                        }
                    };
                    let result = (hash % modulus).to_string();
                    match written.iter_mut().find(|(name, _)| *name == target) {
                        Some((_, old)) => *old = result,
                        None => written.push((target, result)),
                    }
                }
                Step::Filter {
                    sources,
                    separator,
                    regex,
                    keep,
                    matches,
                } => {
                    let value = joined(labels, &written, sources, separator);
                    let mut matches = matches.borrow_mut();
                    let matched = match matches.get(value.as_ref()) {
                        Some(matched) => *matched,
                        None => {
                            let matched = regex.is_match(&value);
                            matches.insert(value.into_owned(), matched);
                            matched
                        }
                    };
                    if matched != *keep {
                        return false;
                    }
                }
            }
        }
        true
    }
}

/// Source label values joined with the separator, from the labels the rules wrote or else
/// the target's; a missing label is the empty string. One source borrows its value.
fn joined<'a>(
    labels: &'a BTreeMap<String, String>,
    written: &'a [(&str, String)],
    sources: &[String],
    separator: &str,
) -> Cow<'a, str> {
    let value_of = |source: &String| {
        written
            .iter()
            .find(|(name, _)| *name == source.as_str())
            .map(|(_, v)| v.as_str())
            .or_else(|| labels.get(source).map(String::as_str))
            .unwrap_or("")
    };
    match sources {
        [one] => Cow::Borrowed(value_of(one)),
        many => Cow::Owned(
            many.iter()
                .map(value_of)
                .collect::<Vec<_>>()
                .join(separator),
        ),
    }
}

/// The shard that keeps each target (by `__address__`) with `shards` shards, evaluating
/// every shard's rendered rules. Fails when a target is kept by no shard or by several.
pub fn assign(
    strategy: ShardingStrategy,
    shards: u32,
    targets: &[String],
    hashes: &mut HashMap<String, u64>,
) -> Result<Vec<u32>, String> {
    let shards = shards.max(1);
    let rules = relabel_rules(strategy, shards, "__address__");
    let compiled = (0..shards)
        .map(|shard| {
            ShardRules::compile(&rules, &shard_env(strategy, shard, shards))
                .map_err(|e| format!("shard {shard} of {shards}: {e}"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut owners = Vec::with_capacity(targets.len());
    for target in targets {
        let labels = BTreeMap::from([("__address__".to_owned(), target.clone())]);
        let keepers: Vec<u32> = (0..shards)
            .filter(|shard| compiled[*shard as usize].keeps(&labels, hashes))
            .collect();
        match keepers.as_slice() {
            [one] => owners.push(*one),
            [] => return Err(format!("{shards} shards: no shard keeps {target}")),
            many => {
                return Err(format!(
                    "{shards} shards: {target} is kept by shards {many:?}"
                ));
            }
        }
    }
    Ok(owners)
}

/// Largest shard / mean shard size.
pub fn balance(owners: &[u32], shards: u32) -> f64 {
    let shards = shards.max(1);
    let mut sizes = vec![0usize; shards as usize];
    for owner in owners {
        sizes[*owner as usize] += 1;
    }
    let largest = sizes.iter().copied().max().unwrap_or(0) as f64;
    let mean = owners.len() as f64 / f64::from(shards);
    if mean == 0.0 { 0.0 } else { largest / mean }
}

/// The fraction of targets whose shard differs between two assignments.
pub fn moved_fraction(before: &[u32], after: &[u32]) -> f64 {
    if before.is_empty() {
        return 0.0;
    }
    let moved = before.iter().zip(after).filter(|(a, b)| a != b).count();
    moved as f64 / before.len() as f64
}

/// The figures of one shard count N, and of the step N -> N+1.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub shards: u32,
    /// Fraction of targets on another shard after going from N to N+1 shards.
    pub moved_hashmod: f64,
    pub moved_consistent: f64,
    /// Largest shard / mean with N shards.
    pub balance_hashmod: f64,
    pub balance_consistent: f64,
    /// Length of the longest `SHARD_BUCKETS` value with N shards.
    pub longest_env_value: usize,
}

/// The simulation over `1..=max_shards` (each row also steps to N+1).
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    pub targets: usize,
    pub rows: Vec<Row>,
}

/// Assigns `targets` with 1..=max_shards+1 shards under both strategies and reports, for
/// each N up to `max_shards`, the moved fraction N -> N+1 and the balance at N.
pub fn simulate(targets: &[String], max_shards: u32) -> Result<Report, String> {
    let mut hashes = HashMap::with_capacity(targets.len());
    let mut assignments = |strategy| {
        (1..=max_shards + 1)
            .map(|n| assign(strategy, n, targets, &mut hashes))
            .collect::<Result<Vec<_>, _>>()
    };
    let hashmod = assignments(ShardingStrategy::Hashmod)?;
    let consistent = assignments(ShardingStrategy::Consistent)?;
    let rows = (1..=max_shards)
        .map(|n| {
            let at = (n - 1) as usize;
            Row {
                shards: n,
                moved_hashmod: moved_fraction(&hashmod[at], &hashmod[at + 1]),
                moved_consistent: moved_fraction(&consistent[at], &consistent[at + 1]),
                balance_hashmod: balance(&hashmod[at], n),
                balance_consistent: balance(&consistent[at], n),
                longest_env_value: (0..n)
                    .map(|shard| super::shard_buckets_regex(shard, n).len())
                    .max()
                    .unwrap_or(0),
            }
        })
        .collect();
    Ok(Report {
        targets: targets.len(),
        rows,
    })
}

impl Report {
    /// The report as a Markdown table (the one in docs/sharding.md).
    pub fn to_markdown(&self) -> String {
        let mut out = format!(
            "{} targets. `moved` is the fraction of targets on another shard after N -> N+1 \
             (the minimum is 1/(N+1)); `balance` is the largest shard / mean at N.\n\n",
            self.targets
        );
        out.push_str(
            "| N -> N+1 | 1/(N+1) | moved, hashmod | moved, consistent | balance at N, hashmod | balance at N, consistent | longest SHARD_BUCKETS |\n",
        );
        out.push_str("|---|---|---|---|---|---|---|\n");
        for row in &self.rows {
            out.push_str(&format!(
                "| {} -> {} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {} |\n",
                row.shards,
                row.shards + 1,
                1.0 / f64::from(row.shards + 1),
                row.moved_hashmod,
                row.moved_consistent,
                row.balance_hashmod,
                row.balance_consistent,
                row.longest_env_value,
            ));
        }
        out
    }
}
