//! Relabel rules: users' rules checked as Prometheus checks them, and the rules that select targets by label.

use api::prometheus::RelabelConfig;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;

use super::FieldError;
use super::secrets::non_empty;
use crate::rejection::Reason;
use crate::relabel::RelabelRule;

/// Relabel actions Prometheus accepts (it lowercases them before checking).
const RELABEL_ACTIONS: &[&str] = &[
    "replace",
    "keep",
    "drop",
    "hashmod",
    "labelmap",
    "labeldrop",
    "labelkeep",
    "lowercase",
    "uppercase",
    "keepequal",
    "dropequal",
];

/// A user's relabel rule, rendered as upstream does and checked so that the agent will load
/// it: the regex must compile as RE2 (Prometheus anchors it), the action must exist, and
/// the action's required fields must be present.
pub fn user_relabel_rule(rule: &RelabelConfig, field: &str) -> Result<RelabelRule, FieldError> {
    let action = rule.action.to_ascii_lowercase();
    if !RELABEL_ACTIONS.contains(&action.as_str()) {
        return Err(FieldError::new(
            format!("{field}.action"),
            format!("unknown relabel action {:?}", rule.action),
        ));
    }
    if let Some(re) = rule.regex.as_deref().filter(|r| !r.is_empty()) {
        check_regex(re, &format!("{field}.regex"))?;
    }
    let target = non_empty(&rule.target_label);
    let needs_target = matches!(
        action.as_str(),
        "replace" | "hashmod" | "lowercase" | "uppercase" | "keepequal" | "dropequal"
    );
    if needs_target && target.is_none() {
        return Err(FieldError::new(
            format!("{field}.targetLabel"),
            format!("relabel action {} requires a targetLabel", rule.action),
        ));
    }
    if let Some(t) = &target {
        check_target_label(&action, t, &format!("{field}.targetLabel"))?;
    }
    if action == "hashmod" && rule.modulus.unwrap_or(0) == 0 {
        return Err(FieldError::new(
            format!("{field}.modulus"),
            "relabel action hashmod requires a modulus above 0",
        ));
    }
    Ok(RelabelRule {
        source_labels: rule.source_labels.clone(),
        separator: non_empty(&rule.separator),
        regex: non_empty(&rule.regex).map(Into::into),
        modulus: rule.modulus.filter(|m| *m != 0),
        target_label: target,
        replacement: non_empty(&rule.replacement),
        action: Some(rule.action.clone()).filter(|a| !a.is_empty()),
    })
}

/// Prometheus' check of a target label: `hashmod` needs a label name; `replace` and the
/// other writing actions also accept `$1`/`${name}` references in it. Anything else makes
/// the agent refuse the whole config.
fn check_target_label(action: &str, target: &str, field: &str) -> Result<(), FieldError> {
    static RELABEL_TARGET: std::sync::LazyLock<Option<regex::Regex>> =
        std::sync::LazyLock::new(|| {
            regex::Regex::new(
                r"^(?:(?:[a-zA-Z_]|\$(?:\{[0-9A-Za-z_]+\}|[0-9A-Za-z_]+))+[0-9A-Za-z_]*)+$",
            )
            .ok()
        });
    let is_label_name = |t: &str| {
        t.chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && t.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    let valid = match action {
        "hashmod" => is_label_name(target),
        "replace" | "lowercase" | "uppercase" | "keepequal" | "dropequal" => {
            RELABEL_TARGET.as_ref().is_none_or(|re| re.is_match(target))
        }
        _ => true,
    };
    if valid {
        Ok(())
    } else {
        Err(FieldError::because(
            Reason::InvalidLabelName,
            field,
            format!("{target:?} is not a valid target label for action {action}"),
        ))
    }
}

/// Renders a list of user rules; the first bad rule fails the list.
pub fn user_relabel_rules(
    rules: &[RelabelConfig],
    field: &str,
) -> Result<Vec<RelabelRule>, FieldError> {
    rules
        .iter()
        .enumerate()
        .map(|(i, r)| user_relabel_rule(r, &format!("{field}[{i}]")))
        .collect()
}

/// Checks that `re` compiles the way Prometheus compiles relabel regexes (RE2, anchored).
///
/// Only the syntax is checked: building the automaton would cost a third of a large render
/// (tens of thousands of rules) and the agent compiles the regexes itself anyway.
///
/// A handful of distinct patterns usually account for every monitor of a large hierarchy, so
/// each thread remembers the ones it has found valid (up to [`KNOWN_VALID_REGEXES`]).
pub fn check_regex(re: &str, field: &str) -> Result<(), FieldError> {
    thread_local! {
        static KNOWN_VALID: std::cell::RefCell<std::collections::HashSet<String>> =
            std::cell::RefCell::default();
    }
    if KNOWN_VALID.with_borrow(|known| known.contains(re)) {
        return Ok(());
    }
    regex_syntax::Parser::new()
        .parse(&format!("{ANCHOR_START}{re})$"))
        .map_err(|e| {
            let message = format!(
                "invalid regular expression {re:?}: {}",
                regex_problem(&e, re)
            );
            FieldError::because(Reason::InvalidRegex, field, message)
        })?;
    KNOWN_VALID.with_borrow_mut(|known| {
        if known.len() >= KNOWN_VALID_REGEXES {
            known.clear();
        }
        known.insert(re.to_owned());
    });
    Ok(())
}

/// What Prometheus wraps a relabel regex in (with `)$` after it).
const ANCHOR_START: &str = "^(?:";

/// The parse error of `re` as the user wrote it: what is wrong and at which character of
/// `re`, without the anchors the parser saw (`^(?:...)$`, which the user never wrote).
fn regex_problem(e: &regex_syntax::Error, re: &str) -> String {
    let (kind, offset) = match e {
        regex_syntax::Error::Parse(e) => (e.kind().to_string(), e.span().start.offset),
        regex_syntax::Error::Translate(e) => (e.kind().to_string(), e.span().start.offset),
        other => {
            return other
                .to_string()
                .lines()
                .next_back()
                .unwrap_or_default()
                .to_owned();
        }
    };
    let offset = offset.saturating_sub(ANCHOR_START.len()).min(re.len());
    match re.get(..offset) {
        Some(before) if offset < re.len() => {
            format!("{kind} (at character {})", before.chars().count() + 1)
        }
        _ => format!("{kind} (at the end)"),
    }
}

/// How many valid patterns each thread remembers before it starts over.
const KNOWN_VALID_REGEXES: usize = 4096;

/// Relabel rules that keep only targets whose meta labels satisfy `selector` (spec 4.7 steps
/// 2-3): `label_prefix` + sanitized key for values, `present_prefix` + key for existence.
/// Unlike upstream, an unknown operator is an error instead of being dropped (Q25).
pub fn selector_relabels(
    selector: &LabelSelector,
    label_prefix: &str,
    present_prefix: &str,
    field: &str,
) -> Result<Vec<RelabelRule>, FieldError> {
    use crate::assets::sanitize_label;
    let mut rules = Vec::new();
    // BTreeMap iteration gives the sorted key order upstream uses.
    for (k, v) in selector.match_labels.iter().flatten() {
        let source = format!("{label_prefix}{}", sanitize_label(k));
        rules.push(RelabelRule::filter(&source, v, "keep"));
    }
    for (i, req) in selector.match_expressions.iter().flatten().enumerate() {
        let values = req.values.clone().unwrap_or_default().join("|");
        let label = format!("{label_prefix}{}", sanitize_label(&req.key));
        let present = format!("{present_prefix}{}", sanitize_label(&req.key));
        rules.push(match req.operator.as_str() {
            "In" => RelabelRule::filter(&label, &values, "keep"),
            "NotIn" => RelabelRule::filter(&label, &values, "drop"),
            "Exists" => RelabelRule::filter(&present, "true", "keep"),
            "DoesNotExist" => RelabelRule::filter(&present, "true", "drop"),
            other => {
                return Err(FieldError::because(
                    Reason::InvalidSelector,
                    format!("{field}.matchExpressions[{i}].operator"),
                    format!("unknown operator {other:?} (want In, NotIn, Exists or DoesNotExist)"),
                ));
            }
        });
    }
    Ok(rules)
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelectorRequirement;

    #[test]
    fn selector_rules_sort_match_labels_and_join_values_unescaped() {
        let sel = LabelSelector {
            match_labels: Some(
                [
                    ("z".to_string(), "1".to_string()),
                    ("a.b".to_string(), "2".to_string()),
                ]
                .into(),
            ),
            match_expressions: Some(vec![LabelSelectorRequirement {
                key: "k".into(),
                operator: "In".into(),
                values: Some(vec!["x.y".into(), "z".into()]),
            }]),
        };
        let rules = selector_relabels(&sel, "l_", "p_", "spec.selector").expect("valid");
        assert_eq!(rules[0], RelabelRule::filter("l_a_b", "2", "keep"));
        assert_eq!(rules[1], RelabelRule::filter("l_z", "1", "keep"));
        assert_eq!(rules[2], RelabelRule::filter("l_k", "x.y|z", "keep"));
    }

    #[test]
    fn bad_user_rules_name_the_field() {
        let bad_regex = RelabelConfig {
            regex: Some("(".into()),
            target_label: Some("x".into()),
            ..Default::default()
        };
        assert_eq!(
            user_relabel_rule(&bad_regex, "spec.relabelings[2]")
                .unwrap_err()
                .field,
            "spec.relabelings[2].regex"
        );
        let bad_action = RelabelConfig {
            action: "explode".into(),
            ..Default::default()
        };
        assert_eq!(
            user_relabel_rule(&bad_action, "r").unwrap_err().field,
            "r.action"
        );
        let no_target = RelabelConfig::default();
        assert_eq!(
            user_relabel_rule(&no_target, "r").unwrap_err().field,
            "r.targetLabel"
        );
        let bad_target = RelabelConfig {
            target_label: Some("bad-label".into()),
            ..Default::default()
        };
        assert_eq!(
            user_relabel_rule(&bad_target, "r").unwrap_err().field,
            "r.targetLabel"
        );
        for target in ["ok_label", "$1", "${1}_x", "a${name}"] {
            let rule = RelabelConfig {
                target_label: Some(target.into()),
                ..Default::default()
            };
            assert!(user_relabel_rule(&rule, "r").is_ok(), "{target}");
        }
        let ok = RelabelConfig {
            source_labels: vec!["__name__".into()],
            action: "drop".into(),
            ..Default::default()
        };
        assert_eq!(
            user_relabel_rule(&ok, "r")
                .expect("valid")
                .action
                .as_deref(),
            Some("drop")
        );
    }
}
