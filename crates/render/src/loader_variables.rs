//! The one expansion the config loader (`agent-operator config-loader`) applies to agent.yml
//! before it writes the file: the operator's own pod variables, and nothing else.
//!
//! The operator writes five references into configs for the pods to fill in
//! ([`crate::expansion::ConfigString::PodVariable`]): `$(SHARD)` and `$(SHARDS)` (the
//! `hashmod` sharding rule, and users' own rules in `additionalScrapeConfigs`),
//! `$(SHARD_BUCKETS)` (the `consistent` sharding rule),
//! `replica-$(STATEFULSET_ORDINAL_NUMBER)` (the replica label) and `replica-$(CLUSTER_REPLICA)`
//! (the replica label of an Alloy cluster's pods, which share one replica per StatefulSet).
//! [`substitute`] replaces exactly these, from the loader's environment; `STATEFULSET_ORDINAL_NUMBER` is not read from
//! the environment but taken from `POD_NAME`'s last `-N`, as prometheus-config-reloader's
//! `--statefulset-ordinal-from-envvar=POD_NAME` did.
//!
//! How this differs from the prometheus-config-reloader the loader replaces (and from
//! [`crate::sharding::simulate::expand_reloader_env`], which mimics it): the reloader replaced
//! every `$(NAME)` with any variable of its environment and wrote no config at all when one was
//! unset. Any `$(NAME)` that reached it from a tenant's string (written as-is under
//! `spec.expandUserStrings: true`) could therefore read the pod's environment into a label
//! that is sent off with every sample, or, naming an unset variable, stop every config update
//! of the agent. Here a `$(NAME)` that is not one of [`OPERATOR_VARIABLES`] is left exactly
//! as written (the agent's own `${...}` expansion does not read it either: a `$` before `(`
//! is kept), so only the operator's own references read the environment, and only an
//! operator variable that is unset can stop a load ([`LoaderVariableError::Unset`]).
//!
//! Like the reloader, a `$` before an operator reference does not escape it: `$$(SHARD)` is
//! `$` followed by the shard number. [`crate::expansion::escape_but_shard_variables`] relies
//! on that (a tenant's `$$(SHARD)` is written `$$$(SHARD)`, which the agent then reads as
//! `$<shard>`), and the operator's escaping never leaves a tenant's `$(` elsewhere.
//!
//! Values are checked before they are written: each must be made of ASCII letters, digits and
//! `_ . - | ( ) [ ]` ([`SAFE_VALUE_CHARS`]), which every operator value is (numbers, and
//! `SHARD_BUCKETS`' regex, see [`crate::sharding::shard_buckets_regex`]). A value holding a
//! `$`, a quote, a colon or a line break could change what the YAML around it means, or feed
//! the agent's own expansion; it is refused ([`LoaderVariableError::UnsafeValue`]).

use std::collections::BTreeMap;

/// The references [`substitute`] replaces, by name (`$(NAME)` in the text).
pub const OPERATOR_VARIABLES: [&str; 5] = [
    "SHARD",
    "SHARDS",
    crate::sharding::SHARD_BUCKETS_ENV,
    STATEFULSET_ORDINAL_NUMBER,
    CLUSTER_REPLICA,
];

/// The replica an Alloy cluster's pods share (`spec.alloy.clustering`: one cluster, one
/// StatefulSet, per replica), set as a plain value on every pod of the cluster's StatefulSet.
pub const CLUSTER_REPLICA: &str = "CLUSTER_REPLICA";

/// The replica label's variable, derived from [`POD_NAME`].
pub const STATEFULSET_ORDINAL_NUMBER: &str = "STATEFULSET_ORDINAL_NUMBER";

/// The environment variable holding the pod's name (fieldRef `metadata.name`).
pub const POD_NAME: &str = "POD_NAME";

/// The characters besides ASCII letters and digits a substituted value may hold.
pub const SAFE_VALUE_CHARS: &str = "_.-|()[]";

/// Why a config cannot be written with the loader's environment.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LoaderVariableError {
    #[error(
        "line {line} refers to $({variable}), but the loader's environment has no {variable}: \
         the config is not written until it has"
    )]
    Unset { variable: String, line: usize },
    #[error(
        "line {line} refers to $({STATEFULSET_ORDINAL_NUMBER}), taken from {POD_NAME}'s last \
         -N, but {POD_NAME} {reason}"
    )]
    NoOrdinal { line: usize, reason: String },
    #[error(
        "line {line} refers to $({variable}), but its value {value:?} holds characters other \
         than ASCII letters, digits and {SAFE_VALUE_CHARS:?}"
    )]
    UnsafeValue {
        variable: String,
        value: String,
        line: usize,
    },
}

/// `text` with every `$(NAME)` of [`OPERATOR_VARIABLES`] replaced by its value in `env` (the
/// loader's environment; `STATEFULSET_ORDINAL_NUMBER` from `env[POD_NAME]`). Any other
/// `$(...)`, and any `$` not followed by an operator reference, is kept as written. Fails,
/// naming the line, when a referenced operator variable is unset or its value is unsafe.
pub fn substitute(
    text: &str,
    env: &BTreeMap<String, String>,
) -> Result<String, LoaderVariableError> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    // Lines before `rest`, counted only when an error needs them.
    let line_of = |rest: &str| text[..text.len() - rest.len()].matches('\n').count() + 1;
    while let Some(at) = rest.find("$(") {
        let after = &rest[at + 2..];
        let Some(variable) = OPERATOR_VARIABLES
            .iter()
            .find(|v| after.strip_prefix(**v).is_some_and(|r| r.starts_with(')')))
        else {
            // Not an operator reference: keep the `$(` and go on after it.
            out.push_str(&rest[..at + 2]);
            rest = after;
            continue;
        };
        // Not counted for each reference: a config of a few hundred jobs holds as many
        // references, and counting the lines before each one took the loader most of a second
        // per change (issue 35).
        let line = || line_of(&rest[at..]);
        let value = value_of(variable, env, line)?;
        if !value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || SAFE_VALUE_CHARS.contains(c))
        {
            return Err(LoaderVariableError::UnsafeValue {
                variable: (*variable).to_owned(),
                value,
                line: line(),
            });
        }
        out.push_str(&rest[..at]);
        out.push_str(&value);
        rest = &after[variable.len() + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// The value of `variable`; `line` gives the reference's line for an error.
fn value_of(
    variable: &str,
    env: &BTreeMap<String, String>,
    line: impl Fn() -> usize,
) -> Result<String, LoaderVariableError> {
    if variable != STATEFULSET_ORDINAL_NUMBER {
        return env
            .get(variable)
            .cloned()
            .ok_or_else(|| LoaderVariableError::Unset {
                variable: variable.to_owned(),
                line: line(),
            });
    }
    let Some(pod) = env.get(POD_NAME) else {
        return Err(LoaderVariableError::NoOrdinal {
            line: line(),
            reason: "is not set".to_owned(),
        });
    };
    statefulset_ordinal(pod).ok_or_else(|| LoaderVariableError::NoOrdinal {
        line: line(),
        reason: format!("is {pod:?}, which does not end in -N"),
    })
}

/// The ordinal of a StatefulSet's pod from its name (`agent-shard-1-3` -> `3`): the digits
/// after the last `-`, or `None` when there are none.
pub fn statefulset_ordinal(pod_name: &str) -> Option<String> {
    let (_, ordinal) = pod_name.rsplit_once('-')?;
    (!ordinal.is_empty() && ordinal.bytes().all(|b| b.is_ascii_digit())).then(|| ordinal.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    fn pod_env() -> BTreeMap<String, String> {
        env(&[
            ("SHARD", "2"),
            ("SHARDS", "4"),
            ("SHARD_BUCKETS", "([0-9]|1[0-5])"),
            ("CLUSTER_REPLICA", "1"),
            ("POD_NAME", "agent-shard-2-7"),
            ("HOSTNAME", "agent-shard-2-7"),
            ("SECRET_TOKEN", "hunter2"),
            ("X", "x-value"),
        ])
    }

    #[test]
    fn operator_references_are_replaced() {
        let text = "regex: $(SHARD)\nmodulus_of: $(SHARDS)\nkeep: $(SHARD_BUCKETS)\n\
                    replica: replica-$(STATEFULSET_ORDINAL_NUMBER)\n";
        assert_eq!(
            substitute(text, &pod_env()).expect("substitutes"),
            "regex: 2\nmodulus_of: 4\nkeep: ([0-9]|1[0-5])\nreplica: replica-7\n"
        );
    }

    #[test]
    fn any_other_reference_is_kept_as_written() {
        let hostile = [
            "$(HOSTNAME)",
            "$(SECRET_TOKEN)",
            "${X}",
            "${X:?stop}",
            "$(",
            "$()",
            "$(SHARD",
            "$(SHARDX)",
            "$(shard)",
            "$((SHARD))",
            "$(X)$(",
            "$$",
            "a$",
            "$(STATEFULSET_ORDINAL_NUMBER_X)",
            "${AGENT_OPERATOR_EMPTY:0:0}",
        ];
        for s in hostile {
            let text = format!("label: {s}\n");
            assert_eq!(
                substitute(&text, &pod_env()).as_deref(),
                Ok(text.as_str()),
                "{s:?}"
            );
        }
        // Without any environment at all, too: nothing of them is an operator reference.
        for s in hostile {
            assert_eq!(substitute(s, &BTreeMap::new()).as_deref(), Ok(s), "{s:?}");
        }
    }

    #[test]
    fn a_dollar_before_an_operator_reference_does_not_escape_it() {
        // As the reloader: expansion::escape_but_shard_variables writes a tenant's `$$(SHARD)`
        // as `$$$(SHARD)` and relies on this.
        assert_eq!(substitute("$$(SHARD)", &pod_env()).as_deref(), Ok("$2"));
        assert_eq!(substitute("$$$(SHARD)", &pod_env()).as_deref(), Ok("$$2"));
        assert_eq!(
            substitute("$(HOSTNAME)$(SHARD)", &pod_env()).as_deref(),
            Ok("$(HOSTNAME)2")
        );
    }

    #[test]
    fn escaped_tenant_strings_pass_unchanged() {
        use crate::expansion::{EMPTY_EXPANSION, escape, escape_but_shard_variables};
        for s in ["$(HOSTNAME)", "${X}", "$$(SHARD)", "$(", "$(SHARD)", "a$b"] {
            let escaped = escape(s);
            assert_eq!(
                substitute(&escaped, &BTreeMap::new()).as_deref(),
                Ok(&*escaped),
                "{s:?}"
            );
        }
        // The shard variables a user may write are the only ones replaced.
        let kept = escape_but_shard_variables("$(SHARD) $(HOSTNAME)");
        assert_eq!(
            substitute(&kept, &pod_env()).expect("substitutes"),
            format!("2 $${EMPTY_EXPANSION}(HOSTNAME)")
        );
    }

    #[test]
    fn an_unset_operator_variable_fails_naming_it_and_the_line() {
        let text = "a: 1\nb: $(HOSTNAME)\nregex: $(SHARD_BUCKETS)\n";
        let err = substitute(text, &env(&[("SHARD", "0")])).expect_err("unset");
        assert_eq!(
            err,
            LoaderVariableError::Unset {
                variable: "SHARD_BUCKETS".to_owned(),
                line: 3
            }
        );
        assert!(err.to_string().contains("no SHARD_BUCKETS"), "{err}");
        // A text that does not refer to it loads without it.
        assert_eq!(
            substitute("a: $(SHARD)\n", &env(&[("SHARD", "0")])).as_deref(),
            Ok("a: 0\n")
        );
    }

    #[test]
    fn the_ordinal_comes_from_the_pod_name_only() {
        let text = "replica-$(STATEFULSET_ORDINAL_NUMBER)";
        // An environment variable of that name is not read: the pod name decides.
        let spoofed = env(&[("STATEFULSET_ORDINAL_NUMBER", "9"), ("POD_NAME", "a-b-12")]);
        assert_eq!(substitute(text, &spoofed).as_deref(), Ok("replica-12"));
        let err = substitute(text, &env(&[("STATEFULSET_ORDINAL_NUMBER", "9")]))
            .expect_err("no POD_NAME");
        assert!(err.to_string().contains("POD_NAME is not set"), "{err}");
        let err =
            substitute(text, &env(&[("POD_NAME", "agent-logs-x7k2q")])).expect_err("no ordinal");
        assert!(
            err.to_string()
                .contains("\"agent-logs-x7k2q\", which does not end in -N"),
            "{err}"
        );
        assert_eq!(statefulset_ordinal("agent-0"), Some("0".to_owned()));
        assert_eq!(statefulset_ordinal("agent-"), None);
        assert_eq!(statefulset_ordinal("agent"), None);
        assert_eq!(statefulset_ordinal("agent-1a"), None);
    }

    #[test]
    fn a_value_that_could_change_the_yaml_is_refused() {
        for value in ["1\nextra: x", "${X}", "$(SHARD)", "1: 2", "'", "a b", "#"] {
            let err = substitute("regex: $(SHARD)\n", &env(&[("SHARD", value)]))
                .expect_err("unsafe value");
            assert!(
                matches!(&err, LoaderVariableError::UnsafeValue { variable, line: 1, .. } if variable == "SHARD"),
                "{value:?}: {err}"
            );
        }
        assert_eq!(
            substitute("$(SHARD_BUCKETS)", &env(&[("SHARD_BUCKETS", "(none)")])).as_deref(),
            Ok("(none)")
        );
    }

    #[test]
    fn every_operator_reference_the_renderer_writes_is_one() {
        use crate::config::metrics::global::REPLICA_LABEL_VALUE;
        use crate::expansion::SHARD_VARIABLES;
        for reference in SHARD_VARIABLES.iter().copied().chain([
            REPLICA_LABEL_VALUE,
            crate::alloy_native::metrics::CLUSTER_REPLICA_VALUE,
            "$(SHARD_BUCKETS)",
        ]) {
            let substituted = substitute(reference, &pod_env()).expect("substitutes");
            assert!(!substituted.contains("$("), "{reference} -> {substituted}");
        }
    }
}
