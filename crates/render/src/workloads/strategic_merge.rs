//! `spec.containers` applied onto the operator's containers as a Kubernetes strategic merge
//! patch, by container name (spec 3.5).
//!
//! This is an approximation of apimachinery's `strategicpatch.StrategicMergePatch` for the
//! `Container` type, enough for patches that come from a typed `Container` (which cannot hold
//! `$patch`/`$retainKeys` directives or `null`s):
//!
//! * objects merge field by field, recursively (e.g. `resources.limits`, `securityContext`);
//! * the lists Kubernetes marks `patchStrategy: merge` merge by their `patchMergeKey`:
//!   `env` by `name`, `ports` by `containerPort`, `volumeMounts` by `mountPath` and
//!   `volumeDevices` by `devicePath`. A patch item whose key matches an existing item is
//!   merged into it in place; the others are appended in patch order;
//! * every other list (`args`, `command`, `envFrom`, ...) and every scalar is replaced;
//! * empty strings and empty lists in the patch change nothing, because upstream's patch is
//!   the Go JSON encoding of the container, where `omitempty` drops them.
//!
//! Not reproduced: merge keys of lists nested below the container's own fields (Kubernetes
//! has none with a merge strategy inside `Container`), and directives. Because objects merge
//! recursively, a patch can leave two handlers on a probe (e.g. the operator's `httpGet` plus
//! a patched `exec`) or both `value` and `valueFrom` on an env var; [`merge_containers`]
//! reports such results instead of producing a container the API server would refuse.

use k8s_openapi::api::core::v1::{Container, Probe};
use serde_json::{Map, Value};

use super::labels::rules;

/// A patch that could not be applied, with the field path inside the patch container.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatchError {
    /// Index into the list of patches.
    pub index: usize,
    /// Path below `spec.containers[index]`, e.g. `.readinessProbe`; empty for the container.
    pub field: String,
    pub message: String,
}

/// The lists of `Container` that Kubernetes merges by key rather than replaces.
fn merge_key(field: &str) -> Option<&'static str> {
    match field {
        "env" => Some("name"),
        "ports" => Some("containerPort"),
        "volumeMounts" => Some("mountPath"),
        "volumeDevices" => Some("devicePath"),
        _ => None,
    }
}

/// Go's `omitempty` drops these from upstream's patch, so they change nothing.
fn is_omitted(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        _ => false,
    }
}

/// Merges the object `patch` into `base`; `top_level` enables the container's merge keys.
fn merge_object(base: &mut Map<String, Value>, patch: &Map<String, Value>, top_level: bool) {
    for (key, patch_value) in patch {
        if is_omitted(patch_value) {
            continue;
        }
        match (base.get_mut(key), patch_value) {
            (Some(Value::Object(b)), Value::Object(p)) => merge_object(b, p, false),
            (Some(Value::Array(b)), Value::Array(p)) if top_level => match merge_key(key) {
                Some(k) => merge_list(b, p, k),
                None => *b = p.clone(),
            },
            _ => {
                base.insert(key.clone(), patch_value.clone());
            }
        }
    }
}

fn merge_list(base: &mut Vec<Value>, patch: &[Value], key: &str) {
    for item in patch {
        let wanted = item.get(key);
        let existing = wanted.and_then(|w| base.iter_mut().find(|b| b.get(key) == Some(w)));
        match (existing, item) {
            (Some(Value::Object(b)), Value::Object(p)) => merge_object(b, p, false),
            _ => base.push(item.clone()),
        }
    }
}

/// `patch` applied onto `base` as a strategic merge patch.
pub fn merge_container(base: &Container, patch: &Container) -> Result<Container, String> {
    let to_map = |c: &Container| match serde_json::to_value(c) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => Err("a container is not a JSON object".to_owned()),
        Err(e) => Err(e.to_string()),
    };
    let mut merged = to_map(base)?;
    merge_object(&mut merged, &to_map(patch)?, true);
    serde_json::from_value(Value::Object(merged)).map_err(|e| e.to_string())
}

/// Applies `patches` onto `base` by name: a patch naming a base container is merged into
/// it, the others are appended in order (spec 3.5). Problems are reported per patch and the
/// patch is then left out, so that the caller can reject the whole template.
pub fn merge_containers(
    base: Vec<Container>,
    patches: &[Container],
) -> Result<Vec<Container>, Vec<PatchError>> {
    let mut errors = Vec::new();
    let mut containers = base;
    let operator_names: Vec<String> = containers.iter().map(|c| c.name.clone()).collect();
    for (index, patch) in patches.iter().enumerate() {
        let error = |field: &str, message: String| PatchError {
            index,
            field: field.to_owned(),
            message,
        };
        if patch.name.is_empty() {
            errors.push(error(
                ".name",
                "names no container: a patch needs the name of the container it changes (config-reloader, grafana-agent) or of a new container".to_owned(),
            ));
            continue;
        }
        if let Some(first) = patches[..index].iter().position(|p| p.name == patch.name) {
            errors.push(error(
                ".name",
                format!(
                    "container {:?} is already patched by spec.containers[{first}]",
                    patch.name
                ),
            ));
            continue;
        }
        let position = operator_names.iter().position(|n| *n == patch.name);
        let result = match position {
            Some(i) => merge_container(&containers[i], patch),
            None => Ok(patch.clone()),
        };
        let merged = match result {
            Ok(c) => c,
            Err(e) => {
                errors.push(error("", format!("cannot be merged: {e}")));
                continue;
            }
        };
        if position.is_none()
            && let Err(e) = rules::dns1123_label(&patch.name)
        {
            errors.push(error(
                ".name",
                format!("container name {:?} is not valid: it {e}", patch.name),
            ));
            continue;
        }
        if position.is_none() && merged.image.as_deref().unwrap_or_default().is_empty() {
            errors.push(error(
                ".image",
                format!(
                    "container {:?} is not one of the operator's (config-reloader, grafana-agent), so it is added and needs an image",
                    patch.name
                ),
            ));
            continue;
        }
        let problems = container_problems(&merged);
        if !problems.is_empty() {
            errors.extend(problems.into_iter().map(|(f, m)| error(&f, m)));
            continue;
        }
        match position {
            Some(i) => containers[i] = merged,
            None => containers.push(merged),
        }
    }
    if errors.is_empty() {
        Ok(containers)
    } else {
        Err(errors)
    }
}

/// Contradictions the merge can create, which the API server would refuse.
fn container_problems(c: &Container) -> Vec<(String, String)> {
    let mut problems = Vec::new();
    for (name, probe) in [
        ("livenessProbe", &c.liveness_probe),
        ("readinessProbe", &c.readiness_probe),
        ("startupProbe", &c.startup_probe),
    ] {
        if let Some(p) = probe
            && handler_count(p) > 1
        {
            problems.push((
                format!(".{name}"),
                format!(
                    "the {name} of container {:?} would have {} handlers (exec, httpGet, tcpSocket, grpc) after merging with the operator's; a probe takes exactly one, and a patch merges into the operator's probe without removing its handler",
                    c.name,
                    handler_count(p)
                ),
            ));
        }
    }
    for (i, env) in c.env.iter().flatten().enumerate() {
        let has_value = env.value.as_deref().is_some_and(|v| !v.is_empty());
        if has_value && env.value_from.is_some() {
            problems.push((
                format!(".env[{i}]"),
                format!(
                    "env var {:?} of container {:?} would have both value and valueFrom after merging with the operator's",
                    env.name, c.name
                ),
            ));
        }
    }
    problems
}

fn handler_count(p: &Probe) -> usize {
    [
        p.exec.is_some(),
        p.http_get.is_some(),
        p.tcp_socket.is_some(),
        p.grpc.is_some(),
    ]
    .into_iter()
    .filter(|b| *b)
    .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn container(yaml: &str) -> Container {
        serde_saphyr::from_str(yaml).expect("container yaml")
    }

    fn base() -> Container {
        container(
            r#"
name: grafana-agent
image: grafana/agent:v0.44.8
args: [-config.file=/x]
env:
- {name: POD_NAME, valueFrom: {fieldRef: {fieldPath: metadata.name}}}
- {name: AGENT_DEPLOY_MODE, value: operator}
ports: [{name: http-metrics, containerPort: 8080, protocol: TCP}]
volumeMounts:
- {name: config, mountPath: /var/lib/grafana-agent/config-in, readOnly: true}
readinessProbe: {httpGet: {path: /-/ready, port: http-metrics}, timeoutSeconds: 3}
resources: {requests: {cpu: 100m}}
securityContext: {privileged: false}
"#,
        )
    }

    #[test]
    fn objects_merge_and_scalars_replace() {
        let patch = container(
            r#"
name: grafana-agent
image: my/agent:1
resources: {limits: {memory: 1Gi}}
securityContext: {runAsUser: 1000}
"#,
        );
        let merged = merge_container(&base(), &patch).expect("merge");
        assert_eq!(merged.image.as_deref(), Some("my/agent:1"));
        let res = merged.resources.expect("resources");
        assert_eq!(res.requests.expect("requests")["cpu"].0, "100m");
        assert_eq!(res.limits.expect("limits")["memory"].0, "1Gi");
        let sc = merged.security_context.expect("sc");
        assert_eq!(sc.privileged, Some(false));
        assert_eq!(sc.run_as_user, Some(1000));
        assert_eq!(merged.args, Some(vec!["-config.file=/x".to_owned()]));
    }

    #[test]
    fn keyed_lists_merge_by_their_patch_merge_key() {
        let patch = container(
            r#"
name: grafana-agent
env:
- {name: AGENT_DEPLOY_MODE, value: custom}
- {name: EXTRA, value: "1"}
ports: [{containerPort: 8080, hostPort: 18080}, {containerPort: 9000, name: other}]
volumeMounts:
- {name: config, mountPath: /var/lib/grafana-agent/config-in, readOnly: false}
- {name: extra, mountPath: /extra}
args: [-a, -b]
"#,
        );
        let merged = merge_container(&base(), &patch).expect("merge");
        let env: Vec<(String, Option<String>)> = merged
            .env
            .expect("env")
            .into_iter()
            .map(|e| (e.name, e.value))
            .collect();
        assert_eq!(
            env,
            vec![
                ("POD_NAME".to_owned(), None),
                ("AGENT_DEPLOY_MODE".to_owned(), Some("custom".to_owned())),
                ("EXTRA".to_owned(), Some("1".to_owned())),
            ]
        );
        let ports = merged.ports.expect("ports");
        assert_eq!(ports.len(), 2);
        assert_eq!(ports[0].name.as_deref(), Some("http-metrics"));
        assert_eq!(ports[0].host_port, Some(18080));
        assert_eq!(ports[1].container_port, 9000);
        let mounts = merged.volume_mounts.expect("mounts");
        assert_eq!(mounts.len(), 2);
        assert_eq!(mounts[0].read_only, Some(false));
        assert_eq!(mounts[1].mount_path, "/extra");
        // Lists without a merge key are replaced.
        assert_eq!(merged.args, Some(vec!["-a".to_owned(), "-b".to_owned()]));
    }

    #[test]
    fn empty_values_in_the_patch_change_nothing() {
        let mut patch = container("name: grafana-agent");
        patch.image = Some(String::new());
        patch.args = Some(Vec::new());
        let merged = merge_container(&base(), &patch).expect("merge");
        assert_eq!(merged, base());
    }

    #[test]
    fn unknown_names_are_appended_in_order() {
        let patches = vec![
            container("{name: sidecar-b, image: b}"),
            container("{name: grafana-agent, image: mine}"),
            container("{name: sidecar-a, image: a}"),
        ];
        let merged = merge_containers(vec![base()], &patches).expect("merge");
        let names: Vec<&str> = merged.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["grafana-agent", "sidecar-b", "sidecar-a"]);
        assert_eq!(merged[0].image.as_deref(), Some("mine"));
    }

    #[test]
    fn bad_patches_are_reported() {
        let patches = vec![
            container("{name: ''}"),
            container("{name: sidecar}"),
            container("{name: grafana-agent, readinessProbe: {exec: {command: [true]}}}"),
            container("{name: grafana-agent, image: twice}"),
            container(
                "{name: grafana-agent-2, image: x, env: [{name: A, value: b, valueFrom: {fieldRef: {fieldPath: x}}}]}",
            ),
        ];
        let errors = merge_containers(vec![base()], &patches).expect_err("errors");
        let got: Vec<(usize, &str)> = errors.iter().map(|e| (e.index, e.field.as_str())).collect();
        assert_eq!(
            got,
            [
                (0, ".name"),
                (1, ".image"),
                (2, ".readinessProbe"),
                (3, ".name"),
                (4, ".env[0]")
            ]
        );
    }

    #[test]
    fn env_value_over_value_from_is_a_contradiction() {
        let patch = container("{name: grafana-agent, env: [{name: POD_NAME, value: x}]}");
        let errors = merge_containers(vec![base()], &[patch]).expect_err("errors");
        assert_eq!(errors[0].field, ".env[0]");
    }
}
