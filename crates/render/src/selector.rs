//! Kubernetes label selectors: validation (stricter than kube's conversion, as the API
//! server's `LabelSelectorAsSelector`) and matching with kube-core's `Selector`, with
//! upstream's nil/empty rules.

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use kube::core::{Selector, SelectorExt};

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

/// A label selector checked by [`validate`] and ready to match many objects, with upstream's
/// rule that a `None` selector matches nothing and `{}` matches everything.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LabelMatcher(Option<Selector>);

impl LabelMatcher {
    /// A matcher that matches nothing (a nil selector).
    pub const NOTHING: LabelMatcher = LabelMatcher(None);

    pub fn new(selector: Option<&LabelSelector>) -> Result<Self, SelectorError> {
        let Some(selector) = selector else {
            return Ok(LabelMatcher::NOTHING);
        };
        validate(selector)?;
        // `validate` is stricter than kube's conversion, so this cannot fail; if kube ever
        // grew a stricter rule, matching nothing is the safe side.
        Ok(LabelMatcher(Selector::try_from(selector.clone()).ok()))
    }

    pub fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        self.0.as_ref().is_some_and(|s| s.matches(labels))
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
}
