//! Which files a PodLogs reads is the operator's choice, never the PodLogs' (issue 38, item 2).
//!
//! Promtail tails the files `__path__` names after relabeling, from the privileged logs
//! DaemonSet that sees the node's `/var/log`, the agent's Secrets and its service-account
//! token. The operator sets `__path__` to the pod's own log files (`/var/log/pods/*<uid>/
//! <container>/*.log`) before the PodLogs' `relabelings` run, from discovery labels no rule
//! has touched yet. So a user rule must never be able to write `__path__`: it can only remove
//! it (`labeldrop`, `labelkeep`), which drops the target, or leave it alone.
//!
//! The operator's rule stays before the user rules rather than after them: after them its
//! sources (`__meta_kubernetes_pod_uid`, `__meta_kubernetes_pod_container_name`) would be the
//! user's to rewrite or drop (a uid of `0` globs every pod whose uid ends in 0).
//!
//! What each action can write (Prometheus' `relabel`):
//! * `replace` writes the label its `targetLabel` expands to (`$1`, `${name}` refer to the
//!   regex's groups, matched against label *values*, which a tenant controls: any text);
//! * `lowercase`, `uppercase`, `hashmod` write `targetLabel` as written;
//! * `labelmap` writes, for each label whose *name* matches the regex, the label its
//!   `replacement` expands to;
//! * `keep`, `drop`, `keepequal`, `dropequal`, `labeldrop`, `labelkeep` write nothing.
//!
//! A reference is taken to expand to any text, except in one shape of `labelmap`, the usual
//! one: a regex that is a pod label or annotation meta prefix followed by one group
//! (`__meta_kubernetes_pod_label_(.+)`). Its group then holds the rest of a Kubernetes label
//! key, sanitized: letters, digits and `_`, ending in a letter or digit (and, right after the
//! prefix, starting with one), so `$1` cannot be `__path__`. That holds only while those meta
//! labels are the discovery's own, so no user rule may write a name in those families either.

use api::prometheus::RelabelConfig;

use crate::config::common::FieldError;
use crate::rejection::Reason;

/// The label promtail reads files from.
pub const PATH_LABEL: &str = "__path__";

/// Discovery label families whose names end in a sanitized Kubernetes label or annotation
/// key (promtail's `role: pod` discovery).
const KEY_FAMILIES: &[&str] = &[
    "__meta_kubernetes_pod_label_",
    "__meta_kubernetes_pod_labelpresent_",
    "__meta_kubernetes_pod_annotation_",
    "__meta_kubernetes_pod_annotationpresent_",
];

/// Refuses the first rule of `rules` (at `field`, e.g. `spec.relabelings`) that could write
/// `__path__` or a pod label or annotation meta label.
pub fn check_user_rules(rules: &[RelabelConfig], field: &str) -> Result<(), FieldError> {
    rules
        .iter()
        .enumerate()
        .try_for_each(|(i, r)| check_rule(r, &format!("{field}[{i}]")))
}

fn check_rule(rule: &RelabelConfig, field: &str) -> Result<(), FieldError> {
    let action = rule.action.to_ascii_lowercase();
    let non_empty = |v: &Option<String>| v.clone().filter(|s| !s.is_empty());
    let (written, what, at) = match action.as_str() {
        "" | "replace" | "lowercase" | "uppercase" | "hashmod" => {
            let Some(target) = non_empty(&rule.target_label) else {
                return Ok(());
            };
            let pattern = if action.is_empty() || action == "replace" {
                expansion(&target, None)
            } else {
                vec![Segment::Literal(target.clone())]
            };
            (pattern, format!("targetLabel {target:?}"), "targetLabel")
        }
        "labelmap" => {
            let replacement = non_empty(&rule.replacement).unwrap_or_else(|| "$1".to_owned());
            let regex = non_empty(&rule.regex).unwrap_or_else(|| "(.*)".to_owned());
            let pattern = expansion(&replacement, key_family_group(&regex));
            (
                pattern,
                format!("labelmap replacement {replacement:?} (regex {regex:?})"),
                "replacement",
            )
        }
        _ => return Ok(()),
    };
    let field = format!("{field}.{at}");
    if can_produce(&written, PATH_LABEL, Mode::Exact) {
        let how = if written.iter().all(|s| matches!(s, Segment::Literal(_))) {
            "sets"
        } else {
            "can set"
        };
        return Err(FieldError::because(
            Reason::FileAccessDenied,
            field,
            format!(
                "{what} {how} {PATH_LABEL}, the files the logs DaemonSet reads; the operator sets it to the pod's own log files and a PodLogs cannot change it (write the label name out, or drop the rule)"
            ),
        ));
    }
    if let Some(family) = KEY_FAMILIES
        .iter()
        .find(|f| can_produce(&written, f, Mode::Prefix))
    {
        return Err(FieldError::because(
            Reason::FileAccessDenied,
            field,
            format!(
                "{what} can write a {family}* label; those stay the discovery's own so that no labelmap can turn one into {PATH_LABEL} (write the label name out, outside that family)"
            ),
        ));
    }
    Ok(())
}

/// A piece of the names a template can expand to.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Segment {
    Literal(String),
    /// Any text.
    Any,
    /// A whole sanitized Kubernetes key, or nothing: `[A-Za-z0-9]([A-Za-z0-9_]*[A-Za-z0-9])?`.
    Key,
    /// The end of a sanitized key, or nothing: `([A-Za-z0-9_]*[A-Za-z0-9])?`.
    KeyTail,
}

/// What group 1 of a `labelmap` regex holds when the regex is a literal starting with a
/// key family followed by one group and nothing else: [`Segment::Key`] right after the
/// family prefix, [`Segment::KeyTail`] after more of the key. `None` for any other regex.
fn key_family_group(regex: &str) -> Option<Segment> {
    use regex_syntax::hir::HirKind;
    let hir = regex_syntax::Parser::new().parse(regex).ok()?;
    let HirKind::Concat(parts) = hir.kind() else {
        return None;
    };
    let [prefix, group] = parts.as_slice() else {
        return None;
    };
    let (HirKind::Literal(prefix), HirKind::Capture(capture)) = (prefix.kind(), group.kind())
    else {
        return None;
    };
    if capture.index != 1 || capture.sub.properties().explicit_captures_len() != 0 {
        return None;
    }
    let prefix = std::str::from_utf8(&prefix.0).ok()?;
    let family = KEY_FAMILIES.iter().find(|f| prefix.starts_with(*f))?;
    Some(if prefix.len() == family.len() {
        Segment::Key
    } else {
        Segment::KeyTail
    })
}

/// The names `template` can expand to, as Go's `Regexp.Expand` reads it: `$$` is `$`,
/// `$name` and `${name}` refer to groups (any text, or `group1` for `$1`), any other `$` is
/// itself.
fn expansion(template: &str, group1: Option<Segment>) -> Vec<Segment> {
    let is_name = |c: char| c.is_alphanumeric() || c == '_';
    let mut out = Vec::new();
    let mut literal = String::new();
    let mut rest = template;
    while let Some(at) = rest.find('$') {
        literal.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let (name, tail) = if let Some(next) = after.strip_prefix('$') {
            literal.push('$');
            rest = next;
            continue;
        } else if let Some(braced) = after.strip_prefix('{') {
            match braced.find('}') {
                Some(end) if end > 0 && braced[..end].chars().all(is_name) => {
                    (&braced[..end], &braced[end + 1..])
                }
                _ => ("", after),
            }
        } else {
            let end = after.find(|c: char| !is_name(c)).unwrap_or(after.len());
            (&after[..end], &after[end..])
        };
        if name.is_empty() {
            literal.push('$');
        } else {
            if !literal.is_empty() {
                out.push(Segment::Literal(std::mem::take(&mut literal)));
            }
            out.push(match (&group1, name) {
                (Some(g), "1") => g.clone(),
                _ => Segment::Any,
            });
        }
        rest = tail;
    }
    literal.push_str(rest);
    if !literal.is_empty() {
        out.push(Segment::Literal(literal));
    }
    out
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// The pattern can expand to exactly the text.
    Exact,
    /// The pattern can expand to something starting with the text.
    Prefix,
}

/// Whether `pattern` can expand to `text` (or, in [`Mode::Prefix`], to a name starting with
/// it): a walk of the pattern's states over `text`, character by character.
fn can_produce(pattern: &[Segment], text: &str, mode: Mode) -> bool {
    // A state is (segment, position): the characters of a literal matched so far, or for a
    // key segment 0 = nothing yet, 1 = after a letter or digit, 2 = after `_`.
    let can_end = |(i, pos): (usize, usize)| match &pattern[i] {
        Segment::Literal(l) => pos == l.len(),
        Segment::Any => true,
        Segment::Key | Segment::KeyTail => pos != 2,
    };
    let close = |states: Vec<(usize, usize)>| {
        let mut all = std::collections::BTreeSet::new();
        let mut todo = states;
        while let Some(s) = todo.pop() {
            if all.insert(s) && s.0 < pattern.len() && can_end(s) {
                todo.push((s.0 + 1, 0));
            }
        }
        all
    };
    let mut states = close(vec![(0, 0)]);
    for c in text.chars() {
        let word = c.is_ascii_alphanumeric();
        let next = states
            .iter()
            .filter(|(i, _)| *i < pattern.len())
            .filter_map(|&(i, pos)| match &pattern[i] {
                Segment::Literal(l) => l[pos..].starts_with(c).then(|| (i, pos + c.len_utf8())),
                Segment::Any => Some((i, 0)),
                Segment::Key if pos == 0 => word.then_some((i, 1)),
                Segment::Key | Segment::KeyTail => {
                    (word || c == '_').then_some((i, if word { 1 } else { 2 }))
                }
            })
            .collect();
        states = close(next);
        if states.is_empty() {
            return false;
        }
    }
    match mode {
        Mode::Exact => states.contains(&(pattern.len(), 0)),
        Mode::Prefix => !states.is_empty(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(action: &str, regex: &str, target: &str, replacement: &str) -> RelabelConfig {
        let some = |s: &str| Some(s.to_owned()).filter(|s| !s.is_empty());
        RelabelConfig {
            source_labels: vec!["__meta_kubernetes_pod_annotation_x".into()],
            regex: some(regex),
            target_label: some(target),
            replacement: some(replacement),
            action: action.into(),
            ..Default::default()
        }
    }

    fn refused(r: RelabelConfig) -> FieldError {
        let e = check_user_rules(&[RelabelConfig::default(), r.clone()], "spec.relabelings")
            .expect_err(&format!("{r:?} is refused"));
        assert_eq!(e.reason, Reason::FileAccessDenied);
        e
    }

    #[test]
    fn every_way_to_write_the_path_is_refused_naming_the_field() {
        for action in [
            "",
            "replace",
            "Replace",
            "lowercase",
            "uppercase",
            "hashmod",
        ] {
            let e = refused(rule(action, "", "__path__", "/etc/passwd"));
            assert_eq!(e.field, "spec.relabelings[1].targetLabel", "{action}");
            assert!(e.message.contains("sets __path__"), "{}", e.message);
        }
        // Target templates a value can expand to `__path__`.
        for target in ["${1}", "$1", "_${1}", "__pa${x}th__", "$a$b", "${1}__"] {
            let e = refused(rule("replace", "(.*)", target, "/etc/passwd"));
            assert_eq!(e.field, "spec.relabelings[1].targetLabel", "{target}");
            assert!(e.message.contains("can set __path__"), "{}", e.message);
        }
        // labelmap: a literal replacement, a template around any group, the usual prefix
        // with text that makes `__path__` around the key, and the default regex `(.*)`.
        for (regex, replacement) in [
            ("__meta_kubernetes_pod_annotation_evil", "__path__"),
            ("__meta_kubernetes_(.+)", "$1"),
            ("__meta_kubernetes_pod_label_(.+)", "__${1}__"),
            ("__meta_kubernetes_pod_label_app_x(.*)y", "$1"),
            ("(.*)", ""),
            ("__meta_kubernetes_pod_label_(.+)", "$2"),
            ("__meta_kubernetes_pod_label_(.+)(x)", "$1"),
            ("(?i)__meta_kubernetes_pod_label_(.+)", "$1"),
        ] {
            let e = refused(rule("labelmap", regex, "", replacement));
            assert_eq!(e.field, "spec.relabelings[1].replacement", "{regex}");
        }
    }

    #[test]
    fn the_pod_label_and_annotation_families_are_the_discoverys_own() {
        for target in [
            "__meta_kubernetes_pod_label___path__",
            "__meta_kubernetes_pod_annotation_x",
            "__meta_${1}",
            "${1}_x",
            "__meta_kubernetes_pod_labelpresent_$1",
        ] {
            let e = refused(rule("replace", "(.*)", target, "x"));
            assert!(
                e.message.contains("__meta_kubernetes_pod_"),
                "{}",
                e.message
            );
        }
        let e = refused(rule(
            "labelmap",
            "(.+)",
            "",
            "__meta_kubernetes_pod_label_$1",
        ));
        assert_eq!(e.field, "spec.relabelings[1].replacement");
        // After more than the family prefix the group can start with `_`: a pod label
        // `app-kubernetes-io---meta-kubernetes-pod-label-x` maps to a family label.
        let e = refused(rule(
            "labelmap",
            "__meta_kubernetes_pod_label_app_kubernetes_io_(.+)",
            "",
            "",
        ));
        assert!(
            e.message.contains("__meta_kubernetes_pod_label_*"),
            "{}",
            e.message
        );
    }

    #[test]
    fn honest_rules_pass() {
        let ok = [
            rule("replace", "", "app", ""),
            rule("replace", "(.*)", "team_${1}", "$1"),
            rule("replace", "", "__tmp_path", ""),
            rule("replace", "", "__meta_kubernetes_pod_uid", "x"),
            rule("lowercase", "", "level", ""),
            rule("hashmod", "", "__tmp_hash", ""),
            rule("labelmap", "__meta_kubernetes_pod_label_(.+)", "", ""),
            rule("labelmap", "__meta_kubernetes_pod_label_(.*)", "", "$1"),
            rule(
                "labelmap",
                "__meta_kubernetes_pod_annotation_(.+)",
                "",
                "a_${1}",
            ),
            rule("labelmap", "__meta_kubernetes_pod_label_(.+)", "", "_$1"),
            rule("labelmap", "__meta_kubernetes_pod_label_(.+)", "", "${1}__"),
            rule("labelmap", "(.+)", "", "k8s_$1"),
            rule("labeldrop", "__path__", "", ""),
            rule("labelkeep", "namespace|pod", "", ""),
            rule("keep", "x", "", ""),
            rule("dropequal", "", "__path__", ""),
        ];
        check_user_rules(&ok, "spec.relabelings").expect("honest rules");
    }

    #[test]
    fn templates_expand_as_go_reads_them() {
        use Segment::*;
        let lit = |s: &str| Literal(s.to_owned());
        assert_eq!(expansion("a$$b", None), vec![lit("a$b")]);
        assert_eq!(expansion("$", None), vec![lit("$")]);
        assert_eq!(expansion("${}x", None), vec![lit("${}x")]);
        assert_eq!(expansion("${1", None), vec![lit("${1")]);
        assert_eq!(expansion("${a-b}", None), vec![lit("${a-b}")]);
        assert_eq!(
            expansion("x${1}y", Some(Key)),
            vec![lit("x"), Key, lit("y")]
        );
        assert_eq!(expansion("$1x", Some(Key)), vec![Any]);
        assert_eq!(
            expansion("$1-$01", Some(KeyTail)),
            vec![KeyTail, lit("-"), Any]
        );
        assert_eq!(expansion("é$é", None), vec![lit("é"), Any]);
    }

    #[test]
    fn key_segments_follow_sanitized_keys() {
        use Segment::*;
        let p = |segments: &[Segment], text: &str| can_produce(segments, text, Mode::Exact);
        assert!(p(&[Key], "app"));
        assert!(p(&[Key], ""));
        assert!(!p(&[Key], "_app"));
        assert!(!p(&[Key], "app_"));
        assert!(p(&[KeyTail], "_app"));
        assert!(!p(&[KeyTail], "__path__"));
        assert!(p(
            &[Literal("__".into()), KeyTail, Literal("__".into())],
            "__path__"
        ));
        assert!(p(&[Any, Literal("th__".into())], "__path__"));
        assert!(!p(&[Literal("x".into()), Any], "__path__"));
        assert!(can_produce(
            &[Literal("__meta_".into()), Any],
            "__meta_kubernetes_pod_label_",
            Mode::Prefix
        ));
        assert!(!can_produce(&[Key], "__meta_", Mode::Prefix));
        assert!(p(&[], ""));
    }
}
