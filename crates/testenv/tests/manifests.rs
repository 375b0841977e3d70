//! Our CRDs, the upstream and bundled examples, and everything `render` produces, checked by the
//! API server: on the real control plane this is kube-apiserver's own validation (structural
//! schemas, pod templates, Services, Secrets), defaulting and server-side apply.

mod support;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use render::PlanOptions;
use render::manifest::Loader;
use render::output::{objects_stream, plan_all};
use serde_json::{Value, json};
use support::{
    ensure_namespace, install_crds, kubectl, kubectl_ok, repo_root, shared_upstream, warnings,
};
use testenv::{Backend, TestEnv};
use tokio::sync::Semaphore;
use tokio::task::JoinSet;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crds_are_accepted_and_established() {
    for backend in testenv::backends() {
        let env = TestEnv::start(backend).await.unwrap();
        let applied = install_crds(&env).await;
        assert_eq!(warnings(&applied), Vec::<String>::new(), "[{backend}]");
        let established = kubectl_ok(
            &env,
            &[
                "get",
                "crd",
                "-o",
                "jsonpath={range .items[*]}{.metadata.name}={.status.conditions[?(@.type==\"Established\")].status}{\"\\n\"}{end}",
            ],
            None,
        )
        .await;
        let established = String::from_utf8_lossy(&established.stdout).into_owned();
        for crd in [
            "grafanaagents.monitoring.grafana.com",
            "metricsinstances.monitoring.grafana.com",
            "logsinstances.monitoring.grafana.com",
            "podlogs.monitoring.grafana.com",
            "integrations.monitoring.grafana.com",
            "servicemonitors.monitoring.coreos.com",
            "podmonitors.monitoring.coreos.com",
            "probes.monitoring.coreos.com",
            "scrapeconfigs.monitoring.coreos.com",
        ] {
            assert!(
                established
                    .lines()
                    .any(|line| line == format!("{crd}=True")),
                "[{backend}] {crd} is not Established:\n{established}"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn examples_apply_cleanly() {
    let upstream = shared_upstream().join("examples");
    let ours = repo_root().join("examples");
    for backend in testenv::backends() {
        let env = TestEnv::start(backend).await.unwrap();
        install_crds(&env).await;
        for file in yaml_files(&upstream).into_iter().chain(yaml_files(&ours)) {
            let path = file.to_str().expect("the checkout's path is UTF-8");
            let applied = kubectl_ok(
                &env,
                &[
                    "apply",
                    "--server-side",
                    "--field-manager=testenv",
                    "-f",
                    path,
                ],
                None,
            )
            .await;
            // Unknown fields are dropped with a warning; every field of these examples is one
            // our CRDs (or Kubernetes) should know.
            assert_eq!(
                warnings(&applied),
                Vec::<String>::new(),
                "[{backend}] {}",
                file.display()
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rendered_objects_pass_server_validation() {
    let cases: Vec<(PathBuf, String)> = rendered_cases()
        .into_iter()
        .map(|(case, objects)| {
            let objects = with_owner_uids(&objects);
            // A stream of JSON documents, which kubectl reads like multi-document YAML.
            let stream = objects.iter().map(|object| format!("{object}\n")).collect();
            (case, stream)
        })
        .collect();
    assert!(
        cases.len() > 100,
        "found only {} golden outputs",
        cases.len()
    );
    let namespaces: BTreeSet<String> = cases
        .iter()
        .flat_map(|(_, stream)| stream.lines())
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter_map(|object| object["metadata"]["namespace"].as_str().map(str::to_string))
        .collect();
    for backend in testenv::backends() {
        let env = Arc::new(TestEnv::start(backend).await.unwrap());
        for namespace in &namespaces {
            ensure_namespace(&env, namespace).await;
        }
        // A few kubectl processes at a time: each spends most of its time starting up.
        let slots = Arc::new(Semaphore::new(4));
        let mut checks = JoinSet::new();
        for (file, stream) in cases.clone() {
            let (env, slots) = (env.clone(), slots.clone());
            checks.spawn(async move {
                let _slot = slots.acquire_owned().await.unwrap();
                let args = [
                    "apply",
                    "--server-side",
                    "--dry-run=server",
                    "--field-manager=agent-operator",
                    "-f",
                    "-",
                ];
                let output = kubectl(&env, &args, Some(&stream)).await;
                let stderr = String::from_utf8_lossy(&output.stderr);
                let mut refusals: Vec<&str> = stderr
                    .lines()
                    .filter(|line| line.starts_with("Error from server"))
                    .collect();
                refusals.sort();
                let expected = expected_refusals(backend, &file);
                if refusals == expected
                    && output.status.success() == expected.is_empty()
                    && warnings(&output).is_empty()
                {
                    return Ok(());
                }
                Err(format!(
                    "{}: {}, expected refusals {expected:#?}\n{stderr}",
                    file.display(),
                    output.status,
                ))
            });
        }
        let mut unexpected = Vec::new();
        while let Some(check) = checks.join_next().await {
            if let Err(failure) = check.unwrap() {
                unexpected.push(failure);
            }
        }
        unexpected.sort();
        assert!(
            unexpected.is_empty(),
            "[{backend}] {} of {} golden outputs were not answered as expected:\n{}",
            unexpected.len(),
            cases.len(),
            unexpected.join("\n")
        );
    }
}

/// What kube-apiserver refuses in the golden outputs, on purpose: kept upstream quirks whose
/// objects upstream's operator cannot apply either (docs/compatibility.md). Case folder under
/// testdata/, and kubectl's error line.
const REFUSED_BY_KUBE_APISERVER: &[(&str, &str)] = &[
    // Q29: `storage: {}` and `storage.ephemeral` give a claim template without a size.
    (
        "workloads/storage-variants",
        r#"Error from server (Invalid): StatefulSet.apps "wal-empty-storage" is invalid: spec.volumeClaimTemplates[0].spec.resources[storage]: Required value"#,
    ),
    (
        "workloads/storage-variants",
        r#"Error from server (Invalid): StatefulSet.apps "wal-ephemeral" is invalid: spec.volumeClaimTemplates[0].spec.resources[storage]: Required value"#,
    ),
];

/// The refusals to expect for a golden output: testkube validates nothing.
fn expected_refusals(backend: Backend, case: &Path) -> Vec<&'static str> {
    if backend != Backend::ControlPlane {
        return Vec::new();
    }
    let mut refusals: Vec<&str> = REFUSED_BY_KUBE_APISERVER
        .iter()
        .filter(|(folder, _)| case.ends_with(folder))
        .map(|(_, refusal)| *refusal)
        .collect();
    refusals.sort();
    refusals
}

/// What `render` prints for every golden input under testdata/ (rendered here: the metrics and
/// logs goldens keep only the config they test), by case folder, and the bundled examples'
/// golden output (`testdata/examples/objects.yaml`).
fn rendered_cases() -> Vec<(PathBuf, Vec<Value>)> {
    let examples = repo_root().join("testdata/examples");
    let mut cases = vec![(
        examples.clone(),
        read_objects(&examples.join("objects.yaml")),
    )];
    let mut pending = vec![repo_root().join("testdata")];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else if path.file_name().is_some_and(|name| name == "input.yaml") {
                let text = std::fs::read_to_string(&path).unwrap();
                let mut loader = Loader::new();
                loader.add_source(&path.display().to_string(), &text);
                let plans = plan_all(&loader.finish().store, &PlanOptions::default(), None);
                let stream = objects_stream(&plans).unwrap();
                let objects = serde_saphyr::from_multiple::<Value>(&stream)
                    .unwrap_or_else(|error| panic!("{}: {error}", path.display()))
                    .into_iter()
                    .filter(|object| !object.is_null())
                    .collect();
                cases.push((dir.clone(), objects));
            }
        }
    }
    cases.sort_by(|a, b| a.0.cmp(&b.0));
    cases
}

fn yaml_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| {
            path.extension()
                .is_some_and(|ext| ext == "yaml" || ext == "yml")
        })
        .collect();
    files.sort();
    files
}

fn read_objects(file: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(file).unwrap();
    serde_saphyr::from_multiple::<Value>(&text)
        .unwrap_or_else(|error| panic!("{}: {error}", file.display()))
        .into_iter()
        .filter(|object| !object.is_null())
        .collect()
}

/// `render` knows no UIDs (nothing it reads came from a cluster), so its ownerReferences carry
/// `uid: ''`, which the API server refuses; the controller fills in the owner's real UID.
fn with_owner_uids(objects: &[Value]) -> Vec<Value> {
    let mut objects = objects.to_vec();
    for object in &mut objects {
        if let Some(owners) = object["metadata"]["ownerReferences"].as_array_mut() {
            for owner in owners {
                if owner["uid"] == "" {
                    owner["uid"] = json!("00000000-0000-4000-8000-000000000001");
                }
            }
        }
    }
    objects
}
