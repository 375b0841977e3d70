//! The install manifests: the kustomize base (`deploy/`), its overlay and component, and the Helm
//! chart (`deploy/helm/`) render, agree with each other, and keep upstream's value names.
//!
//! `kubectl kustomize` is built into kubectl; helm is built from its Go module by
//! `scripts/build-helm` (cached; `$HELM` overrides it). Both are required: nothing is skipped.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use pretty_assertions::assert_eq;
use serde_json::Value;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs a tool from the repository root and returns its stdout; any failure fails the test.
fn run(program: &Path, args: &[&str]) -> String {
    let out = Command::new(program)
        .args(args)
        .current_dir(root())
        .output()
        .unwrap_or_else(|e| panic!("{} is required by this test: {e}", program.display()));
    assert!(
        out.status.success(),
        "{} {args:?} failed:\n{}",
        program.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

fn kubectl() -> PathBuf {
    std::env::var_os("KUBECTL")
        .unwrap_or_else(|| "kubectl".into())
        .into()
}

/// The pinned helm, built once per test binary when it is not cached yet.
fn helm() -> &'static Path {
    static HELM: OnceLock<PathBuf> = OnceLock::new();
    HELM.get_or_init(|| {
        if let Some(helm) = std::env::var_os("HELM") {
            return helm.into();
        }
        let path = run(&root().join("scripts/build-helm"), &[]);
        PathBuf::from(path.trim())
    })
}

fn kustomize(dir: &str) -> String {
    run(&kubectl(), &["kustomize", dir])
}

/// `helm template` of the chart as `helm install grafana-agent-operator -n agent-operator` would
/// render it, CRDs included.
fn helm_template(extra: &[&str]) -> String {
    let mut args = vec![
        "template",
        "grafana-agent-operator",
        "deploy/helm",
        "--namespace",
        "agent-operator",
        "--include-crds",
    ];
    args.extend_from_slice(extra);
    run(helm(), &args)
}

/// A YAML stream as objects keyed by kind, namespace and name.
fn objects(stream: &str) -> BTreeMap<String, Value> {
    let docs: Vec<Value> = serde_saphyr::from_multiple(stream).expect("a YAML stream");
    let mut objects = BTreeMap::new();
    for doc in docs.into_iter().filter(|d| !d.is_null()) {
        let key = format!(
            "{}/{}/{}",
            doc["kind"].as_str().expect("kind"),
            doc["metadata"]["namespace"].as_str().unwrap_or(""),
            doc["metadata"]["name"].as_str().expect("metadata.name"),
        );
        assert!(objects.insert(key.clone(), doc).is_none(), "{key} twice");
    }
    objects
}

/// The helm chart's objects without the two labels Helm's conventions add (the chart and the
/// managing tool), which a kustomize build has no counterpart for.
fn without_helm_labels(mut objects: BTreeMap<String, Value>) -> BTreeMap<String, Value> {
    for object in objects.values_mut() {
        let labels = object
            .get_mut("metadata")
            .and_then(|m| m.get_mut("labels"))
            .and_then(Value::as_object_mut);
        if let Some(labels) = labels {
            assert_eq!(
                labels.remove("app.kubernetes.io/managed-by"),
                Some("Helm".into())
            );
            assert!(labels.remove("helm.sh/chart").is_some(), "{labels:?}");
        }
    }
    objects
}

/// Pretty JSON with every object's keys sorted and whole floats written as integers, so a
/// difference shows as a readable diff and what YAML gives no meaning does not count: key order,
/// and `0.0` vs `0` (helm passes CRD files through as written, kustomize re-serializes them).
fn canonical(objects: &BTreeMap<String, Value>) -> String {
    fn sorted(value: &Value) -> Value {
        match value {
            Value::Object(map) => {
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort();
                Value::Object(
                    keys.into_iter()
                        .map(|k| (k.clone(), sorted(&map[k])))
                        .collect(),
                )
            }
            Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
            Value::Number(n) if n.is_f64() => match n.as_f64() {
                Some(f) if f.fract() == 0.0 && f.abs() < 1e15 => Value::from(f as i64),
                _ => value.clone(),
            },
            other => other.clone(),
        }
    }
    let objects: BTreeMap<&String, Value> = objects.iter().map(|(k, v)| (k, sorted(v))).collect();
    serde_json::to_string_pretty(&objects).expect("JSON")
}

/// A scratch kustomization under target/ that adds `components` to the base.
fn with_components(name: &str, components: &[&str]) -> String {
    let dir = root().join("target/deploy-tests").join(name);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let up = "../../../deploy";
    let components: Vec<String> = components.iter().map(|c| format!("{up}/{c}")).collect();
    std::fs::write(
        dir.join("kustomization.yaml"),
        format!(
            "resources: [{up}]\ncomponents: [{}]\n",
            components.join(", ")
        ),
    )
    .expect("write kustomization");
    kustomize(dir.to_str().expect("UTF-8 path"))
}

#[test]
fn helm_chart_defaults_render_the_kustomize_base() {
    let mut base = objects(&kustomize("deploy/"));
    // Helm creates the release namespace itself (`--create-namespace`), a chart does not.
    assert!(base.remove("Namespace//agent-operator").is_some());
    let chart = without_helm_labels(objects(&helm_template(&[])));
    assert_eq!(canonical(&chart), canonical(&base));
}

#[test]
fn helm_service_monitor_renders_the_kustomize_component() {
    let mut base = objects(&with_components(
        "servicemonitor",
        &["components/servicemonitor"],
    ));
    base.remove("Namespace//agent-operator");
    let chart = without_helm_labels(objects(&helm_template(&[
        "--set",
        "serviceMonitor.enabled=true",
    ])));
    assert!(chart.contains_key("ServiceMonitor/agent-operator/grafana-agent-operator"));
    assert_eq!(canonical(&chart), canonical(&base));
}

#[test]
fn helm_lint_is_clean() {
    let out = run(helm(), &["lint", "--strict", "deploy/helm"]);
    assert!(out.contains("0 chart(s) failed"), "{out}");
}

#[test]
fn helm_chart_crds_are_the_generated_ones() {
    let generated = std::fs::read_to_string(root().join("deploy/crds/crds.yaml")).expect("crds");
    let path = root().join("deploy/helm/crds/crds.yaml");
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, &generated).expect("write deploy/helm/crds/crds.yaml");
    }
    let copied = std::fs::read_to_string(&path).expect("deploy/helm/crds/crds.yaml");
    assert!(
        copied == generated,
        "deploy/helm/crds/crds.yaml differs from deploy/crds/crds.yaml: rerun with UPDATE_GOLDEN=1"
    );
}

/// A values file written for upstream's grafana-agent-operator chart keeps working.
#[test]
fn helm_values_of_the_upstream_chart_keep_their_meaning() {
    let values = root().join("target/deploy-tests/upstream-values.yaml");
    std::fs::create_dir_all(values.parent().expect("parent")).expect("scratch dir");
    std::fs::write(
        &values,
        r#"
image: {registry: registry.example, repository: team/agent-operator, tag: v9, pullPolicy: Always,
        pullSecrets: [{name: pull}]}
annotations: {deployment: annotated}
podAnnotations: {pod: annotated}
podLabels: {team: observability}
kubeletService: {namespace: monitoring, serviceName: kubelet-endpoints}
extraArgs: [--log.level=debug, "--agent-selector=team in (a,b)"]
resources: {limits: {memory: 1Gi}}
nodeSelector: {kubernetes.io/os: linux}
tolerations: [{key: dedicated, operator: Exists}]
affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: zone, operator: In, values: [a]}]}]}}}
hostAliases: [{ip: 10.0.0.1, hostnames: [api.example]}]
serviceAccount: {create: true, name: custom-sa}
"#,
    )
    .expect("write values");
    let chart = objects(&helm_template(&[
        "--values",
        values.to_str().expect("UTF-8 path"),
    ]));
    let deployment = &chart["Deployment/agent-operator/grafana-agent-operator"];
    let pod = &deployment["spec"]["template"];
    let container = &pod["spec"]["containers"][0];
    assert_eq!(
        container["image"],
        "registry.example/team/agent-operator:v9"
    );
    assert_eq!(container["imagePullPolicy"], "Always");
    assert_eq!(pod["spec"]["imagePullSecrets"][0]["name"], "pull");
    assert_eq!(
        deployment["metadata"]["annotations"]["deployment"],
        "annotated"
    );
    assert_eq!(pod["metadata"]["annotations"]["pod"], "annotated");
    assert_eq!(pod["metadata"]["labels"]["team"], "observability");
    let args: Vec<&str> = container["args"]
        .as_array()
        .expect("args")
        .iter()
        .map(|a| a.as_str().expect("string arg"))
        .collect();
    for expected in [
        "--kubelet-service=monitoring/kubelet-endpoints",
        "--log.level=debug",
        "--agent-selector=team in (a,b)",
    ] {
        assert!(args.contains(&expected), "{expected} in {args:?}");
    }
    assert_eq!(container["resources"]["limits"]["memory"], "1Gi");
    assert_eq!(pod["spec"]["nodeSelector"]["kubernetes.io/os"], "linux");
    assert_eq!(pod["spec"]["tolerations"][0]["key"], "dedicated");
    assert_eq!(
        pod["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
            [0]["matchExpressions"][0]["key"],
        "zone"
    );
    assert_eq!(pod["spec"]["hostAliases"][0]["ip"], "10.0.0.1");
    assert_eq!(pod["spec"]["serviceAccountName"], "custom-sa");
    assert!(chart.contains_key("ServiceAccount/agent-operator/custom-sa"));
    assert_eq!(
        chart["ClusterRoleBinding//grafana-agent-operator"]["subjects"][0]["name"],
        "custom-sa"
    );
}

/// Rules as (apiGroup, resource, resourceNames) -> verbs, one entry per group and resource.
fn rules(role: &Value) -> BTreeMap<(String, String, String), Vec<String>> {
    let strings = |v: &Value| -> Vec<String> {
        v.as_array()
            .map(|a| {
                a.iter()
                    .map(|s| s.as_str().expect("string").to_string())
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut rules = BTreeMap::new();
    for rule in role["rules"].as_array().expect("rules") {
        let names = strings(&rule["resourceNames"]).join(",");
        for group in strings(&rule["apiGroups"]) {
            for resource in strings(&rule["resources"]) {
                let verbs: &mut Vec<String> = rules
                    .entry((group.clone(), resource, names.clone()))
                    .or_default();
                verbs.extend(strings(&rule["verbs"]));
                verbs.sort();
            }
        }
    }
    rules
}

#[test]
fn rbac_has_no_wildcards() {
    for stream in [
        kustomize("deploy/"),
        kustomize("deploy/overlays/single-namespace"),
    ] {
        for (key, object) in objects(&stream) {
            if !key.starts_with("ClusterRole/") && !key.starts_with("Role/") {
                continue;
            }
            for ((group, resource, _), verbs) in rules(&object) {
                assert!(
                    group != "*" && resource != "*" && !verbs.contains(&"*".to_string()),
                    "{key}: a wildcard in {group}/{resource} {verbs:?}"
                );
            }
        }
    }
}

/// The single-namespace overlay grants in its namespace exactly what the cluster-wide base grants
/// everywhere, and keeps cluster-wide only the reads of cluster-scoped kinds.
#[test]
fn single_namespace_overlay_narrows_the_cluster_role_to_its_namespace() {
    let base = objects(&kustomize("deploy/"));
    let overlay = objects(&kustomize("deploy/overlays/single-namespace"));
    let cluster_wide = rules(&base["ClusterRole//grafana-agent-operator"]);
    let namespaced = rules(&overlay["Role/agent-operator/grafana-agent-operator"]);
    let cluster_reads = rules(&overlay["ClusterRole//grafana-agent-operator-cluster-reads"]);
    let mut together = namespaced.clone();
    together.extend(cluster_reads.clone());
    assert_eq!(together, cluster_wide);
    for (_, resource, _) in cluster_reads.keys() {
        assert!(
            ["namespaces", "nodes"].contains(&resource.as_str()),
            "{resource}"
        );
    }
    assert!(!overlay.contains_key("ClusterRole//grafana-agent-operator"));
    assert!(!overlay.contains_key("ClusterRoleBinding//grafana-agent-operator"));
    let args = &overlay["Deployment/agent-operator/grafana-agent-operator"]["spec"]["template"]["spec"]
        ["containers"][0]["args"];
    let args: Vec<&str> = args
        .as_array()
        .expect("args")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(args.contains(&"--namespace=agent-operator"), "{args:?}");
    let base_args = &base["Deployment/agent-operator/grafana-agent-operator"]["spec"]["template"]["spec"]
        ["containers"][0]["args"];
    let only_in_overlay: Vec<&&str> = args
        .iter()
        .filter(|a| !base_args.as_array().expect("args").iter().any(|b| b == **a))
        .collect();
    assert_eq!(
        only_in_overlay,
        [
            &"--namespace=agent-operator",
            &"--kubelet-service=agent-operator/kubelet"
        ]
    );
}

/// `helm install` ends with the chart's notes: what was installed, under the names this release
/// gives it, and the commands to check it and to go on. (`helm template` leaves NOTES.txt out and
/// `helm install --dry-run=client` asks a server for its version and kinds: testkube answers.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn helm_install_prints_notes_naming_the_release_objects() {
    let server = testkube::TestKube::start().await.expect("testkube");
    let dir = root().join("target/deploy-tests");
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let kubeconfig = dir.join(format!("notes-{}.kubeconfig", std::process::id()));
    std::fs::write(&kubeconfig, server.kubeconfig_yaml()).expect("kubeconfig");
    let with_kubeconfig = |program: &Path, args: &[&str]| {
        let out = Command::new(program)
            .args(args)
            .env("KUBECONFIG", &kubeconfig)
            .current_dir(root())
            .output()
            .unwrap_or_else(|e| panic!("{}: {e}", program.display()));
        assert!(
            out.status.success(),
            "{} {args:?}:\n{}",
            program.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).expect("UTF-8 output")
    };
    // The ServiceMonitor of serviceMonitor.enabled needs its CRD in the server.
    with_kubeconfig(
        &kubectl(),
        &["apply", "--server-side", "-f", "deploy/crds/crds.yaml"],
    );
    let install = |release: &str, namespace: &str, set: &[&str]| {
        let mut args = vec![
            "install",
            release,
            "deploy/helm",
            "--namespace",
            namespace,
            "--dry-run=client",
            "--disable-openapi-validation",
        ];
        args.extend_from_slice(set);
        let out = with_kubeconfig(helm(), &args);
        out.split("NOTES:\n")
            .nth(1)
            .unwrap_or_else(|| panic!("helm install prints no NOTES:\n{out}"))
            .to_owned()
    };
    let notes = install("grafana-agent-operator", "agent-operator", &[]);
    for expected in [
        "the Deployment agent-operator/grafana-agent-operator with 2 replica(s)",
        "kubectl -n agent-operator get lease grafana-agent-operator",
        "kubectl -n agent-operator logs deployment/grafana-agent-operator",
        "docs/getting-started.md",
        "agent-operator explain servicemonitor/NAMESPACE/NAME",
        "--set serviceMonitor.enabled=true",
    ] {
        assert!(
            notes.contains(expected),
            "{expected:?} missing from:\n{notes}"
        );
    }
    let notes = install(
        "ops",
        "monitoring",
        &["--set", "serviceMonitor.enabled=true"],
    );
    assert!(
        notes.contains("kubectl -n monitoring get lease ops-grafana-agent-operator")
            && !notes.contains("serviceMonitor.enabled"),
        "{notes}"
    );
    let _ = std::fs::remove_file(&kubeconfig);
}

/// The operator's image and its `--config-loader-image` (env AGENT_OPERATOR_CONFIG_LOADER_IMAGE).
fn operator_images(objects: &BTreeMap<String, Value>) -> (String, String) {
    let container = &objects["Deployment/agent-operator/grafana-agent-operator"]["spec"]["template"]
        ["spec"]["containers"][0];
    let loader = container["env"]
        .as_array()
        .expect("env")
        .iter()
        .find(|e| e["name"] == "AGENT_OPERATOR_CONFIG_LOADER_IMAGE")
        .and_then(|e| e["value"].as_str())
        .expect("AGENT_OPERATOR_CONFIG_LOADER_IMAGE");
    (
        container["image"].as_str().expect("image").to_owned(),
        loader.to_owned(),
    )
}

/// The agent pods' config loader runs the operator's own image: a user who points the
/// operator at another image (`kustomize edit set image` in an overlay of deploy/ or of the
/// single-namespace overlay, the chart's image values) changes the loader's with it.
#[test]
fn the_config_loader_image_follows_the_operators() {
    let default = "agent-operator:0.1.0".to_owned();
    for base in ["deploy", "deploy/overlays/single-namespace"] {
        assert_eq!(
            operator_images(&objects(&kustomize(base))),
            (default.clone(), default.clone()),
            "{base}"
        );
        // A scratch overlay under target/, as `with_components` (kustomize wants a relative path).
        let dir = root()
            .join("target/deploy-tests")
            .join(format!("images-{}", base.replace('/', "-")));
        std::fs::create_dir_all(&dir).expect("scratch dir");
        std::fs::write(
            dir.join("kustomization.yaml"),
            format!(
                "resources: [../../../{base}]\nimages:\n  - name: agent-operator\n    newName: registry.example/agent-operator\n    newTag: \"1.2\"\n"
            ),
        )
        .expect("write kustomization");
        let wanted = "registry.example/agent-operator:1.2".to_owned();
        assert_eq!(
            operator_images(&objects(&kustomize(dir.to_str().expect("UTF-8 path")))),
            (wanted.clone(), wanted),
            "an overlay of {base}"
        );
    }
    let chart = objects(&helm_template(&[
        "--set",
        "image.registry=registry.example",
        "--set",
        "image.tag=1.2",
    ]));
    let wanted = "registry.example/agent-operator:1.2".to_owned();
    assert_eq!(operator_images(&chart), (wanted.clone(), wanted));
}
