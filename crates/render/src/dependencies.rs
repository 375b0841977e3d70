//! What one agent's discovery depended on, for a controller to map watch events back to the
//! agents they affect (see [`crate::index::ReverseIndex`]).

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;

use crate::input_ref::{InputRef, Kind};
use crate::selector::LabelMatcher;
use crate::store::Labels;

/// One selector discovery evaluated: objects of `kind` matching it belong to the agent's
/// hierarchy.
#[derive(Debug, Clone, PartialEq)]
pub struct SelectorDependency {
    kind: Kind,
    selector: Option<LabelSelector>,
    namespace_selector: Option<LabelSelector>,
    parent_namespace: String,
    /// `None` when a selector is invalid: it selects nothing until the parent is fixed.
    matchers: Option<(LabelMatcher, Option<LabelMatcher>)>,
}

impl SelectorDependency {
    /// `selector` and `namespace_selector` as written in the selecting object, which lives in
    /// `parent_namespace` (the namespace searched when `namespace_selector` is `None`).
    pub fn new(
        kind: Kind,
        selector: Option<&LabelSelector>,
        namespace_selector: Option<&LabelSelector>,
        parent_namespace: impl Into<String>,
    ) -> Self {
        let label = LabelMatcher::new(selector);
        let namespace = namespace_selector.map(|s| LabelMatcher::new(Some(s)));
        let matchers = match (label, namespace.transpose()) {
            (Ok(label), Ok(namespace)) => Some((label, namespace)),
            _ => None,
        };
        SelectorDependency {
            kind,
            selector: selector.cloned(),
            namespace_selector: namespace_selector.cloned(),
            parent_namespace: parent_namespace.into(),
            matchers,
        }
    }

    pub fn kind(&self) -> Kind {
        self.kind
    }

    pub fn selector(&self) -> Option<&LabelSelector> {
        self.selector.as_ref()
    }

    pub fn namespace_selector(&self) -> Option<&LabelSelector> {
        self.namespace_selector.as_ref()
    }

    pub fn parent_namespace(&self) -> &str {
        &self.parent_namespace
    }

    /// Whether objects in `namespace` (labelled `namespace_labels`) can be selected.
    pub fn matches_namespace(&self, namespace: &str, namespace_labels: &Labels) -> bool {
        match &self.matchers {
            None => false,
            Some((_, None)) => namespace == self.parent_namespace,
            Some((_, Some(ns))) => ns.matches(namespace_labels),
        }
    }

    /// Whether an object of `kind` in `namespace` with `labels` is selected.
    pub fn matches(
        &self,
        kind: Kind,
        namespace: &str,
        labels: &Labels,
        namespace_labels: &Labels,
    ) -> bool {
        kind == self.kind
            && self.matches_namespace(namespace, namespace_labels)
            && self.matches_labels(labels)
    }

    /// Whether `labels` satisfy the label selector (the namespace aside).
    pub fn matches_labels(&self, labels: &Labels) -> bool {
        self.matchers
            .as_ref()
            .is_some_and(|(label, _)| label.matches(labels))
    }

    /// The label requirements an object must meet by carrying one given value (see
    /// [`LabelMatcher::required_values`]); empty when the selector is invalid.
    pub fn required_label_values(&self) -> Vec<(&str, Vec<&str>)> {
        self.matchers
            .as_ref()
            .map(|(label, _)| label.required_values())
            .unwrap_or_default()
    }

    /// Whether the namespace selector is set (so a namespace's labels matter).
    pub fn has_namespace_selector(&self) -> bool {
        self.namespace_selector.is_some()
    }
}

/// Everything one agent's hierarchy depends on.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Dependencies {
    /// Every object selected into the hierarchy (instances, monitors, PodLogs, Integrations),
    /// those rejected after selection included, so that their edits, deletions and
    /// "stopped matching" map back to the agent. The agent itself is not listed.
    pub members: BTreeSet<InputRef>,
    /// Every selector evaluated, in discovery order.
    pub selectors: Vec<SelectorDependency>,
    /// Every Secret and ConfigMap referenced (present or not), with the keys referenced.
    pub references: BTreeMap<InputRef, BTreeSet<String>>,
    /// The namespaces a PodLogs' label `namespaceSelector` matched: a change of one (it may
    /// stop matching) maps back to the agent, as one of a member's namespace does.
    pub namespaces: BTreeSet<String>,
}
