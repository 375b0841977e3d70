//! PodLogs pipeline stages → promtail `pipeline_stages` entries (spec 4.14).
//!
//! Each [`PipelineStageSpec`] becomes one map holding every stage it sets (the operator does
//! not enforce "one stage per entry", as upstream). The `stages` of a `match` stage is a YAML
//! string (a CRD schema cannot be recursive); it is parsed into stages and rendered with these
//! same rules.

use std::collections::BTreeMap;

use api::pod_logs::{
    DropStageSpec, JsonStageSpec, LimitStageSpec, MatchStageSpec, MetricsStageSpec,
    MultilineStageSpec, PipelineStageSpec, TimestampStageSpec,
};
use serde::Serialize;
use serde_json::Value;

use super::go_template;
use crate::config::common::{FieldError, check_regex, non_empty};
use crate::config::metrics::validate::{go_duration, is_label_name};
use crate::rejection::Reason;

/// How deep `match` stages may nest. Real pipelines use two or three levels; the limit only
/// keeps a hostile YAML string from exhausting the stack.
pub const MAX_MATCH_DEPTH: usize = 32;

/// One promtail pipeline stage entry, keys in spec 4.14 order.
#[derive(Serialize, Clone, Debug, Default, PartialEq)]
pub struct StageConfig {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub docker: Option<EmptyStage>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cri: Option<EmptyStage>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub regex: Option<RegexStage>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub json: Option<JsonStage>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replace: Option<ReplaceStage>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub template: Option<TemplateStage>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pack: Option<PackStage>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<TimestampStage>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output: Option<OutputStage>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub labeldrop: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub labelallow: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub labels: Option<BTreeMap<String, String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit: Option<LimitStage>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metrics: Option<BTreeMap<String, MetricStage>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub multiline: Option<MultilineStage>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tenant: Option<TenantStage>,
    #[serde(rename = "match", skip_serializing_if = "Option::is_none")]
    pub match_: Option<MatchStage>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub drop: Option<DropStage>,
}

/// `docker: {}` and `cri: {}`.
#[derive(Serialize, Clone, Debug, Default, PartialEq, Eq)]
pub struct EmptyStage {}

#[derive(Serialize, Clone, Debug, Default, PartialEq, Eq)]
pub struct RegexStage {
    pub expression: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

#[derive(Serialize, Clone, Debug, Default, PartialEq, Eq)]
pub struct JsonStage {
    /// As given: an empty expression means "the key itself", so empty values are kept.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub expressions: BTreeMap<String, String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

#[derive(Serialize, Clone, Debug, Default, PartialEq, Eq)]
pub struct ReplaceStage {
    pub expression: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replace: Option<String>,
}

#[derive(Serialize, Clone, Debug, Default, PartialEq, Eq)]
pub struct TemplateStage {
    pub source: String,
    pub template: String,
}

#[derive(Serialize, Clone, Debug, Default, PartialEq, Eq)]
pub struct PackStage {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub labels: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ingest_timestamp: Option<bool>,
}

#[derive(Serialize, Clone, Debug, Default, PartialEq, Eq)]
pub struct TimestampStage {
    pub source: String,
    pub format: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fallback_formats: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub action_on_failure: Option<String>,
}

#[derive(Serialize, Clone, Debug, Default, PartialEq, Eq)]
pub struct OutputStage {
    pub source: String,
}

#[derive(Serialize, Clone, Debug, Default, PartialEq, Eq)]
pub struct LimitStage {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rate: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub burst: Option<i64>,
    /// Always written, `false` included (upstream's template does not trim it).
    pub drop: bool,
}

/// One entry of a `metrics` stage.
#[derive(Serialize, Clone, Debug, Default, PartialEq)]
pub struct MetricStage {
    #[serde(rename = "type")]
    pub type_: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prefix: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_idle_duration: Option<String>,
    pub config: MetricStageConfig,
}

#[derive(Serialize, Clone, Debug, Default, PartialEq)]
pub struct MetricStageConfig {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub match_all: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub count_entry_bytes: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    pub action: String,
    /// Numbers: integers when whole, floats otherwise.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub buckets: Vec<serde_json::Number>,
}

#[derive(Serialize, Clone, Debug, Default, PartialEq, Eq)]
pub struct MultilineStage {
    pub firstline: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_wait_time: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_lines: Option<i64>,
}

#[derive(Serialize, Clone, Debug, Default, PartialEq, Eq)]
pub struct TenantStage {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
}

#[derive(Serialize, Clone, Debug, Default, PartialEq)]
pub struct MatchStage {
    pub selector: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pipeline_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub drop_counter_reason: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stages: Vec<StageConfig>,
}

#[derive(Serialize, Clone, Debug, Default, PartialEq, Eq)]
pub struct DropStage {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expression: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub older_than: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub longer_than: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub drop_counter_reason: Option<String>,
}

/// Renders `stages`; `field` is the JSON path of the list (e.g. `spec.pipelineStages`).
/// Promtail's defaults written out, for Alloy: its static converter copies an unset metric
/// `maxIdleDuration`, multiline `maxWaitTime` or `maxLines`, or pack `ingestTimestamp` as zero
/// or false, which Alloy refuses with the whole logs config ("max_idle_duration must be greater
/// or equal than 1s") or runs otherwise than the agent would. The agent reads these values as
/// it reads them unset; nested `match` stages get them too.
pub fn with_promtail_defaults(stages: &mut [StageConfig]) {
    for stage in stages {
        for metric in stage.metrics.iter_mut().flat_map(|m| m.values_mut()) {
            metric
                .max_idle_duration
                .get_or_insert_with(|| PROMTAIL_METRIC_MAX_IDLE.to_owned());
        }
        if let Some(multiline) = &mut stage.multiline {
            multiline
                .max_wait_time
                .get_or_insert_with(|| PROMTAIL_MULTILINE_MAX_WAIT.to_owned());
            multiline
                .max_lines
                .get_or_insert(PROMTAIL_MULTILINE_MAX_LINES);
        }
        if let Some(pack) = &mut stage.pack {
            pack.ingest_timestamp.get_or_insert(true);
        }
        if let Some(nested) = &mut stage.match_ {
            with_promtail_defaults(&mut nested.stages);
        }
    }
}

/// Promtail's (and Alloy's) defaults of the settings [`with_promtail_defaults`] writes.
const PROMTAIL_METRIC_MAX_IDLE: &str = "5m";
const PROMTAIL_MULTILINE_MAX_WAIT: &str = "3s";
const PROMTAIL_MULTILINE_MAX_LINES: i64 = 128;

pub fn stages(stages: &[PipelineStageSpec], field: &str) -> Result<Vec<StageConfig>, FieldError> {
    stages_at_depth(stages, field, 0)
}

fn stages_at_depth(
    stages: &[PipelineStageSpec],
    field: &str,
    depth: usize,
) -> Result<Vec<StageConfig>, FieldError> {
    stages
        .iter()
        .enumerate()
        .map(|(i, s)| stage(s, &format!("{field}[{i}]"), depth))
        .collect()
}

/// Renders one stage entry; `field` is its JSON path. Values promtail would refuse (a
/// regular expression or duration it cannot parse, an invalid label name) are errors: the
/// PodLogs is left out rather than run with a different pipeline.
pub fn stage(s: &PipelineStageSpec, field: &str, depth: usize) -> Result<StageConfig, FieldError> {
    check(s, field)?;
    let out = StageConfig {
        docker: s.docker.as_ref().map(|_| EmptyStage {}),
        cri: s.cri.as_ref().map(|_| EmptyStage {}),
        regex: s.regex.as_ref().map(|r| RegexStage {
            expression: r.expression.clone(),
            source: non_empty(&r.source),
        }),
        json: s.json.as_ref().map(json),
        replace: s.replace.as_ref().map(|r| ReplaceStage {
            expression: r.expression.clone(),
            source: non_empty(&r.source),
            replace: non_empty(&r.replace),
        }),
        template: s.template.as_ref().map(|t| TemplateStage {
            source: t.source.clone(),
            template: t.template.clone(),
        }),
        pack: s.pack.as_ref().map(|p| PackStage {
            labels: p.labels.clone(),
            ingest_timestamp: p.ingest_timestamp.then_some(true),
        }),
        timestamp: s.timestamp.as_ref().map(timestamp),
        output: s.output.as_ref().map(|o| OutputStage {
            source: o.source.clone(),
        }),
        labeldrop: s.label_drop.clone().filter(|l| !l.is_empty()),
        labelallow: s.label_allow.clone().filter(|l| !l.is_empty()),
        labels: s.labels.clone().filter(|l| !l.is_empty()),
        limit: s.limit.as_ref().map(limit),
        metrics: match &s.metrics {
            Some(m) if !m.is_empty() => Some(metrics(m, &format!("{field}.metrics"))?),
            _ => None,
        },
        multiline: s.multiline.as_ref().map(multiline),
        tenant: s.tenant.as_ref().map(|t| TenantStage {
            label: non_empty(&t.label),
            source: non_empty(&t.source),
            value: non_empty(&t.value),
        }),
        match_: s
            .r#match
            .as_ref()
            .map(|m| match_stage(m, &format!("{field}.match"), depth))
            .transpose()?,
        drop: s.drop.as_ref().map(drop),
    };
    check_one_stage(&out, field)?;
    if let Some(t) = &out.tenant {
        check_tenant(t, &format!("{field}.tenant"))?;
    }
    Ok(out)
}

/// Promtail builds one stage from each entry and refuses an entry with two (`cri: {}` and
/// `labelDrop` together: "pipeline stage must contain only one key"), which stops every
/// logs instance of the agent; upstream's operator writes such an entry as it is.
fn check_one_stage(out: &StageConfig, field: &str) -> Result<(), FieldError> {
    let set: Vec<&str> = [
        ("docker", out.docker.is_some()),
        ("cri", out.cri.is_some()),
        ("regex", out.regex.is_some()),
        ("json", out.json.is_some()),
        ("replace", out.replace.is_some()),
        ("template", out.template.is_some()),
        ("pack", out.pack.is_some()),
        ("timestamp", out.timestamp.is_some()),
        ("output", out.output.is_some()),
        ("labelDrop", out.labeldrop.is_some()),
        ("labelAllow", out.labelallow.is_some()),
        ("labels", out.labels.is_some()),
        ("limit", out.limit.is_some()),
        ("metrics", out.metrics.is_some()),
        ("multiline", out.multiline.is_some()),
        ("tenant", out.tenant.is_some()),
        ("match", out.match_.is_some()),
        ("drop", out.drop.is_some()),
    ]
    .into_iter()
    .filter_map(|(name, on)| on.then_some(name))
    .collect();
    if set.len() > 1 {
        return Err(FieldError::because(
            Reason::ConflictingSettings,
            field,
            format!(
                "sets {}: each entry of a pipeline is one stage (write one list entry per stage); the agent refuses the whole config over it: \"pipeline stage must contain only one key\"",
                set.join(" and ")
            ),
        ));
    }
    Ok(())
}

/// Promtail's tenant stage takes exactly one of `label`, `source` and `value`.
fn check_tenant(t: &TenantStage, field: &str) -> Result<(), FieldError> {
    let set: Vec<&str> = [
        ("label", t.label.is_some()),
        ("source", t.source.is_some()),
        ("value", t.value.is_some()),
    ]
    .into_iter()
    .filter_map(|(name, on)| on.then_some(name))
    .collect();
    match set.len() {
        1 => Ok(()),
        0 => Err(FieldError::because(
            Reason::ConflictingSettings,
            field,
            "sets none of label, source and value; the agent refuses the whole config over it: \"label, source or value config are required\"",
        )),
        _ => Err(FieldError::because(
            Reason::ConflictingSettings,
            field,
            format!(
                "sets {}; the agent takes exactly one of label, source and value and refuses the whole config over it: \"label, source and value are mutually exclusive\"",
                set.join(" and ")
            ),
        )),
    }
}

/// The checks of [`stage`] on the values promtail parses itself.
fn check(s: &PipelineStageSpec, field: &str) -> Result<(), FieldError> {
    let regex = |value: Option<&str>, name: &str| match value.filter(|v| !v.is_empty()) {
        Some(re) => check_regex(re, &format!("{field}.{name}")),
        None => Ok(()),
    };
    let duration = |value: &Option<String>, name: &str| match non_empty(value) {
        Some(text) => go_duration(&text).map(|_| ()).map_err(|e| {
            FieldError::because(Reason::InvalidDuration, format!("{field}.{name}"), e)
        }),
        None => Ok(()),
    };
    if let Some(r) = &s.regex {
        regex(Some(&r.expression), "regex.expression")?;
    }
    if let Some(r) = &s.replace {
        regex(Some(&r.expression), "replace.expression")?;
    }
    // Go templates: promtail parses template.template when the agent loads (replace.replace
    // on each line), with the same functions.
    let template = |text: Option<&str>, name: &str| match text {
        Some(text) => go_template::check(text)
            .map_err(|e| FieldError::because(Reason::InvalidValue, format!("{field}.{name}"), e.0)),
        None => Ok(()),
    };
    template(
        s.template.as_ref().map(|t| t.template.as_str()),
        "template.template",
    )?;
    template(
        s.replace.as_ref().and_then(|r| r.replace.as_deref()),
        "replace.replace",
    )?;
    if let Some(m) = &s.multiline {
        regex(Some(&m.first_line), "multiline.firstLine")?;
        duration(&m.max_wait_time, "multiline.maxWaitTime")?;
    }
    if let Some(l) = &s.limit
        && (l.rate.unwrap_or(0) <= 0 || l.burst.unwrap_or(0) <= 0)
    {
        return Err(FieldError::new(
            format!("{field}.limit"),
            "a limit stage needs rate and burst, both above 0; the agent refuses the whole config otherwise: \"limit stage failed to parse rate or burst\"",
        ));
    }
    if let Some(d) = &s.drop {
        regex(d.expression.as_deref(), "drop.expression")?;
        duration(&d.older_than, "drop.olderThan")?;
        if non_empty(&d.value).is_some() && non_empty(&d.expression).is_some() {
            return Err(FieldError::because(
                Reason::ConflictingSettings,
                format!("{field}.drop.value"),
                "sets both value and expression; the agent refuses the whole config over it: \"`value` and `expression` cannot both be defined at the same time\"",
            ));
        }
    }
    for (name, m) in s.metrics.iter().flatten() {
        duration(
            &m.max_idle_duration,
            &format!("metrics.{name}.maxIdleDuration"),
        )?;
    }
    if let Some(bad) = s
        .labels
        .iter()
        .flatten()
        .map(|(k, _)| k)
        .find(|k| !is_label_name(k))
    {
        return Err(FieldError::because(
            Reason::InvalidLabelName,
            crate::config::common::key_path(&format!("{field}.labels"), bad),
            format!("{bad:?} is not a valid label name"),
        ));
    }
    Ok(())
}

fn json(j: &JsonStageSpec) -> JsonStage {
    JsonStage {
        expressions: j.expressions.clone(),
        source: non_empty(&j.source),
    }
}

fn timestamp(t: &TimestampStageSpec) -> TimestampStage {
    TimestampStage {
        source: t.source.clone(),
        format: t.format.clone(),
        fallback_formats: t.fallback_formats.clone(),
        location: non_empty(&t.location),
        action_on_failure: non_empty(&t.action_on_failure),
    }
}

fn limit(l: &LimitStageSpec) -> LimitStage {
    LimitStage {
        rate: l.rate.filter(|r| *r != 0),
        burst: l.burst.filter(|b| *b != 0),
        drop: l.drop.unwrap_or(false),
    }
}

fn multiline(m: &MultilineStageSpec) -> MultilineStage {
    MultilineStage {
        firstline: m.first_line.clone(),
        max_wait_time: non_empty(&m.max_wait_time),
        max_lines: m.max_lines.filter(|n| *n != 0),
    }
}

fn drop(d: &DropStageSpec) -> DropStage {
    DropStage {
        source: non_empty(&d.source),
        expression: non_empty(&d.expression),
        value: non_empty(&d.value),
        older_than: non_empty(&d.older_than),
        longer_than: non_empty(&d.longer_than),
        drop_counter_reason: non_empty(&d.drop_counter_reason),
    }
}

fn metrics(
    metrics: &BTreeMap<String, MetricsStageSpec>,
    field: &str,
) -> Result<BTreeMap<String, MetricStage>, FieldError> {
    metrics
        .iter()
        .map(|(name, m)| {
            let type_ = metric_type(m, &format!("{field}.{name}"))?;
            check_counter(m, &format!("{field}.{name}"))?;
            let buckets = m
                .buckets
                .iter()
                .enumerate()
                .map(|(i, b)| bucket(b, &format!("{field}.{name}.buckets[{i}]")))
                .collect::<Result<_, _>>()?;
            let stage = MetricStage {
                type_,
                description: non_empty(&m.description),
                prefix: non_empty(&m.prefix),
                source: non_empty(&m.source),
                max_idle_duration: non_empty(&m.max_idle_duration),
                config: MetricStageConfig {
                    match_all: m.match_all.filter(|v| *v),
                    count_entry_bytes: m.count_entry_bytes.filter(|v| *v),
                    value: non_empty(&m.value),
                    action: m.action.clone(),
                    buckets,
                },
            };
            Ok((name.clone(), stage))
        })
        .collect()
}

/// What promtail refuses of a counter (the agent and Alloy then refuse the whole logs config):
/// `matchAll` with a `value`, `countEntryBytes` without `matchAll` or with an action other
/// than `add`.
fn check_counter(m: &MetricsStageSpec, field: &str) -> Result<(), FieldError> {
    if !m.type_.eq_ignore_ascii_case("counter") {
        return Ok(());
    }
    let match_all = m.match_all == Some(true);
    if match_all && non_empty(&m.value).is_some() {
        return Err(FieldError::new(
            format!("{field}.matchAll"),
            "a counter with matchAll: true cannot have a value (promtail refuses it): remove matchAll or value",
        ));
    }
    if m.count_entry_bytes == Some(true) {
        if !match_all {
            return Err(FieldError::new(
                format!("{field}.countEntryBytes"),
                "countEntryBytes: true needs matchAll: true (promtail refuses it otherwise)",
            ));
        }
        if !m.action.eq_ignore_ascii_case("add") {
            return Err(FieldError::new(
                format!("{field}.countEntryBytes"),
                format!(
                    "countEntryBytes: true needs action: add, not {:?} (promtail refuses it otherwise)",
                    m.action
                ),
            ));
        }
    }
    Ok(())
}

/// `counter`, `GAUGE`, ... → promtail's spelling. Promtail refuses any other type, and a
/// counter or gauge action it does not know, and the agent then refuses the whole logs config.
fn metric_type(m: &MetricsStageSpec, field: &str) -> Result<String, FieldError> {
    let (spelled, actions): (&str, &[&str]) = match m.type_.to_ascii_lowercase().as_str() {
        "counter" => ("Counter", &["inc", "add"]),
        "gauge" => ("Gauge", &["set", "inc", "dec", "add", "sub"]),
        "histogram" => ("Histogram", &[]),
        _ => {
            return Err(FieldError::new(
                format!("{field}.type"),
                format!(
                    "{:?} is not a metric type promtail knows: write counter, gauge or histogram (the agent would refuse the whole logs config)",
                    m.type_
                ),
            ));
        }
    };
    if !actions.is_empty() && !actions.contains(&m.action.to_ascii_lowercase().as_str()) {
        return Err(FieldError::new(
            format!("{field}.action"),
            format!(
                "a {} needs action {}, not {:?} (promtail refuses it otherwise)",
                m.type_.to_ascii_lowercase(),
                actions.join(", "),
                m.action
            ),
        ));
    }
    Ok(spelled.to_owned())
}

/// A histogram bucket written as a string: it must be a JSON number. Whole numbers come out
/// as integers (`"1"` → `1`), others as floats (`"0.5"` → `0.5`).
pub fn bucket(text: &str, field: &str) -> Result<serde_json::Number, FieldError> {
    let invalid = || FieldError::new(field, format!("histogram bucket {text:?} is not a number"));
    let number = match serde_json::from_str::<Value>(text.trim()) {
        Ok(Value::Number(n)) => n,
        _ => return Err(invalid()),
    };
    if number.is_i64() || number.is_u64() {
        return Ok(number);
    }
    let f = number.as_f64().ok_or_else(invalid)?;
    // Whole floats within i64 print as integers; 2^63 and above stay floats.
    const I64_BOUND: f64 = 9_223_372_036_854_775_808.0;
    if f.fract() == 0.0 && (-I64_BOUND..I64_BOUND).contains(&f) {
        // The range check makes the cast exact.
        #[allow(clippy::cast_possible_truncation)]
        return Ok(serde_json::Number::from(f as i64));
    }
    serde_json::Number::from_f64(f).ok_or_else(invalid)
}

fn match_stage(m: &MatchStageSpec, field: &str, depth: usize) -> Result<MatchStage, FieldError> {
    let nested = match non_empty(&m.stages) {
        None => Vec::new(),
        Some(text) => {
            let stages_field = format!("{field}.stages");
            if depth + 1 > MAX_MATCH_DEPTH {
                return Err(FieldError::new(
                    stages_field,
                    format!("match stages nest deeper than {MAX_MATCH_DEPTH} levels"),
                ));
            }
            let parsed = parse_nested_stages(&text, &stages_field)?;
            stages_at_depth(&parsed, &stages_field, depth + 1)?
        }
    };
    Ok(MatchStage {
        selector: m.selector.clone(),
        pipeline_name: non_empty(&m.pipeline_name),
        action: non_empty(&m.action),
        drop_counter_reason: non_empty(&m.drop_counter_reason),
        stages: nested,
    })
}

/// Parses the YAML string of a match stage's `stages` as a list of stages, with the CRD's
/// camelCase names. Unknown keys are dropped (upstream parses non-strictly), and nulls are
/// read as Go's JSON decoder reads them: a null field is unset, and a null value in the
/// `labels` / `json.expressions` maps is the empty string (`labels: {level: }` means "the
/// label `level` from the extracted value `level`", a common promtail idiom).
pub fn parse_nested_stages(text: &str, field: &str) -> Result<Vec<PipelineStageSpec>, FieldError> {
    let value: Value = serde_saphyr::from_str(text).map_err(|e| {
        let at = crate::yaml::describe_parse_error(&e);
        FieldError::because(Reason::InvalidYaml, field, format!("not valid YAML: {at}"))
    })?;
    let value = match value {
        Value::Null => return Ok(Vec::new()),
        Value::Array(items) => Value::Array(items.into_iter().map(go_nulls_in_stage).collect()),
        other => {
            return Err(FieldError::because(
                Reason::InvalidYaml,
                field,
                format!("must be a YAML list of stages, not {}", kind_of(&other)),
            ));
        }
    };
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        let message = if path == "." {
            format!("not a list of stages: {inner}")
        } else {
            format!("not a list of stages: at {path}: {inner}")
        };
        FieldError::because(Reason::InvalidYaml, field, message)
    })
}

/// Applies Go's null rules to one stage entry (see [`parse_nested_stages`]).
fn go_nulls_in_stage(stage: Value) -> Value {
    let Value::Object(entries) = stage else {
        return stage;
    };
    let entries = entries
        .into_iter()
        .filter(|(_, v)| !v.is_null())
        .map(|(name, body)| {
            let body = match (name.as_str(), body) {
                ("labels", Value::Object(m)) => Value::Object(nulls_to_empty_strings(m)),
                ("json", Value::Object(m)) => Value::Object(
                    m.into_iter()
                        .filter(|(_, v)| !v.is_null())
                        .map(|(k, v)| match (k.as_str(), v) {
                            ("expressions", Value::Object(e)) => {
                                (k, Value::Object(nulls_to_empty_strings(e)))
                            }
                            (_, v) => (k, v),
                        })
                        .collect(),
                ),
                (_, body) => without_null_fields(body),
            };
            (name, body)
        })
        .collect();
    Value::Object(entries)
}

fn nulls_to_empty_strings(m: serde_json::Map<String, Value>) -> serde_json::Map<String, Value> {
    m.into_iter()
        .map(|(k, v)| match v {
            Value::Null => (k, Value::String(String::new())),
            v => (k, v),
        })
        .collect()
}

/// Drops null-valued fields at every level: Go leaves such a field at its zero value.
fn without_null_fields(v: Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.into_iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k, without_null_fields(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.into_iter().map(without_null_fields).collect()),
        v => v,
    }
}

/// A short name of a JSON value's type, for messages.
fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a map",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use api::pod_logs::*;

    fn render(s: PipelineStageSpec) -> Value {
        serde_json::to_value(stage(&s, "s", 0).expect("renders")).expect("serializes")
    }

    fn yaml(text: &str) -> Value {
        serde_saphyr::from_str(text).expect("test YAML")
    }

    /// For Alloy, an unset maxIdleDuration, maxWaitTime, maxLines or ingestTimestamp is
    /// written as promtail's default, at any depth of `match` stages; set values stay.
    #[test]
    fn promtail_defaults_are_written_out_for_alloy_at_any_depth() {
        let gauge = MetricStage {
            type_: "Gauge".into(),
            config: MetricStageConfig {
                action: "inc".into(),
                ..Default::default()
            },
            ..Default::default()
        };
        let unset = StageConfig {
            metrics: Some(BTreeMap::from([("lines".to_owned(), gauge)])),
            multiline: Some(MultilineStage {
                firstline: "^x".into(),
                ..Default::default()
            }),
            pack: Some(PackStage::default()),
            ..Default::default()
        };
        let set = StageConfig {
            multiline: Some(MultilineStage {
                firstline: "^x".into(),
                max_wait_time: Some("1s".into()),
                max_lines: Some(5),
            }),
            pack: Some(PackStage {
                labels: Vec::new(),
                ingest_timestamp: Some(false),
            }),
            ..Default::default()
        };
        let mut stages = vec![
            StageConfig {
                match_: Some(MatchStage {
                    selector: "{a=\"b\"}".into(),
                    stages: vec![unset.clone()],
                    ..Default::default()
                }),
                ..Default::default()
            },
            set.clone(),
        ];
        with_promtail_defaults(&mut stages);
        let nested = &stages[0].match_.as_ref().expect("match").stages[0];
        let metric = &nested.metrics.as_ref().expect("metrics")["lines"];
        assert_eq!(metric.max_idle_duration.as_deref(), Some("5m"));
        let multiline = nested.multiline.as_ref().expect("multiline");
        assert_eq!(multiline.max_wait_time.as_deref(), Some("3s"));
        assert_eq!(multiline.max_lines, Some(128));
        assert_eq!(
            nested.pack.as_ref().and_then(|p| p.ingest_timestamp),
            Some(true)
        );
        assert_eq!(stages[1], set, "set values stay");
    }

    #[test]
    fn docker_and_cri_are_empty_maps() {
        let s = PipelineStageSpec {
            docker: Some(DockerStageSpec {}),
            ..Default::default()
        };
        assert_eq!(render(s), yaml("docker: {}"));
        let s = PipelineStageSpec {
            cri: Some(CriStageSpec {}),
            ..Default::default()
        };
        assert_eq!(render(s), yaml("cri: {}"));
    }

    /// Issue 22, item 6: upstream writes every stage of an entry into one map, which promtail
    /// refuses ("pipeline stage must contain only one key"), stopping every logs instance.
    #[test]
    fn an_entry_with_two_stages_is_refused_naming_them() {
        let s = PipelineStageSpec {
            cri: Some(CriStageSpec {}),
            label_drop: Some(vec!["filename".into()]),
            ..Default::default()
        };
        let e = stage(&s, "spec.pipelineStages[0]", 0).expect_err("two stages");
        assert_eq!(e.field, "spec.pipelineStages[0]");
        assert!(
            e.message.starts_with("sets cri and labelDrop"),
            "{}",
            e.message
        );
        assert!(e.message.contains("only one key"), "{}", e.message);
        // An empty list is no stage: one stage left is fine.
        let s = PipelineStageSpec {
            cri: Some(CriStageSpec {}),
            label_drop: Some(vec![]),
            ..Default::default()
        };
        assert_eq!(render(s), yaml("cri: {}"));
    }

    /// promtail refuses a counter that counts entry bytes without matchAll and action add
    /// (the agent and Alloy then refuse the whole logs config), and matchAll with a value.
    #[test]
    fn counters_promtail_refuses_are_refused_on_their_field() {
        let counter = |action: &str, match_all: Option<bool>, bytes: bool, value: Option<&str>| {
            PipelineStageSpec {
                metrics: Some(BTreeMap::from([(
                    "lines".to_owned(),
                    MetricsStageSpec {
                        type_: "Counter".into(),
                        action: action.into(),
                        match_all,
                        count_entry_bytes: Some(bytes),
                        value: value.map(Into::into),
                        ..Default::default()
                    },
                )])),
                ..Default::default()
            }
        };
        let refused = |s: PipelineStageSpec| {
            let e = stage(&s, "spec.pipelineStages[0]", 0).expect_err("refused");
            (e.field, e.message)
        };
        let (field, message) = refused(counter("inc", None, true, None));
        assert_eq!(
            field,
            "spec.pipelineStages[0].metrics.lines.countEntryBytes"
        );
        assert!(message.contains("needs matchAll: true"), "{message}");
        let (_, message) = refused(counter("inc", Some(true), true, None));
        assert!(message.contains("needs action: add"), "{message}");
        let (field, _) = refused(counter("inc", Some(true), false, Some("x")));
        assert_eq!(field, "spec.pipelineStages[0].metrics.lines.matchAll");
        let ok = render(counter("ADD", Some(true), true, None));
        assert_eq!(
            ok["metrics"]["lines"]["config"]["count_entry_bytes"], true,
            "{ok}"
        );
    }

    /// Issue 22, item 6: promtail's tenant stage takes exactly one of label, source, value.
    #[test]
    fn a_tenant_stage_needs_exactly_one_of_label_source_and_value() {
        let tenant = |label: &str, source: &str, value: &str| PipelineStageSpec {
            tenant: Some(TenantStageSpec {
                label: Some(label.into()),
                source: Some(source.into()),
                value: Some(value.into()),
            }),
            ..Default::default()
        };
        assert_eq!(
            render(tenant("", "", "team-a")),
            yaml("tenant: {value: team-a}")
        );
        for (s, needle) in [
            (tenant("t", "", "team-a"), "sets label and value"),
            (tenant("", "src", "team-a"), "sets source and value"),
            (tenant("", "", ""), "sets none of label, source and value"),
        ] {
            let e = stage(&s, "spec.pipelineStages[1]", 0).expect_err(needle);
            assert_eq!(e.field, "spec.pipelineStages[1].tenant");
            assert!(e.message.contains(needle), "{}", e.message);
        }
    }

    #[test]
    fn label_lists_are_lowercased_keys_and_empty_lists_vanish() {
        let s = PipelineStageSpec {
            label_allow: Some(vec!["a".into()]),
            label_drop: Some(vec![]),
            ..Default::default()
        };
        assert_eq!(render(s), yaml("labelallow: [a]"));
    }

    #[test]
    fn a_drop_stage_with_value_and_expression_is_rejected() {
        let s = PipelineStageSpec {
            drop: Some(DropStageSpec {
                source: Some("level".into()),
                expression: Some("debug".into()),
                value: Some("x".into()),
                ..Default::default()
            }),
            ..Default::default()
        };
        let e = stage(&s, "spec.pipelineStages[2]", 0).expect_err("both");
        assert_eq!(e.field, "spec.pipelineStages[2].drop.value");
        assert!(
            e.message.contains("cannot both be defined"),
            "{}",
            e.message
        );
    }

    #[test]
    fn limit_needs_rate_and_burst_and_always_writes_drop() {
        let limit = |rate, burst| PipelineStageSpec {
            limit: Some(LimitStageSpec {
                rate,
                burst,
                drop: None,
            }),
            ..Default::default()
        };
        assert_eq!(
            render(limit(Some(5), Some(10))),
            yaml("limit: {rate: 5, burst: 10, drop: false}")
        );
        for (rate, burst) in [
            (None, None),
            (Some(5), None),
            (Some(5), Some(0)),
            (Some(-1), Some(10)),
        ] {
            let e = stage(&limit(rate, burst), "spec.pipelineStages[3]", 0).expect_err("refused");
            assert_eq!(
                e.field, "spec.pipelineStages[3].limit",
                "{rate:?} {burst:?}"
            );
        }
    }

    #[test]
    fn metric_types_are_capitalised_and_what_promtail_refuses_is_rejected() {
        let spec = |type_: &str, action: &str| MetricsStageSpec {
            type_: type_.into(),
            action: action.into(),
            ..Default::default()
        };
        let f = "spec.pipelineStages[0].metrics.m";
        assert_eq!(
            metric_type(&spec("COUNTER", "Inc"), f).expect("ok"),
            "Counter"
        );
        assert_eq!(metric_type(&spec("gauge", "sub"), f).expect("ok"), "Gauge");
        assert_eq!(
            metric_type(&spec("Histogram", ""), f).expect("ok"),
            "Histogram"
        );
        let e = metric_type(&spec("summary", "observe"), f).expect_err("no summaries");
        assert_eq!(e.field, format!("{f}.type"));
        assert!(
            e.message.contains("write counter, gauge or histogram"),
            "{}",
            e.message
        );
        for (type_, action) in [("counter", "set"), ("counter", ""), ("gauge", "observe")] {
            let e = metric_type(&spec(type_, action), f).expect_err(action);
            assert_eq!(e.field, format!("{f}.action"), "{type_} {action}");
        }
    }

    #[test]
    fn buckets_are_numbers_whole_ones_integers() {
        let n = |s: &str| serde_json::to_string(&bucket(s, "b").expect("number")).expect("json");
        assert_eq!(n("1"), "1");
        assert_eq!(n("0.5"), "0.5");
        assert_eq!(n("1.0"), "1");
        assert_eq!(n("1e3"), "1000");
        assert_eq!(n("-2.5e-1"), "-0.25");
        assert_eq!(n(" 10 "), "10");
        assert_eq!(n("1e300"), "1e+300");
        for bad in ["", "abc", "1,5", "NaN", "Inf", "+1", ".5", "[1]", "\"1\""] {
            let err = bucket(bad, "spec.x.buckets[0]").expect_err(bad);
            assert_eq!(err.field, "spec.x.buckets[0]");
        }
    }

    #[test]
    fn nested_stages_parse_camel_case_drop_unknown_keys_and_read_nulls_as_go() {
        let parsed = parse_nested_stages(
            "- labelAllow: [a]\n- labels:\n    level:\n  unknownStage: {x: 1}\n- json:\n    expressions: {msg: }\n    source:\n- docker:\n",
            "f",
        )
        .expect("parses");
        assert_eq!(parsed.len(), 4);
        assert_eq!(parsed[0].label_allow, Some(vec!["a".to_string()]));
        assert_eq!(
            parsed[1].labels,
            Some(BTreeMap::from([("level".to_string(), String::new())]))
        );
        let json = parsed[2].json.as_ref().expect("json stage");
        assert_eq!(json.expressions["msg"], "");
        assert_eq!(json.source, None);
        // `docker:` with no value is a nil pointer in Go: no stage at all.
        assert_eq!(parsed[3], PipelineStageSpec::default());
    }

    #[test]
    fn nested_stage_errors_name_the_field_and_the_inner_path() {
        let err = parse_nested_stages(
            "- regex: {source: x}",
            "spec.pipelineStages[0].match.stages",
        )
        .expect_err("missing expression");
        assert_eq!(err.field, "spec.pipelineStages[0].match.stages");
        assert!(err.message.contains("[0].regex"), "{}", err.message);
        assert!(err.message.contains("expression"), "{}", err.message);
        let err = parse_nested_stages("- json: [unclosed", "f").expect_err("bad YAML");
        assert!(err.message.starts_with("not valid YAML"), "{}", err.message);
        let err = parse_nested_stages("json: {}", "f").expect_err("a map");
        assert!(err.message.contains("a map"), "{}", err.message);
        assert!(
            parse_nested_stages("# nothing", "f")
                .expect("empty")
                .is_empty()
        );
    }

    #[test]
    fn match_nesting_is_bounded() {
        // A match whose stages string holds a match, MAX_MATCH_DEPTH + 1 times (block
        // scalars, so each level only adds indentation).
        let mut text = String::from("- docker: {}\n");
        for _ in 0..=MAX_MATCH_DEPTH {
            let inner: String = text.lines().map(|l| format!("      {l}\n")).collect();
            text = format!("- match:\n    selector: '{{a=\"b\"}}'\n    stages: |\n{inner}");
        }
        let top = parse_nested_stages(&text, "f").expect("parses");
        let err = stage(&top[0], "spec.pipelineStages[0]", 0).expect_err("too deep");
        assert!(err.message.contains("deeper"), "{}", err.message);
    }

    #[test]
    fn values_promtail_refuses_are_errors_naming_the_field() {
        let bad_regex = PipelineStageSpec {
            regex: Some(RegexStageSpec {
                expression: "(unclosed".into(),
                source: None,
            }),
            ..Default::default()
        };
        let err = stage(&bad_regex, "spec.pipelineStages[2]", 0).expect_err("bad regex");
        assert_eq!(err.field, "spec.pipelineStages[2].regex.expression");
        let bad_duration = PipelineStageSpec {
            multiline: Some(MultilineStageSpec {
                first_line: "^x".into(),
                max_wait_time: Some("3 seconds".into()),
                max_lines: None,
            }),
            ..Default::default()
        };
        let err = stage(&bad_duration, "s", 0).expect_err("bad duration");
        assert_eq!(err.field, "s.multiline.maxWaitTime");
        let bad_label = PipelineStageSpec {
            labels: Some(BTreeMap::from([("log-level".to_string(), String::new())])),
            ..Default::default()
        };
        let err = stage(&bad_label, "s", 0).expect_err("bad label");
        assert_eq!(err.field, "s.labels.log-level");
    }
}
