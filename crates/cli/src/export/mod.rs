//! `render --export DIR`: a way out of the operator (issue 34, item 5). For each GrafanaAgent,
//! planned as runtime `alloy` with `configFormat: native` whatever its spec says, writes
//! `DIR/<namespace>/<name>/` with what plain Alloy needs to run what the operator would run:
//!
//! * each workload's Alloy config, as the config loader would write it in each of its pods
//!   (the operator's variables substituted by `render::loader_variables::substitute`, the
//!   loader's own code): `<workload>.alloy` when every pod gets the same text, else one
//!   `<pod>.alloy` per pod (a StatefulSet's pods are named `<workload>-<ordinal>`);
//! * `secrets.yaml`: the Secret of referenced credentials the pods mount, under the operator's
//!   name for it, without the owner reference and labels that tie it to the operator;
//! * `manifests.yaml`: the objects that run those files with plain Alloy ([`manifests`]:
//!   the operator's planned workloads and Services transformed, the config in Secrets, the
//!   discovery's ServiceAccount and ClusterRole);
//! * `README.txt`: per file, what to mount where and which arguments Alloy runs with, and
//!   what to change in manifests.yaml before applying it.
//!
//! An agent whose configs cannot all be written in Alloy's syntax is not exported: the error
//! names the objects and fields that keep a config static. Other agents are still exported.

mod manifests;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use api::grafana_agent::{AlloyConfigFormat, AlloySpec, Runtime};
use k8s_openapi::api::core::v1::{Container, PodSpec, Secret};
use render::PlanOptions;
use render::desired::{
    AGENT_NAME_LABEL, DesiredObject, MANAGED_BY_LABEL, SUBSYSTEM_LABEL, assets_secret_name,
};
use render::discover::discover;
use render::input_ref::InputRef;
use render::loader_variables::{LoaderVariableError, OPERATOR_VARIABLES, POD_NAME, substitute};
use render::plan::{Plan, plan};
use render::rejection::Reason;
use render::store::InputStore;
use render::workloads::pod_template::{
    AGENT_CONTAINER, CONFIG_FILE, CONFIG_OUT_PATH, LOADER_INIT_CONTAINER,
};

use manifests::{CONFIG_DIR, Manifest, WorkloadFiles};

/// Why one agent was not exported.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error(
        "GrafanaAgent {agent}: not exported: its {secret} config cannot be written in Alloy's syntax: {reasons}"
    )]
    NotNative {
        agent: String,
        secret: String,
        reasons: String,
    },
    #[error(
        "GrafanaAgent {agent}: not exported: the operator would create nothing for it (see the rejections above)"
    )]
    NothingPlanned { agent: String },
    #[error(
        "GrafanaAgent {agent}: not exported: config Secret {secret}: the operator plans no workload that reads it (see the rejections above)"
    )]
    NoWorkload { agent: String, secret: String },
    #[error("GrafanaAgent {agent}: not exported: config Secret {secret} for pod {pod}: {source}")]
    Variables {
        agent: String,
        secret: String,
        pod: String,
        #[source]
        source: Box<LoaderVariableError>,
    },
    #[error("GrafanaAgent {agent}: not exported: {MANIFESTS_FILE}: {source}")]
    Manifests {
        agent: String,
        #[source]
        source: manifests::ManifestError,
    },
    #[error("GrafanaAgent {agent}: not exported: {what}: {source}")]
    Serialize {
        agent: String,
        what: String,
        #[source]
        source: serde_json::Error,
    },
    #[error("GrafanaAgent {agent}: not exported: Secret {secret}: {source}")]
    Secret {
        agent: String,
        secret: String,
        #[source]
        source: serde_json::Error,
    },
    #[error("GrafanaAgent {agent}: not exported: writing {path}: {source}")]
    Write {
        agent: String,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// The names of the files written for one agent: what the previous export of it wrote is
/// removed first (a shard fewer leaves no file behind), nothing else in the directory is.
fn exported_file(name: &str) -> bool {
    name.ends_with(".alloy")
        || name == SECRETS_FILE
        || name == MANIFESTS_FILE
        || name == README_FILE
}

const SECRETS_FILE: &str = "secrets.yaml";
const MANIFESTS_FILE: &str = "manifests.yaml";
const README_FILE: &str = "README.txt";

/// `agent` as the export plans it: runtime `alloy`, `configFormat: native`.
fn as_native(agent: &api::GrafanaAgent) -> api::GrafanaAgent {
    let mut agent = agent.clone();
    agent.spec.runtime = Some(Runtime::Alloy);
    agent
        .spec
        .alloy
        .get_or_insert_with(AlloySpec::default)
        .config_format = Some(AlloyConfigFormat::Native);
    agent
}

/// The plan of every GrafanaAgent of `store` (or only `only`) as the export sees it, in
/// (namespace, name) order.
pub fn plans(store: &InputStore, opts: &PlanOptions, only: Option<&InputRef>) -> Vec<Plan> {
    store
        .objects::<api::GrafanaAgent>()
        .iter()
        .filter(|a| {
            only.is_none_or(|o| {
                *o == InputRef::of(render::input_ref::Kind::GrafanaAgent, a.as_ref())
            })
        })
        .map(|agent| plan(&discover(&Arc::new(as_native(agent)), store), opts))
        .collect()
}

/// One exported file: its name in the agent's directory and its text.
type Files = BTreeMap<String, String>;

/// Writes `plan`'s export under `dir/<namespace>/<name>/`; the directory it wrote.
pub fn export(plan: &Plan, dir: &Path) -> Result<PathBuf, ExportError> {
    let files = files(plan)?;
    let agent = plan.agent.key();
    let out = dir.join(&plan.agent.namespace).join(&plan.agent.name);
    let io = |path: &Path| {
        let agent = agent.clone();
        let path = path.to_path_buf();
        move |source| ExportError::Write {
            agent,
            path,
            source,
        }
    };
    std::fs::create_dir_all(&out).map_err(io(&out))?;
    for entry in std::fs::read_dir(&out).map_err(io(&out))? {
        let entry = entry.map_err(io(&out))?;
        if entry.file_name().to_str().is_some_and(exported_file) {
            std::fs::remove_file(entry.path()).map_err(io(&entry.path()))?;
        }
    }
    for (name, text) in files {
        let path = out.join(name);
        std::fs::write(&path, text).map_err(io(&path))?;
    }
    Ok(out)
}

/// A workload that runs a config: its kind and name, pod spec and pods' names.
struct Workload<'a> {
    kind: &'static str,
    name: &'a str,
    pod: &'a PodSpec,
    /// A StatefulSet's pods by name; `None` for a DaemonSet's or Deployment's, whose names
    /// are random.
    pods: Option<Vec<String>>,
}

fn workloads(plan: &Plan) -> Vec<Workload<'_>> {
    let mut out = Vec::new();
    for object in &plan.objects {
        let (kind, meta, pod, pods) = match &object.object {
            DesiredObject::StatefulSet(s) => {
                let spec = s.spec.as_ref();
                let name = s.metadata.name.as_deref().unwrap_or_default();
                let replicas = spec.and_then(|s| s.replicas).unwrap_or(1).max(0);
                let pods = (0..replicas).map(|i| format!("{name}-{i}")).collect();
                (
                    "StatefulSet",
                    &s.metadata,
                    spec.and_then(|s| s.template.spec.as_ref()),
                    Some(pods),
                )
            }
            DesiredObject::DaemonSet(d) => (
                "DaemonSet",
                &d.metadata,
                d.spec.as_ref().and_then(|s| s.template.spec.as_ref()),
                None,
            ),
            DesiredObject::Deployment(d) => (
                "Deployment",
                &d.metadata,
                d.spec.as_ref().and_then(|s| s.template.spec.as_ref()),
                None,
            ),
            _ => continue,
        };
        let (Some(name), Some(pod)) = (meta.name.as_deref(), pod) else {
            continue;
        };
        out.push(Workload {
            kind,
            name,
            pod,
            pods,
        });
    }
    out
}

/// The loader (init) container of `pod` when it loads config Secret `secret`.
fn loader_of<'a>(pod: &'a PodSpec, secret: &str) -> Option<&'a Container> {
    let arg = format!("--secret={secret}");
    pod.init_containers
        .iter()
        .flatten()
        .find(|c| c.name == LOADER_INIT_CONTAINER && c.args.iter().flatten().any(|a| *a == arg))
}

/// The loader's environment in pod `pod_name` (`None`: a name Kubernetes makes up), as the
/// pod gives it: plain values, the pod's name and namespace.
fn loader_env(
    loader: &Container,
    pod_name: Option<&str>,
    namespace: &str,
) -> BTreeMap<String, String> {
    let mut env = BTreeMap::new();
    for var in loader.env.iter().flatten() {
        let field = var
            .value_from
            .as_ref()
            .and_then(|v| v.field_ref.as_ref())
            .map(|f| f.field_path.as_str());
        let value = match (&var.value, field) {
            (Some(value), _) => Some(value.clone()),
            (None, Some("metadata.name")) => pod_name.map(str::to_owned),
            (None, Some("metadata.namespace")) => Some(namespace.to_owned()),
            _ => None,
        };
        if let Some(value) = value {
            env.insert(var.name.clone(), value);
        }
    }
    if pod_name.is_none() {
        env.remove(POD_NAME);
    }
    env
}

/// Every file of `plan`'s export, by name.
fn files(plan: &Plan) -> Result<Files, ExportError> {
    let agent = plan.agent.key();
    if plan.objects.is_empty() {
        return Err(ExportError::NothingPlanned { agent });
    }
    if let Some(config) = plan.configs.iter().find(|c| !c.alloy_syntax) {
        let reasons: Vec<String> = plan
            .warnings
            .iter()
            .filter(|w| w.reason == Reason::AlloyDifference && w.message.contains("static format"))
            .map(ToString::to_string)
            .collect();
        return Err(ExportError::NotNative {
            agent,
            secret: config.secret_name.clone(),
            reasons: if reasons.is_empty() {
                "the operator keeps it in static format".to_owned()
            } else {
                reasons.join("; ")
            },
        });
    }
    let workloads = workloads(plan);
    let mut files = Files::new();
    let mut exported: Vec<(&Workload, WorkloadFiles)> = Vec::new();
    for config in &plan.configs {
        let text: String = config.text.chunks().concat();
        let readers: Vec<(&Workload, &Container)> = workloads
            .iter()
            .filter_map(|w| Some((w, loader_of(w.pod, &config.secret_name)?)))
            .collect();
        if readers.is_empty() {
            return Err(ExportError::NoWorkload {
                agent,
                secret: config.secret_name.clone(),
            });
        }
        for (workload, loader) in readers {
            let pods: Vec<Option<&str>> = match &workload.pods {
                Some(pods) => pods.iter().map(|p| Some(p.as_str())).collect(),
                None => vec![None],
            };
            let mut texts: Vec<(String, String)> = Vec::new();
            for pod in &pods {
                let env = loader_env(loader, *pod, &plan.agent.namespace);
                let pod_label = pod.unwrap_or(workload.name).to_owned();
                let written = substitute(&text, &env).map_err(|source| ExportError::Variables {
                    agent: agent.clone(),
                    secret: config.secret_name.clone(),
                    pod: pod_label.clone(),
                    source: Box::new(source),
                })?;
                texts.push((pod_label, written));
            }
            let same = texts.windows(2).all(|w| w[0].1 == w[1].1);
            let written: Vec<(String, String)> = if same {
                let text = texts.into_iter().next().map(|(_, t)| t).unwrap_or_default();
                vec![(format!("{}.alloy", workload.name), text)]
            } else {
                texts
                    .into_iter()
                    .map(|(pod, text)| (format!("{pod}.alloy"), text))
                    .collect()
            };
            files.extend(written.iter().cloned());
            exported.push((
                workload,
                WorkloadFiles {
                    workload: workload.name.to_owned(),
                    files: written,
                    per_pod: !same,
                },
            ));
        }
    }
    let objects: Vec<WorkloadFiles> = exported.iter().map(|(_, f)| f.clone()).collect();
    let objects =
        manifests::manifests(plan, &objects).map_err(|source| ExportError::Manifests {
            agent: agent.clone(),
            source,
        })?;
    let mut text = String::new();
    for object in &objects {
        let value = object.to_value().map_err(|source| ExportError::Serialize {
            agent: agent.clone(),
            what: MANIFESTS_FILE.to_owned(),
            source,
        })?;
        write_document(&mut text, value);
    }
    files.insert(MANIFESTS_FILE.to_owned(), text);
    let mut readme = readme_head(plan, &objects);
    for (workload, written) in &exported {
        describe(&mut readme, workload, written);
    }
    let secret_name = assets_secret_name(&plan.agent.name);
    if let Some(secret) = plan.objects.iter().find_map(|o| match &o.object {
        DesiredObject::Secret(s) if s.metadata.name.as_deref() == Some(secret_name.as_str()) => {
            Some(s)
        }
        _ => None,
    }) {
        let text = secret_manifest(secret).map_err(|source| ExportError::Secret {
            agent: agent.clone(),
            secret: secret_name.clone(),
            source,
        })?;
        files.insert(SECRETS_FILE.to_owned(), text);
    }
    files.insert(README_FILE.to_owned(), readme);
    Ok(files)
}

/// Appends `value` to `out` as one document of a stream, `apiVersion`, `kind` and `metadata`
/// first, as people write manifests.
fn write_document(out: &mut String, value: serde_json::Value) {
    let value = render::output::metadata_first(value);
    out.push_str("---\n");
    render::yaml::write_document(out, &value);
}

/// The README's opening: what the files are, how to apply manifests.yaml, and what to check
/// in it first.
fn readme_head(plan: &Plan, objects: &[Manifest]) -> String {
    let agent = plan.agent.key();
    let namespace = &plan.agent.namespace;
    let mut images = BTreeSet::new();
    let mut account = String::new();
    let mut role = String::new();
    for object in objects {
        let template = match object {
            Manifest::ServiceAccount(o) => {
                account = o.metadata.name.clone().unwrap_or_default();
                continue;
            }
            Manifest::ClusterRole(o) => {
                role = o.metadata.name.clone().unwrap_or_default();
                continue;
            }
            Manifest::StatefulSet(o) => o.spec.as_ref().map(|s| &s.template),
            Manifest::DaemonSet(o) => o.spec.as_ref().map(|s| &s.template),
            Manifest::Deployment(o) => o.spec.as_ref().map(|s| &s.template),
            _ => continue,
        };
        images.extend(
            template
                .and_then(|t| t.spec.as_ref())
                .into_iter()
                .flat_map(|s| &s.containers)
                .filter(|c| c.name == AGENT_CONTAINER)
                .filter_map(|c| c.image.clone()),
        );
    }
    let images: Vec<String> = images.into_iter().collect();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "GrafanaAgent {agent}, exported by `agent-operator render --export` for Grafana Alloy {version}.\n\
         \n\
         Each .alloy file below is the Alloy configuration one workload of the operator ran (one per\n\
         pod where its pods differ). {MANIFESTS_FILE} runs them with plain Alloy, without the\n\
         operator: the same workloads and headless Services under the same names (a StatefulSet's\n\
         pods keep their volume claims: WAL, positions), without the config loader; each workload's\n\
         files in the Secret <workload>-alloy, mounted at {CONFIG_DIR}; the ServiceAccount {account}\n\
         with ClusterRole {role}, what Alloy's discovery reads. Delete the GrafanaAgent and wait\n\
         until its objects are gone (docs/alloy.md, \"Leaving the operator\"), then:\n\
         \n\
         \x20 kubectl apply -f {SECRETS_FILE}\n\
         \x20 kubectl apply -f {MANIFESTS_FILE}\n\
         \n\
         Before applying {MANIFESTS_FILE}, check:\n\
         * namespace: its objects are in {namespace}, as the operator's were; to run them in another,\n\
         \x20 change every metadata.namespace, the ClusterRoleBinding's subject and each\n\
         \x20 --cluster.join-addresses (<service>.{namespace}.svc), and apply {SECRETS_FILE} there too;\n\
         * image: {images}, the Alloy these files were tested with; a newer Alloy must read them;\n\
         * ServiceAccount {account}: applying it to an existing one changes nothing but\n\
         \x20 kubectl's annotation; the ClusterRole grants it read access to what discovery lists.\n\
         \n\
         Nothing in {MANIFESTS_FILE} has an owner or the labels the operator finds its objects by\n\
         (app.kubernetes.io/managed-by is left out, operator.agent.grafana.com/* became {prefix}*):\n\
         an operator installed again neither watches nor deletes them. A GrafanaAgent of the same\n\
         name would take the workloads back: do not create one.\n\
         \n\
         To change a config: edit its .alloy file, replace the workload's Secret\n\
         (kubectl -n {namespace} create secret generic <workload>-alloy --from-file=FILE... --dry-run=client -o yaml | kubectl apply -f -)\n\
         and restart its pods (kubectl -n {namespace} rollout restart KIND/<workload>). A StatefulSet\n\
         whose pods run a file each has a file for each pod it has: more pods need more files.",
        version = render::alloy::ALLOY_VERSION,
        images = images.join(", "),
        prefix = manifests::EXPORT_LABEL_PREFIX,
    );
    out
}

/// The README's paragraph on `workload` and the files written for it.
fn describe(out: &mut String, workload: &Workload, written: &WorkloadFiles) {
    let names: Vec<&str> = written.files.iter().map(|(n, _)| n.as_str()).collect();
    let _ = writeln!(out, "\n{} {}:", workload.kind, workload.name);
    let runs = match (workload.kind, written.per_pod, &workload.pods) {
        ("DaemonSet", ..) => "one Alloy on every node, each with".to_owned(),
        (_, false, Some(pods)) if pods.len() > 1 => {
            format!("{} Alloy instances (pods), each with", pods.len())
        }
        (_, true, _) => "one Alloy per file, each with its own:".to_owned(),
        _ => "one Alloy with".to_owned(),
    };
    let _ = writeln!(out, "  runs: {runs} {}", names.join(", "));
    let _ = writeln!(
        out,
        "  config: Secret {} at {CONFIG_DIR}",
        manifests::config_secret_name(workload.name)
    );
    let Some(container) = workload
        .pod
        .containers
        .iter()
        .find(|c| c.name == AGENT_CONTAINER)
    else {
        return;
    };
    let args: Vec<&str> = container
        .args
        .iter()
        .flatten()
        .filter(|a| a.as_str() != "run" && a.as_str() != CONFIG_FILE)
        .map(String::as_str)
        .collect();
    let _ = writeln!(out, "  args: alloy run FILE {}", args.join(" "));
    if let Some(join) = args
        .iter()
        .find_map(|a| a.strip_prefix("--cluster.join-addresses="))
    {
        let service = join.split('.').next().unwrap_or(join);
        let _ = writeln!(
            out,
            "  cluster: the instances form one Alloy cluster and share the targets; they find \
             each other through {join}, the headless Service {service} of {MANIFESTS_FILE}"
        );
    }
    let volumes: BTreeMap<&str, &k8s_openapi::api::core::v1::Volume> = workload
        .pod
        .volumes
        .iter()
        .flatten()
        .map(|v| (v.name.as_str(), v))
        .collect();
    for mount in container.volume_mounts.iter().flatten() {
        let Some(volume) = volumes.get(mount.name.as_str()) else {
            // A claim template's volume: the data directory.
            let _ = writeln!(
                out,
                "  mount: a persistent volume at {} (data: WAL, positions)",
                mount.mount_path
            );
            continue;
        };
        if let Some(secret) = &volume.secret {
            let name = secret.secret_name.as_deref().unwrap_or_default();
            let items: Vec<String> = secret
                .items
                .iter()
                .flatten()
                .map(|i| format!("{} as {}", i.key, i.path))
                .collect();
            let items = if items.is_empty() {
                "every key as a file".to_owned()
            } else {
                items.join(", ")
            };
            let _ = writeln!(
                out,
                "  mount: Secret {name} at {} ({items})",
                mount.mount_path
            );
        } else if let Some(host) = &volume.host_path {
            let _ = writeln!(
                out,
                "  mount: host path {} at {}",
                host.path, mount.mount_path
            );
        } else if volume.empty_dir.is_some() && mount.mount_path != CONFIG_OUT_PATH {
            let _ = writeln!(out, "  mount: an empty directory at {}", mount.mount_path);
        }
    }
    // The operator's variables are substituted already; the deploy mode marks its pods.
    let settled = |name: &str| {
        name == POD_NAME || name == "ALLOY_DEPLOY_MODE" || OPERATOR_VARIABLES.contains(&name)
    };
    for var in container.env.iter().flatten().filter(|v| !settled(&v.name)) {
        let from = var
            .value_from
            .as_ref()
            .and_then(|v| v.field_ref.as_ref())
            .map(|f| f.field_path.as_str());
        match (&var.value, from) {
            (Some(value), _) => {
                let _ = writeln!(out, "  env: {}={value}", var.name);
            }
            (None, Some(field)) => {
                let _ = writeln!(out, "  env: {} from the pod's {field}", var.name);
            }
            _ => {}
        }
    }
}

/// `secret` as a manifest for `kubectl apply`: its name, namespace and data; without the
/// owner reference to the GrafanaAgent (the garbage collector would delete it with the agent)
/// and without the labels by which the operator recognises its own objects.
fn secret_manifest(secret: &Secret) -> Result<String, serde_json::Error> {
    let mut secret = secret.clone();
    secret.metadata.owner_references = None;
    if let Some(labels) = &mut secret.metadata.labels {
        for operator_label in [MANAGED_BY_LABEL, AGENT_NAME_LABEL, SUBSYSTEM_LABEL] {
            labels.remove(operator_label);
        }
        if labels.is_empty() {
            secret.metadata.labels = None;
        }
    }
    let mut out = String::new();
    write_document(&mut out, serde_json::to_value(&secret)?);
    Ok(out)
}
