//! Kubernetes label selectors: validation (stricter than kube's conversion, as the API
//! server's `LabelSelectorAsSelector`) and matching with kube-core's `Expression`s, with
//! upstream's nil/empty rules and the first requirement that fails (for `explain`).

use std::collections::BTreeMap;
use std::fmt;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use kube::core::{Expression, SelectorExt};

/// Why a label selector is invalid.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SelectorError {
    #[error(
        "matchExpressions[{index}]: unknown operator {operator:?} (want In, NotIn, Exists or DoesNotExist)"
    )]
    UnknownOperator { index: usize, operator: String },
    #[error("matchExpressions[{index}]: operator {operator} needs at least one value")]
    MissingValues { index: usize, operator: String },
    #[error("matchExpressions[{index}]: operator {operator} takes no values")]
    UnexpectedValues { index: usize, operator: String },
    #[error("matchExpressions[{index}]: empty key")]
    EmptyKey { index: usize },
}

/// Checks a selector the way the API server's `LabelSelectorAsSelector` does.
pub fn validate(selector: &LabelSelector) -> Result<(), SelectorError> {
    for (index, req) in selector.match_expressions.iter().flatten().enumerate() {
        let values = req.values.as_deref().unwrap_or_default();
        if req.key.is_empty() {
            return Err(SelectorError::EmptyKey { index });
        }
        match req.operator.as_str() {
            "In" | "NotIn" if values.is_empty() => {
                return Err(SelectorError::MissingValues {
                    index,
                    operator: req.operator.clone(),
                });
            }
            "Exists" | "DoesNotExist" if !values.is_empty() => {
                return Err(SelectorError::UnexpectedValues {
                    index,
                    operator: req.operator.clone(),
                });
            }
            "In" | "NotIn" | "Exists" | "DoesNotExist" => {}
            other => {
                return Err(SelectorError::UnknownOperator {
                    index,
                    operator: other.to_owned(),
                });
            }
        }
    }
    Ok(())
}

/// Where a requirement of a selector was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RequirementSource {
    /// `matchLabels` entry with this key.
    MatchLabels(String),
    /// `matchExpressions[i]`.
    MatchExpressions(usize),
}

impl fmt::Display for RequirementSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequirementSource::MatchLabels(key) => {
                f.write_str(&crate::rejection::key_path("matchLabels", key))
            }
            RequirementSource::MatchExpressions(i) => write!(f, "matchExpressions[{i}]"),
        }
    }
}

/// One requirement of a selector: kube-core's expression and where it was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Requirement {
    pub source: RequirementSource,
    pub expression: Expression,
}

impl Requirement {
    /// The label key the requirement reads.
    pub fn key(&self) -> &str {
        match &self.expression {
            Expression::In(key, _)
            | Expression::NotIn(key, _)
            | Expression::Equal(key, _)
            | Expression::NotEqual(key, _)
            | Expression::Exists(key)
            | Expression::DoesNotExist(key) => key,
        }
    }
}

/// The first reason a [`LabelMatcher`] does not match some labels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unmatched<'a> {
    /// The selector is not set: upstream selects nothing.
    NilSelector,
    /// This requirement is not satisfied.
    Requirement(&'a Requirement),
}

/// A label selector checked by [`validate`] and ready to match many objects, with upstream's
/// rule that a `None` selector matches nothing and `{}` matches everything.
///
/// Requirements are kube-core's `Expression`s, `matchLabels` first (by key) then
/// `matchExpressions` in order, as kube's `Selector` conversion orders them; [`Self::matches`]
/// is defined through [`Self::first_unmatched`], so what `explain` reports is what discovery
/// decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LabelMatcher(Option<Vec<Requirement>>);

impl LabelMatcher {
    /// A matcher that matches nothing (a nil selector).
    pub const NOTHING: LabelMatcher = LabelMatcher(None);

    pub fn new(selector: Option<&LabelSelector>) -> Result<Self, SelectorError> {
        let Some(selector) = selector else {
            return Ok(LabelMatcher::NOTHING);
        };
        validate(selector)?;
        let labels = selector
            .match_labels
            .iter()
            .flatten()
            .map(|(k, v)| Requirement {
                source: RequirementSource::MatchLabels(k.clone()),
                expression: Expression::Equal(k.clone(), v.clone()),
            });
        let mut requirements: Vec<Requirement> = labels.collect();
        for (i, req) in selector.match_expressions.iter().flatten().enumerate() {
            // `validate` is stricter than kube's conversion, so this cannot fail; if kube
            // ever grew a stricter rule, matching nothing is the safe side.
            let Ok(expression) = Expression::try_from(req.clone()) else {
                return Ok(LabelMatcher::NOTHING);
            };
            requirements.push(Requirement {
                source: RequirementSource::MatchExpressions(i),
                expression,
            });
        }
        Ok(LabelMatcher(Some(requirements)))
    }

    /// The first reason `labels` are not selected, `None` when they are.
    pub fn first_unmatched(&self, labels: &BTreeMap<String, String>) -> Option<Unmatched<'_>> {
        let Some(requirements) = &self.0 else {
            return Some(Unmatched::NilSelector);
        };
        requirements
            .iter()
            .find(|r| !r.expression.matches(labels))
            .map(Unmatched::Requirement)
    }

    pub fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        self.first_unmatched(labels).is_none()
    }

    /// The requirements only an object carrying one given label value can meet (`key: value`
    /// of matchLabels, `key In (values)`), as (key, values): a store indexed by label finds
    /// every object such a selector can select among those. Empty for a nil selector, which
    /// selects nothing.
    pub fn required_values(&self) -> Vec<(&str, Vec<&str>)> {
        self.0
            .iter()
            .flatten()
            .filter_map(|r| match &r.expression {
                Expression::Equal(key, value) => Some((key.as_str(), vec![value.as_str()])),
                Expression::In(key, values) => {
                    Some((key.as_str(), values.iter().map(String::as_str).collect()))
                }
                _ => None,
            })
            .collect()
    }
}

/// Whether `labels` satisfy `selector` (see [`LabelMatcher`]); an invalid selector matches
/// nothing.
pub fn matches(selector: Option<&LabelSelector>, labels: &BTreeMap<String, String>) -> bool {
    LabelMatcher::new(selector).is_ok_and(|m| m.matches(labels))
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelectorRequirement;

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn expr(key: &str, op: &str, values: &[&str]) -> LabelSelectorRequirement {
        LabelSelectorRequirement {
            key: key.into(),
            operator: op.into(),
            values: (!values.is_empty()).then(|| values.iter().map(|v| v.to_string()).collect()),
        }
    }

    #[test]
    fn nil_selects_nothing_and_empty_selects_everything() {
        let l = labels(&[("app", "web")]);
        assert!(!matches(None, &l));
        assert!(matches(Some(&LabelSelector::default()), &l));
        assert!(matches(Some(&LabelSelector::default()), &BTreeMap::new()));
    }

    #[test]
    fn match_labels_and_every_operator() {
        let l = labels(&[("app", "web"), ("tier", "front")]);
        let sel = |e: Vec<LabelSelectorRequirement>| LabelSelector {
            match_labels: Some(labels(&[("app", "web")])),
            match_expressions: Some(e),
        };
        assert!(matches(
            Some(&sel(vec![expr("tier", "In", &["front", "back"])])),
            &l
        ));
        assert!(!matches(
            Some(&sel(vec![expr("tier", "NotIn", &["front"])])),
            &l
        ));
        assert!(matches(Some(&sel(vec![expr("zone", "NotIn", &["a"])])), &l));
        assert!(matches(Some(&sel(vec![expr("tier", "Exists", &[])])), &l));
        assert!(!matches(
            Some(&sel(vec![expr("tier", "DoesNotExist", &[])])),
            &l
        ));
        assert!(!matches(Some(&sel(vec![])), &labels(&[("app", "db")])));
    }

    #[test]
    fn invalid_selectors_are_reported_with_their_index() {
        let bad = |e| LabelSelector {
            match_labels: None,
            match_expressions: Some(vec![expr("a", "Exists", &[]), e]),
        };
        assert_eq!(
            validate(&bad(expr("a", "Matches", &["x"]))),
            Err(SelectorError::UnknownOperator {
                index: 1,
                operator: "Matches".into()
            })
        );
        assert!(matches!(
            validate(&bad(expr("a", "In", &[]))),
            Err(SelectorError::MissingValues { index: 1, .. })
        ));
        assert!(matches!(
            validate(&bad(expr("a", "Exists", &["x"]))),
            Err(SelectorError::UnexpectedValues { .. })
        ));
        assert!(validate(&bad(expr("a", "NotIn", &["x"]))).is_ok());
    }

    #[test]
    fn the_first_unmatched_requirement_names_where_it_was_written() {
        let sel = LabelSelector {
            match_labels: Some(labels(&[("app", "web"), ("team", "a")])),
            match_expressions: Some(vec![
                expr("tier", "In", &["front"]),
                expr("zone", "DoesNotExist", &[]),
            ]),
        };
        let m = LabelMatcher::new(Some(&sel)).expect("valid");
        let first = |l: &[(&str, &str)]| match m.first_unmatched(&labels(l)) {
            Some(Unmatched::Requirement(r)) => Some((r.source.to_string(), r.key().to_owned())),
            Some(Unmatched::NilSelector) => Some(("nil".into(), String::new())),
            None => None,
        };
        assert_eq!(
            first(&[("app", "db")]),
            Some(("matchLabels.app".into(), "app".into()))
        );
        assert_eq!(
            first(&[("app", "web"), ("team", "a"), ("tier", "back")]),
            Some(("matchExpressions[0]".into(), "tier".into()))
        );
        assert_eq!(
            first(&[
                ("app", "web"),
                ("team", "a"),
                ("tier", "front"),
                ("zone", "x")
            ]),
            Some(("matchExpressions[1]".into(), "zone".into()))
        );
        assert_eq!(
            first(&[("app", "web"), ("team", "a"), ("tier", "front")]),
            None
        );
        assert_eq!(
            LabelMatcher::NOTHING.first_unmatched(&BTreeMap::new()),
            Some(Unmatched::NilSelector)
        );
    }

    /// Issue 38, item 9d: a key with dots or a slash is quoted in the field path
    /// (`matchLabels.app.kubernetes.io/name` read as nested fields).
    #[test]
    fn a_label_key_with_dots_is_quoted_in_the_field_path() {
        let sel = LabelSelector {
            match_labels: Some(labels(&[("app.kubernetes.io/name", "web")])),
            match_expressions: None,
        };
        let m = LabelMatcher::new(Some(&sel)).expect("valid");
        let Some(Unmatched::Requirement(r)) = m.first_unmatched(&labels(&[])) else {
            panic!("the matchLabels entry is unmatched");
        };
        assert_eq!(
            r.source.to_string(),
            r#"matchLabels["app.kubernetes.io/name"]"#
        );
        let plain = RequirementSource::MatchLabels("app_name-1".into());
        assert_eq!(plain.to_string(), "matchLabels.app_name-1");
        let odd = RequirementSource::MatchLabels("a\"b".into());
        assert_eq!(odd.to_string(), r#"matchLabels["a\"b"]"#);
    }
}
