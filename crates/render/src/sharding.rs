//! How metrics targets are split between shards: the relabel rules every sharded scrape job
//! ends with, and the environment each shard's pods get to evaluate them.
//!
//! Two strategies (`spec.metrics.shardingStrategy`):
//!
//! * `hashmod` (default, upstream's, Q1 kept): `hashmod(source) mod S` into `__tmp_hash`, then
//!   keep `$(SHARD)`. Changing S from N to N+1 moves about N/(N+1) of all targets.
//! * `consistent`: `hashmod(source) mod` [`CONSISTENT_BUCKETS`] into `__tmp_hash`, then keep
//!   `$(SHARD_BUCKETS)`, a regex listing the buckets this shard owns. The buckets are spread
//!   over the shards by [`bucket_owners`], which keeps every shard within one bucket of the
//!   others and, going from N to N+1 shards, only hands buckets to the new shard: exactly the
//!   new shard's share moves, about 1/(N+1).
//!
//! Both keep one config Secret for all shards: the per-shard part reaches the agent through
//! the StatefulSet's environment, which the config-reloader substitutes for `$(NAME)` (spec
//! 3.11). See docs/sharding.md.

pub mod simulate;

use std::cell::RefCell;
use std::rc::Rc;

use api::ShardingStrategy;
use api::grafana_agent::MetricsSubsystemSpec;
use md5::{Digest, Md5};

use crate::expansion::ConfigString;
use crate::relabel::RelabelRule;

/// Effective shard count: `shards` when above 1, else 1 (spec 3.6).
pub fn effective_shards(metrics: Option<&MetricsSubsystemSpec>) -> i32 {
    metrics
        .and_then(|m| m.shards)
        .filter(|s| *s > 1)
        .unwrap_or(1)
}

/// The label the hash is written to before the keep rule reads it.
pub const HASH_LABEL: &str = "__tmp_hash";

/// The number of buckets targets hash into with the `consistent` strategy. It is fixed for
/// good: changing it would move almost every target. 4096 keeps shards within 2% of each
/// other in bucket count up to 64 shards, and balanced to one bucket up to 4096 shards.
pub const CONSISTENT_BUCKETS: u64 = 4096;

/// The environment variable holding, for one shard, the regex of the buckets it keeps
/// (`consistent` strategy only).
pub const SHARD_BUCKETS_ENV: &str = "SHARD_BUCKETS";

/// The value of [`SHARD_BUCKETS_ENV`] for a shard that owns no bucket (only possible with
/// more than [`CONSISTENT_BUCKETS`] shards): hash values are digits, so it never matches.
pub const NO_BUCKETS_REGEX: &str = "(none)";

/// The rules appended to a scrape job so that each shard keeps only its targets, hashing
/// `source_label` (`__address__` for monitors, `__param_target` for Probes).
///
/// * `hashmod` (upstream, Q1): `hashmod(source) mod shards`, keep `$(SHARD)`.
/// * `consistent`: `hashmod(source) mod CONSISTENT_BUCKETS`, keep `$(SHARD_BUCKETS)`. The rules
///   do not depend on the shard count, so resizing does not change the config Secret.
pub fn relabel_rules(
    strategy: ShardingStrategy,
    shards: u32,
    source_label: &str,
) -> Vec<RelabelRule> {
    let (modulus, keep_regex) = match strategy {
        ShardingStrategy::Hashmod => (u64::from(shards.max(1)), "$(SHARD)".to_owned()),
        ShardingStrategy::Consistent => (CONSISTENT_BUCKETS, format!("$({SHARD_BUCKETS_ENV})")),
    };
    let keep = RelabelRule {
        regex: Some(ConfigString::PodVariable(keep_regex)),
        ..RelabelRule::filter(HASH_LABEL, "", "keep")
    };
    vec![
        RelabelRule {
            source_labels: vec![source_label.to_owned()],
            target_label: Some(HASH_LABEL.to_owned()),
            modulus: Some(modulus),
            action: Some("hashmod".to_owned()),
            ..Default::default()
        },
        keep,
    ]
}

/// `rules` without the two sharding rules [`relabel_rules`] appended, when they end it: what
/// an Alloy cluster's scrape jobs keep, since the cluster shares the targets itself
/// (`spec.alloy.clustering`). The pair is recognised by its keep rule's regex, a
/// [`ConfigString::PodVariable`], which only the operator writes: a user's own `hashmod`
/// and `$(SHARD)` rules are never taken for it.
pub fn without_sharding_rules(rules: &[RelabelRule]) -> &[RelabelRule] {
    match rules {
        [rest @ .., hash, keep]
            if hash.action.as_deref() == Some("hashmod")
                && hash.target_label.as_deref() == Some(HASH_LABEL)
                && keep.action.as_deref() == Some("keep")
                && keep.source_labels == [HASH_LABEL]
                && matches!(keep.regex, Some(ConfigString::PodVariable(_))) =>
        {
            rest
        }
        _ => rules,
    }
}

/// Environment variables (besides `SHARD` and `SHARDS`) that shard `shard` of `shards` needs
/// for the rules of [`relabel_rules`]: none for `hashmod` (the pods stay as upstream's), and
/// `SHARD_BUCKETS` for `consistent`.
pub fn extra_env(strategy: ShardingStrategy, shard: u32, shards: u32) -> Vec<(String, String)> {
    match strategy {
        ShardingStrategy::Hashmod => Vec::new(),
        ShardingStrategy::Consistent => vec![(
            SHARD_BUCKETS_ENV.to_owned(),
            shard_buckets_regex(shard, shards),
        )],
    }
}

/// Prometheus' `hashmod` before the modulo: the MD5 of `value`, last 8 bytes read as a
/// big-endian u64 (Prometheus `relabel.go`: `binary.BigEndian.Uint64(sum[8:])`).
pub fn hash64(value: &str) -> u64 {
    let digest = Md5::digest(value.as_bytes());
    let mut last8 = [0u8; 8];
    last8.copy_from_slice(&digest[8..16]);
    u64::from_be_bytes(last8)
}

/// Prometheus' `hashmod` action on an already joined source value (source label values
/// joined with the rule's separator, `;` by default). `modulus` 0 is treated as 1, as the
/// rules never emit it and Prometheus rejects it.
pub fn hashmod(value: &str, modulus: u64) -> u64 {
    hash64(value) % modulus.max(1)
}

/// Which shard keeps a target whose hashed source value is `value`, as the rendered rules
/// decide it (the simulation checks that the rules and this function agree).
pub fn shard_of(strategy: ShardingStrategy, shards: u32, value: &str) -> u32 {
    match strategy {
        ShardingStrategy::Hashmod => hashmod(value, u64::from(shards.max(1))) as u32,
        ShardingStrategy::Consistent => {
            let owners = bucket_owners(shards);
            owners[hashmod(value, CONSISTENT_BUCKETS) as usize]
        }
    }
}

thread_local! {
    /// The last assignment computed: a plan asks for every shard of the same shard count in
    /// a row, and each assignment costs O(min(S, buckets) x buckets).
    static LAST_OWNERS: RefCell<Option<(u32, Rc<Vec<u32>>)>> = const { RefCell::new(None) };
}

/// The owner shard of every bucket `0..CONSISTENT_BUCKETS` when there are `shards` shards.
///
/// Built shard by shard, starting with everything on shard 0. Going from n to n+1 shards,
/// every shard's quota becomes `buckets / (n+1)`, the remainder going one each to the shards
/// that hold the most buckets (lowest index first); each old shard hands its buckets above
/// its quota, highest-numbered first, to the new shard. So:
/// * shard counts differ by at most one bucket (balance);
/// * only buckets given to the new shard move, `buckets / (n+1)` of them (the minimum), and
///   going back from n+1 to n moves the same buckets back;
/// * a shard's buckets form a few contiguous ranges (at most one per older shard), which
///   keeps [`shard_buckets_regex`] short.
///
/// Shards past the bucket count own nothing; the assignment stops changing there.
pub fn bucket_owners(shards: u32) -> Rc<Vec<u32>> {
    let shards = shards.max(1);
    if let Some(cached) = LAST_OWNERS.with(|last| {
        last.borrow()
            .as_ref()
            .filter(|(n, _)| *n == shards)
            .map(|(_, owners)| Rc::clone(owners))
    }) {
        return cached;
    }
    let owners = Rc::new(compute_bucket_owners(shards));
    LAST_OWNERS.with(|last| *last.borrow_mut() = Some((shards, Rc::clone(&owners))));
    owners
}

fn compute_bucket_owners(shards: u32) -> Vec<u32> {
    let buckets = CONSISTENT_BUCKETS as usize;
    let mut owners = vec![0u32; buckets];
    let mut counts = vec![buckets];
    // Past `buckets` shards every shard holds at most one bucket and new shards get none.
    let steps = (shards as usize).min(buckets);
    for new_shard in 1..steps {
        let total = new_shard + 1;
        let base = buckets / total;
        let remainder = buckets % total;
        // The shards that keep one bucket more: the fullest ones, lowest index first. Counts
        // are within one of each other, so "fullest" is "holds the current maximum".
        let fullest = counts.iter().copied().max().unwrap_or(0);
        let by_fullness = (0..new_shard)
            .filter(|s| counts[*s] == fullest)
            .chain((0..new_shard).filter(|s| counts[*s] != fullest));
        let mut excess = vec![0usize; new_shard];
        for (rank, shard) in by_fullness.enumerate() {
            let quota = base + usize::from(rank < remainder);
            // Never negative: every old shard holds at least its new quota (the argument is
            // in docs/sharding.md); saturating only guards the arithmetic.
            excess[shard] = counts[shard].saturating_sub(quota);
        }
        counts.push(0);
        for owner in owners.iter_mut().rev() {
            let from = *owner as usize;
            if excess[from] > 0 {
                excess[from] -= 1;
                counts[from] -= 1;
                counts[new_shard] += 1;
                *owner = new_shard as u32;
            }
        }
    }
    owners
}

/// The buckets shard `shard` owns, as sorted inclusive ranges.
pub fn shard_bucket_ranges(shard: u32, shards: u32) -> Vec<(u64, u64)> {
    let owners = bucket_owners(shards);
    let mut ranges: Vec<(u64, u64)> = Vec::new();
    for (bucket, owner) in owners.iter().enumerate() {
        if *owner != shard {
            continue;
        }
        let bucket = bucket as u64;
        match ranges.last_mut() {
            Some((_, end)) if *end + 1 == bucket => *end = bucket,
            _ => ranges.push((bucket, bucket)),
        }
    }
    ranges
}

/// The value of `SHARD_BUCKETS` for shard `shard` of `shards`: an RE2 regex, without anchors
/// (Prometheus anchors relabel regexes), matching exactly the decimal bucket numbers the
/// shard owns. It is wrapped in parentheses and uses only digits, `[`, `]`, `-`, `|`, `(` and
/// `)`, so it survives the reloader's substitution into any YAML scalar style and the
/// agent's `$VAR` expansion unchanged.
pub fn shard_buckets_regex(shard: u32, shards: u32) -> String {
    let ranges = shard_bucket_ranges(shard, shards);
    if ranges.is_empty() {
        return NO_BUCKETS_REGEX.to_owned();
    }
    let alternatives: Vec<String> = ranges
        .iter()
        .flat_map(|(lo, hi)| decimal_range_alternatives(*lo, *hi))
        .collect();
    format!("({})", alternatives.join("|"))
}

/// Regex alternatives matching the decimal forms (no leading zeros) of `lo..=hi`.
pub fn decimal_range_alternatives(lo: u64, hi: u64) -> Vec<String> {
    let mut out = Vec::new();
    if lo > hi {
        return out;
    }
    // Split into runs of equal digit count: 0-9, 10-99, 100-999, ...
    let mut start = lo;
    loop {
        let digits = start.to_string().len() as u32;
        let last_of_width = 10u64
            .checked_pow(digits)
            .map_or(u64::MAX, |p| p - 1)
            .min(hi);
        out.extend(same_width_alternatives(
            &start.to_string(),
            &last_of_width.to_string(),
        ));
        if last_of_width >= hi {
            break;
        }
        start = last_of_width + 1;
    }
    out
}

/// Alternatives matching every digit string of the same length between `lo` and `hi`
/// (inclusive, `lo <= hi`), position by position.
fn same_width_alternatives(lo: &str, hi: &str) -> Vec<String> {
    if lo == hi {
        return vec![lo.to_owned()];
    }
    let (lo_first, lo_rest) = lo.split_at(1);
    let (hi_first, hi_rest) = hi.split_at(1);
    if lo_rest.is_empty() {
        return vec![digit_class(lo_first, hi_first)];
    }
    if lo_first == hi_first {
        return same_width_alternatives(lo_rest, hi_rest)
            .into_iter()
            .map(|tail| format!("{lo_first}{tail}"))
            .collect();
    }
    let width = lo_rest.len();
    let any_tail = "[0-9]".repeat(width);
    let lo_digit = lo_first.as_bytes()[0];
    let hi_digit = hi_first.as_bytes()[0];
    let mut out = Vec::new();
    // The lowest leading digit, when it does not cover its whole tail range.
    let full_from = if lo_rest.bytes().all(|b| b == b'0') {
        lo_digit
    } else {
        out.extend(
            same_width_alternatives(lo_rest, &"9".repeat(width))
                .into_iter()
                .map(|tail| format!("{lo_first}{tail}")),
        );
        lo_digit + 1
    };
    // The highest leading digit, when it does not cover its whole tail range.
    let (full_to, upper) = if hi_rest.bytes().all(|b| b == b'9') {
        (hi_digit, Vec::new())
    } else {
        let upper = same_width_alternatives(&"0".repeat(width), hi_rest)
            .into_iter()
            .map(|tail| format!("{hi_first}{tail}"))
            .collect();
        (hi_digit - 1, upper)
    };
    if full_from <= full_to {
        let from = char::from(full_from).to_string();
        let to = char::from(full_to).to_string();
        out.push(format!("{}{any_tail}", digit_class(&from, &to)));
    }
    out.extend(upper);
    out
}

/// `7`, `[3-5]` or `[0-9]` for one digit position.
fn digit_class(lo: &str, hi: &str) -> String {
    if lo == hi {
        lo.to_owned()
    } else {
        format!("[{lo}-{hi}]")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_operators_trailing_sharding_rules_are_removed() {
        let user = RelabelRule::set("team", "a");
        for strategy in [ShardingStrategy::Hashmod, ShardingStrategy::Consistent] {
            let mut rules = vec![user.clone()];
            rules.extend(relabel_rules(strategy, 3, "__address__"));
            assert_eq!(without_sharding_rules(&rules), std::slice::from_ref(&user));
        }
        // A user's own pair, written as upstream documents it: its `$(SHARD)` is a user
        // string, not the operator's variable, so it stays.
        let mut own = relabel_rules(ShardingStrategy::Hashmod, 3, "__address__");
        own[1].regex = Some(ConfigString::from("$(SHARD)"));
        assert_eq!(without_sharding_rules(&own), own.as_slice());
        // Not at the end (a Probe with one shard has none): nothing is removed.
        let mut inner = relabel_rules(ShardingStrategy::Hashmod, 3, "__param_target");
        inner.push(user.clone());
        assert_eq!(without_sharding_rules(&inner), inner.as_slice());
        assert!(without_sharding_rules(&[]).is_empty());
    }

    #[test]
    fn digit_class_forms() {
        assert_eq!(digit_class("4", "4"), "4");
        assert_eq!(digit_class("0", "9"), "[0-9]");
    }

    #[test]
    fn range_alternatives_of_all_buckets() {
        assert_eq!(
            decimal_range_alternatives(0, 4095),
            vec![
                "[0-9]",
                "[1-9][0-9]",
                "[1-9][0-9][0-9]",
                "[1-3][0-9][0-9][0-9]",
                "40[0-8][0-9]",
                "409[0-5]"
            ]
        );
        assert_eq!(decimal_range_alternatives(7, 7), vec!["7"]);
        assert_eq!(decimal_range_alternatives(8, 12), vec!["[8-9]", "1[0-2]"]);
        assert!(decimal_range_alternatives(5, 4).is_empty());
    }
}
