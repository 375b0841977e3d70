//! The two expansions agent.yml goes through before the agent reads it, and how strings the
//! operator copies into it from objects and Secrets pass both unchanged (docs/security.md,
//! "Expansions"; spec 3.11, Q18).
//!
//! * The config loader (`render::loader_variables`) replaces the operator's `$(SHARD)`,
//!   `$(SHARDS)`, `$(SHARD_BUCKETS)` and `$(STATEFULSET_ORDINAL_NUMBER)` and no other `$(NAME)`
//!   (prometheus-config-reloader, which ran in its place until issue 35, replaced every
//!   `$(NAME)` from the pod's environment and wrote no config at all when one was unset).
//! * The agent (`-config.expand-env`, and Alloy's static converter with the same flag) runs
//!   drone/envsubst over the text: `${NAME}` and its forms (`${NAME:-x}`, `${NAME:?e}`, ...)
//!   are replaced from the environment, an unclosed `${` is a fatal error, `$$` is one `$`;
//!   a `$` not followed by `{` or `$` is kept.
//!
//! [`escape`] writes each `$` as `$$`, which envsubst turns back into the `$`, so that no
//! `${` reaches it. A `$` before `(` is followed by [`EMPTY_EXPANSION`], which envsubst
//! replaces by nothing whatever the environment holds (a substring of length 0), so that the
//! loader, which runs first, never sees `$(` (the loader would leave a tenant's `$(NAME)`
//! alone anyway; the shield keeps the text safe under any reloader that expands more, and
//! keeps the rendered configs unchanged). Only [`ConfigString::PodVariable`], the
//! operator's own `$(SHARD)` and `replica-$(STATEFULSET_ORDINAL_NUMBER)`, is written for the
//! expansion.

use std::borrow::Cow;
use std::fmt;
use std::ops::Deref;

use serde::{Serialize, Serializer};

use crate::yaml;

/// An expansion that envsubst always replaces by the empty string: the substring of length
/// 0 of a variable, set or not. Written between a `$` and a `(` to keep the reloader from
/// reading them as a reference.
pub const EMPTY_EXPANSION: &str = "${AGENT_OPERATOR_EMPTY:0:0}";

/// The pod variables a string may still refer to in the metrics and integrations configs:
/// upstream's documentation has users write their own `$(SHARD)` and `$(SHARDS)` hashmod
/// rules in `additionalScrapeConfigs`. Both are set in every pod those configs run in (the
/// logs pods have no `SHARDS`, so logs configs keep none) and hold a number.
pub const SHARD_VARIABLES: [&str; 2] = ["$(SHARD)", "$(SHARDS)"];

/// How the strings of one agent's configs are written: the GrafanaAgent's
/// `spec.expandUserStrings`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Strings {
    /// Every `$` reaches the agent as written ([`escape`]), but for [`SHARD_VARIABLES`] in
    /// the configs whose pods set them.
    #[default]
    Escaped,
    /// Written as they are, so both expansions apply to them (the Grafana Agent Operator's
    /// behaviour, an opt-in).
    Expanded,
}

/// Which config a document is: it decides the pod variables its strings may refer to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ConfigOf {
    /// The metrics StatefulSets' and the integrations workloads' configs: [`SHARD_VARIABLES`].
    Sharded,
    /// The logs DaemonSet's config: none.
    Logs,
}

impl Strings {
    /// The setting of `agent`.
    pub fn of(agent: &api::GrafanaAgent) -> Strings {
        if agent.spec.expand_user_strings {
            Strings::Expanded
        } else {
            Strings::Escaped
        }
    }

    /// The rewrite the YAML writer applies to every string of a `config`.
    pub fn escape(self, config: ConfigOf) -> Option<yaml::Escape> {
        match (self, config) {
            (Strings::Escaped, ConfigOf::Sharded) => Some(escape_but_shard_variables),
            (Strings::Escaped, ConfigOf::Logs) => Some(escape),
            (Strings::Expanded, _) => None,
        }
    }

    /// `value` as one document of a `config`.
    pub fn to_yaml<T: Serialize + ?Sized>(
        self,
        config: ConfigOf,
        value: &T,
    ) -> Result<String, yaml::YamlError> {
        yaml::to_string_escaped(value, self.escape(config))
    }

    /// `value` as one item of a block sequence at `level` of a `config`.
    pub fn write_sequence_item<T: Serialize + ?Sized>(
        self,
        config: ConfigOf,
        out: &mut String,
        value: &T,
        level: usize,
    ) -> Result<(), yaml::YamlError> {
        yaml::write_sequence_item_escaped(out, value, level, self.escape(config))
    }
}

/// `s` written so that the config-reloader and the agent's envsubst both leave it as it is.
pub fn escape(s: &str) -> Cow<'_, str> {
    escape_keeping(s, &[])
}

/// [`escape`], but for the [`SHARD_VARIABLES`] in `s`, left for the reloader.
pub fn escape_but_shard_variables(s: &str) -> Cow<'_, str> {
    escape_keeping(s, &SHARD_VARIABLES)
}

fn escape_keeping<'s>(s: &'s str, kept: &[&str]) -> Cow<'s, str> {
    if !s.contains('$') {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    let mut rest = s;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let from_dollar = &rest[at..];
        if let Some(variable) = kept.iter().find(|v| from_dollar.starts_with(**v)) {
            out.push_str(variable);
            rest = &from_dollar[variable.len()..];
            continue;
        }
        out.push_str("$$");
        rest = &from_dollar[1..];
        if rest.starts_with('(') {
            out.push_str(EMPTY_EXPANSION);
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// A string of agent.yml that may be the operator's own reference to the pod's environment.
#[derive(Clone, PartialEq, Eq, Hash)]
pub enum ConfigString {
    /// Any text, written escaped ([`escape`]) unless the agent opts out.
    Literal(String),
    /// The operator's `$(NAME)` references, written for the config-reloader to expand. Never
    /// built from an object's or a Secret's text.
    PodVariable(String),
}

impl ConfigString {
    pub fn as_str(&self) -> &str {
        match self {
            ConfigString::Literal(s) | ConfigString::PodVariable(s) => s,
        }
    }
}

impl Deref for ConfigString {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl fmt::Debug for ConfigString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigString::Literal(s) => s.fmt(f),
            ConfigString::PodVariable(s) => write!(f, "PodVariable({s:?})"),
        }
    }
}

impl From<String> for ConfigString {
    fn from(s: String) -> Self {
        ConfigString::Literal(s)
    }
}

impl From<&str> for ConfigString {
    fn from(s: &str) -> Self {
        ConfigString::Literal(s.to_owned())
    }
}

impl PartialEq<str> for ConfigString {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for ConfigString {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl Serialize for ConfigString {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            ConfigString::Literal(s) => serializer.serialize_str(s),
            ConfigString::PodVariable(s) => serializer.serialize_newtype_struct(yaml::UNESCAPED, s),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_without_a_dollar_are_borrowed() {
        assert!(matches!(
            escape("plain/text:1"),
            Cow::Borrowed("plain/text:1")
        ));
    }

    #[test]
    fn every_dollar_is_doubled_and_a_parenthesis_after_one_is_shielded() {
        assert_eq!(escape("$1"), "$$1");
        assert_eq!(escape("${1}_x"), "$${1}_x");
        assert_eq!(escape("a${b"), "a$${b");
        assert_eq!(escape("$$"), "$$$$");
        assert_eq!(
            escape("$(X)"),
            format!("$${EMPTY_EXPANSION}(X)"),
            "the reloader must not see $("
        );
        assert_eq!(escape("é$"), "é$$");
    }

    #[test]
    fn escaped_text_holds_no_reloader_reference_and_no_lone_dollar() {
        for s in [
            "$(X)",
            "$$(X)",
            "a$(b)c$(d)",
            "($)",
            "$((X))",
            "${X:?e}",
            "$",
        ] {
            let e = escape(s);
            let without = e.replace(EMPTY_EXPANSION, "");
            assert!(!e.contains("$("), "{s:?} -> {e:?}");
            // Outside the shield, dollars come in pairs: envsubst reads them back as one.
            assert_eq!(without.replace("$$", ""), s.replace('$', ""), "{s:?}");
        }
    }

    #[test]
    fn shard_variables_stay_for_the_reloader_where_the_pods_set_them() {
        let s = "keep $(SHARD) of $(SHARDS), not $(SHARDX) ${SHARD} $$(SHARD)";
        assert_eq!(
            escape_but_shard_variables(s),
            format!(
                "keep $(SHARD) of $(SHARDS), not $${EMPTY_EXPANSION}(SHARDX) $${{SHARD}} $$$(SHARD)"
            )
        );
        assert!(!escape(s).contains("$(SHARD)"));
    }

    #[test]
    fn pod_variables_are_written_for_the_reloader_and_literals_escaped() {
        #[derive(Serialize)]
        struct Doc {
            keep: ConfigString,
            literal: ConfigString,
        }
        let doc = Doc {
            keep: ConfigString::PodVariable("$(SHARD)".to_owned()),
            literal: "$(SHARD)".into(),
        };
        let text = Strings::Escaped
            .to_yaml(ConfigOf::Logs, &doc)
            .expect("yaml");
        assert_eq!(
            text,
            format!("keep: $(SHARD)\nliteral: $${EMPTY_EXPANSION}(SHARD)\n")
        );
        let upstream = Strings::Expanded
            .to_yaml(ConfigOf::Logs, &doc)
            .expect("yaml");
        assert_eq!(upstream, "keep: $(SHARD)\nliteral: $(SHARD)\n");
    }

    #[test]
    fn keys_are_escaped_too() {
        let doc = serde_json::json!({"a$b": "${X}"});
        let text = Strings::Escaped
            .to_yaml(ConfigOf::Sharded, &doc)
            .expect("yaml");
        assert_eq!(text, "a$$b: $${X}\n");
    }
}
