//! The API semantics of testkube, driven through kube-rs as the operator drives a cluster.

mod common;

use std::collections::BTreeMap;
use std::time::Duration;

use common::{
    Gadget, GadgetSpec, Widget, WidgetSpec, WidgetStatus, api_error, install_crds, start,
};
use futures_util::{StreamExt, TryStreamExt};
use k8s_openapi::api::apps::v1::{DaemonSet, Deployment, StatefulSet};
use k8s_openapi::api::core::v1::{ConfigMap, Namespace, Secret};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;
use kube::api::{
    Api, DeleteParams, ListParams, ObjectMeta, Patch, PatchParams, PostParams, WatchEvent,
    WatchParams,
};
use kube::discovery::Discovery;
use kube::runtime::watcher;
use kube::{Client, Resource, ResourceExt};
use serde_json::json;
use testkube::RequestMatch;

fn config_map(name: &str, labels: &[(&str, &str)]) -> ConfigMap {
    ConfigMap {
        metadata: ObjectMeta {
            name: Some(name.to_string()),
            labels: Some(
                labels
                    .iter()
                    .map(|(key, value)| (key.to_string(), value.to_string()))
                    .collect(),
            ),
            ..ObjectMeta::default()
        },
        data: Some(BTreeMap::from([("key".to_string(), "value".to_string())])),
        ..ConfigMap::default()
    }
}

fn deployment(name: &str, image: &str) -> Deployment {
    serde_json::from_value(json!({
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [
                    {"name": "main", "image": image, "env": [{"name": "A", "value": "1"}]},
                    {"name": "sidecar", "image": "sidecar:1"}
                ]}
            }
        }
    }))
    .unwrap()
}

fn owner_reference(owner: &ConfigMap, block: bool) -> OwnerReference {
    OwnerReference {
        api_version: "v1".into(),
        kind: "ConfigMap".into(),
        name: owner.name_any(),
        uid: owner.uid().unwrap(),
        block_owner_deletion: Some(block),
        controller: Some(true),
    }
}

async fn wait_until<F, Fut>(what: &str, mut check: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    for _ in 0..100 {
        if check().await {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("timed out waiting until {what}");
}

#[tokio::test]
async fn discovery_lists_builtins_and_registered_crds() {
    let (_server, client) = start().await;
    let version = client.apiserver_version().await.unwrap();
    assert_eq!(version.major, "1");
    let discovery = Discovery::new(client.clone()).run().await.unwrap();
    let mut found = Vec::new();
    for group in discovery.groups() {
        for (resource, _) in group.recommended_resources() {
            found.push(format!("{}/{}", resource.group, resource.plural));
        }
    }
    for expected in [
        "/namespaces",
        "/configmaps",
        "/secrets",
        "/services",
        "/endpoints",
        "/nodes",
        "/pods",
        "/serviceaccounts",
        "/events",
        "apps/statefulsets",
        "apps/daemonsets",
        "apps/deployments",
        "discovery.k8s.io/endpointslices",
        "coordination.k8s.io/leases",
        "events.k8s.io/events",
        "rbac.authorization.k8s.io/roles",
        "rbac.authorization.k8s.io/clusterroles",
        "rbac.authorization.k8s.io/rolebindings",
        "rbac.authorization.k8s.io/clusterrolebindings",
        "networking.k8s.io/ingresses",
    ] {
        assert!(
            found.contains(&expected.to_string()),
            "{expected} missing from {found:?}"
        );
    }
    assert!(!found.contains(&"example.com/widgets".to_string()));

    install_crds(&client).await;
    let discovery = Discovery::new(client.clone()).run().await.unwrap();
    let (widgets, capabilities) = discovery
        .groups()
        .flat_map(|group| group.recommended_resources())
        .find(|(resource, _)| resource.plural == "widgets")
        .expect("widgets are discovered once their CRD exists");
    assert_eq!(widgets.kind, "Widget");
    assert_eq!(capabilities.scope, kube::discovery::Scope::Namespaced);
    assert!(
        capabilities
            .subresources
            .iter()
            .any(|(sub, _)| sub.plural == "status")
    );
    let (_, gadget_caps) = discovery
        .groups()
        .flat_map(|group| group.recommended_resources())
        .find(|(resource, _)| resource.plural == "gadgets")
        .unwrap();
    assert_eq!(gadget_caps.scope, kube::discovery::Scope::Cluster);
    assert!(gadget_caps.subresources.is_empty());

    // The established condition is what `kubectl wait --for condition=established` looks at.
    let crds: Api<k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition> =
        Api::all(client.clone());
    let crd = crds.get("widgets.example.com").await.unwrap();
    let conditions = crd.status.unwrap().conditions.unwrap();
    assert!(
        conditions
            .iter()
            .any(|condition| condition.type_ == "Established" && condition.status == "True")
    );
    // Deleting the CRD unregisters the resource and removes its objects.
    let widgets: Api<Widget> = Api::namespaced(client.clone(), "default");
    widgets
        .create(
            &PostParams::default(),
            &Widget::new(
                "w",
                WidgetSpec {
                    size: 1,
                    color: None,
                },
            ),
        )
        .await
        .unwrap();
    crds.delete("widgets.example.com", &DeleteParams::default())
        .await
        .unwrap();
    let (code, _, _) = api_error(widgets.get("w").await);
    assert_eq!(code, 404);
}

#[tokio::test]
async fn create_sets_server_fields_and_reports_errors() {
    let (_server, client) = start().await;
    let config_maps: Api<ConfigMap> = Api::default_namespaced(client.clone());
    let created = config_maps
        .create(&PostParams::default(), &config_map("one", &[]))
        .await
        .unwrap();
    assert!(created.uid().is_some());
    assert!(created.creation_timestamp().is_some());
    assert!(created.resource_version().unwrap().parse::<u64>().unwrap() > 0);
    assert_eq!(created.namespace().as_deref(), Some("default"));

    let mut generated = config_map("", &[]);
    generated.metadata.name = None;
    generated.metadata.generate_name = Some("gen-".into());
    let generated = config_maps
        .create(&PostParams::default(), &generated)
        .await
        .unwrap();
    let generated_name = generated.name_any();
    assert!(
        generated_name.starts_with("gen-") && generated_name.len() == 9,
        "{generated_name}"
    );

    let (code, reason, status) = api_error(
        config_maps
            .create(&PostParams::default(), &config_map("one", &[]))
            .await,
    );
    assert_eq!((code, reason.as_str()), (409, "AlreadyExists"));
    assert_eq!(status.details.unwrap().name, "one");

    let (code, reason, _) = api_error(config_maps.get("missing").await);
    assert_eq!((code, reason.as_str()), (404, "NotFound"));

    let (code, reason, status) = api_error(
        config_maps
            .create(&PostParams::default(), &config_map("Bad_Name", &[]))
            .await,
    );
    assert_eq!((code, reason.as_str()), (422, "Invalid"));
    assert_eq!(status.details.unwrap().causes[0].field, "metadata.name");

    let elsewhere: Api<ConfigMap> = Api::namespaced(client.clone(), "nowhere");
    let (code, _, status) = api_error(
        elsewhere
            .create(&PostParams::default(), &config_map("x", &[]))
            .await,
    );
    assert_eq!(code, 404);
    assert!(
        status.message.contains("namespaces \"nowhere\" not found"),
        "{}",
        status.message
    );

    // Generation: maintained for workloads, starting at 1.
    let deployments: Api<Deployment> = Api::default_namespaced(client.clone());
    let created = deployments
        .create(&PostParams::default(), &deployment("web", "nginx:1"))
        .await
        .unwrap();
    assert_eq!(created.metadata.generation, Some(1));
    // Created objects record their creator in managedFields.
    let managers: Vec<String> = created
        .metadata
        .managed_fields
        .unwrap()
        .iter()
        .filter_map(|entry| entry.manager.clone())
        .collect();
    assert_eq!(managers.len(), 1);

    // dryRun validates without storing.
    let dry = config_maps
        .create(
            &PostParams {
                dry_run: true,
                ..PostParams::default()
            },
            &config_map("dry", &[]),
        )
        .await
        .unwrap();
    assert_eq!(dry.name_any(), "dry");
    assert!(config_maps.get_opt("dry").await.unwrap().is_none());
}

#[tokio::test]
async fn update_uses_optimistic_concurrency() {
    let (_server, client) = start().await;
    let config_maps: Api<ConfigMap> = Api::default_namespaced(client.clone());
    let created = config_maps
        .create(&PostParams::default(), &config_map("cm", &[]))
        .await
        .unwrap();
    let mut changed = created.clone();
    changed.data = Some(BTreeMap::from([("key".into(), "new".into())]));
    let updated = config_maps
        .replace("cm", &PostParams::default(), &changed)
        .await
        .unwrap();
    assert_ne!(updated.resource_version(), created.resource_version());
    assert_eq!(updated.uid(), created.uid());

    // The same stale resourceVersion again: 409 Conflict.
    let (code, reason, status) = api_error(
        config_maps
            .replace("cm", &PostParams::default(), &changed)
            .await,
    );
    assert_eq!((code, reason.as_str()), (409, "Conflict"));
    assert!(
        status.message.contains("the object has been modified"),
        "{}",
        status.message
    );

    // An update that changes nothing keeps the resourceVersion, as on a real server.
    let same = config_maps
        .replace("cm", &PostParams::default(), &updated)
        .await
        .unwrap();
    assert_eq!(same.resource_version(), updated.resource_version());

    // Updating a missing object is NotFound; a name mismatch is BadRequest.
    let mut ghost = config_map("ghost", &[]);
    ghost.metadata.resource_version = None;
    let (code, _, _) = api_error(
        config_maps
            .replace("ghost", &PostParams::default(), &ghost)
            .await,
    );
    assert_eq!(code, 404);
    let (code, reason, _) = api_error(
        config_maps
            .replace("cm", &PostParams::default(), &ghost)
            .await,
    );
    assert_eq!((code, reason.as_str()), (400, "BadRequest"));
}

#[tokio::test]
async fn list_filters_and_paginates() {
    let (server, client) = start().await;
    let config_maps: Api<ConfigMap> = Api::default_namespaced(client.clone());
    let namespaces: Api<Namespace> = Api::all(client.clone());
    namespaces
        .create(
            &PostParams::default(),
            &Namespace {
                metadata: ObjectMeta {
                    name: Some("other".into()),
                    ..ObjectMeta::default()
                },
                ..Namespace::default()
            },
        )
        .await
        .unwrap();
    let labels = [
        ("a", vec![("app", "web"), ("tier", "front")]),
        ("b", vec![("app", "web"), ("tier", "back")]),
        ("c", vec![("app", "db")]),
        ("d", vec![("rank", "7")]),
        ("e", vec![]),
    ];
    for (name, labels) in &labels {
        config_maps
            .create(&PostParams::default(), &config_map(name, labels))
            .await
            .unwrap();
    }
    let other: Api<ConfigMap> = Api::namespaced(client.clone(), "other");
    other
        .create(&PostParams::default(), &config_map("a", &[("app", "web")]))
        .await
        .unwrap();

    let names = |list: kube::core::ObjectList<ConfigMap>| -> Vec<String> {
        list.items.iter().map(ResourceExt::name_any).collect()
    };
    let cases = [
        ("app=web", vec!["a", "b"]),
        ("app==web,tier!=front", vec!["b"]),
        ("app in (web,db)", vec!["a", "b", "c"]),
        ("app notin (web)", vec!["c", "d", "e"]),
        ("tier", vec!["a", "b"]),
        ("!app", vec!["d", "e"]),
        ("rank>5", vec!["d"]),
        ("app=web,tier in (front, side)", vec!["a"]),
    ];
    for (selector, expected) in cases {
        let listed = config_maps
            .list(&ListParams::default().labels(selector))
            .await
            .unwrap();
        assert_eq!(names(listed), expected, "selector {selector}");
    }
    let (code, _, _) = api_error(
        config_maps
            .list(&ListParams::default().labels("app in web"))
            .await,
    );
    assert_eq!(code, 400);

    let by_name = config_maps
        .list(&ListParams::default().fields("metadata.name=c"))
        .await
        .unwrap();
    assert_eq!(names(by_name), vec!["c"]);
    let all: Api<ConfigMap> = Api::all(client.clone());
    let outside_default = all
        .list(&ListParams::default().fields("metadata.namespace!=default"))
        .await
        .unwrap();
    assert_eq!(names(outside_default), vec!["a"]);
    let (code, _, status) = api_error(
        config_maps
            .list(&ListParams::default().fields("data.key=value"))
            .await,
    );
    assert_eq!(code, 400);
    assert!(status.message.contains("field label not supported"));
    assert_eq!(
        names(all.list(&ListParams::default()).await.unwrap()).len(),
        6
    );

    // limit/continue walk the whole collection in order, with remainingItemCount.
    let first = config_maps
        .list(&ListParams::default().limit(2))
        .await
        .unwrap();
    assert_eq!(names(first.clone()), vec!["a", "b"]);
    assert_eq!(first.metadata.remaining_item_count, Some(3));
    let token = first.metadata.continue_.clone().unwrap();
    let second = config_maps
        .list(&ListParams::default().limit(2).continue_token(&token))
        .await
        .unwrap();
    assert_eq!(names(second.clone()), vec!["c", "d"]);
    assert_eq!(
        second.metadata.resource_version,
        first.metadata.resource_version
    );
    let third = config_maps
        .list(
            &ListParams::default()
                .limit(2)
                .continue_token(second.metadata.continue_.as_deref().unwrap()),
        )
        .await
        .unwrap();
    assert_eq!(names(third.clone()), vec!["e"]);
    assert!(third.metadata.continue_.is_none());

    // resourceVersion semantics: "0" (any) and the current version serve; a future one times out.
    let current = first.metadata.resource_version.clone().unwrap();
    assert_eq!(
        config_maps
            .list(&ListParams::default().match_any())
            .await
            .unwrap()
            .items
            .len(),
        5
    );
    assert_eq!(
        config_maps
            .list(&ListParams::default().at(&current))
            .await
            .unwrap()
            .items
            .len(),
        5
    );
    // kube-rs retries 504s by default; a client without retries sees the answer itself.
    let mut no_retry = server.client_config().unwrap();
    no_retry.default_retry = false;
    let impatient: Api<ConfigMap> = Api::default_namespaced(Client::try_from(no_retry).unwrap());
    let future = (current.parse::<u64>().unwrap() + 1000).to_string();
    let (code, reason, _) = api_error(impatient.list(&ListParams::default().at(&future)).await);
    assert_eq!((code, reason.as_str()), (504, "Timeout"));

    // Once versions are expired, an old continue token is 410 Gone.
    server.faults().expire_resource_versions();
    let (code, reason, _) = api_error(
        config_maps
            .list(&ListParams::default().limit(2).continue_token(&token))
            .await,
    );
    assert_eq!((code, reason.as_str()), (410, "Expired"));
}

#[tokio::test]
async fn watch_streams_changes_bookmarks_and_times_out() {
    let (_server, client) = start().await;
    let config_maps: Api<ConfigMap> = Api::default_namespaced(client.clone());
    let before = config_maps
        .create(
            &PostParams::default(),
            &config_map("early", &[("app", "web")]),
        )
        .await
        .unwrap();
    let start_version = before.resource_version().unwrap();
    let stream = config_maps
        .watch(
            &WatchParams::default().labels("app=web").timeout(3),
            &start_version,
        )
        .await
        .unwrap();
    let mut stream = Box::pin(stream);

    config_maps
        .create(
            &PostParams::default(),
            &config_map("watched", &[("app", "web")]),
        )
        .await
        .unwrap();
    config_maps
        .create(
            &PostParams::default(),
            &config_map("ignored", &[("app", "db")]),
        )
        .await
        .unwrap();
    config_maps
        .patch(
            "watched",
            &PatchParams::default(),
            &Patch::Merge(json!({"data": {"key": "changed"}})),
        )
        .await
        .unwrap();
    // Leaving the selector is a DELETED event for this watcher.
    config_maps
        .patch(
            "watched",
            &PatchParams::default(),
            &Patch::Merge(json!({"metadata": {"labels": {"app": "other"}}})),
        )
        .await
        .unwrap();
    // Entering it is ADDED.
    config_maps
        .patch(
            "ignored",
            &PatchParams::default(),
            &Patch::Merge(json!({"metadata": {"labels": {"app": "web"}}})),
        )
        .await
        .unwrap();
    config_maps
        .delete("ignored", &DeleteParams::default())
        .await
        .unwrap();

    let mut seen = Vec::new();
    let mut bookmark_seen = false;
    while let Some(event) = stream.try_next().await.unwrap() {
        match event {
            WatchEvent::Added(object) => seen.push(format!("ADDED {}", object.name_any())),
            WatchEvent::Modified(object) => seen.push(format!("MODIFIED {}", object.name_any())),
            WatchEvent::Deleted(object) => seen.push(format!("DELETED {}", object.name_any())),
            WatchEvent::Bookmark(bookmark) => {
                assert!(bookmark.metadata.resource_version.parse::<u64>().unwrap() > 0);
                bookmark_seen = true;
            }
            WatchEvent::Error(error) => panic!("unexpected error {error:?}"),
        }
    }
    // The stream ended by itself thanks to timeoutSeconds.
    assert_eq!(
        seen,
        vec![
            "ADDED watched",
            "MODIFIED watched",
            "DELETED watched",
            "ADDED ignored",
            "DELETED ignored"
        ]
    );
    assert!(bookmark_seen, "bookmarks are sent when allowed");

    // From "0": synthetic ADDED events for current objects first; cluster-wide watch works too.
    let all: Api<ConfigMap> = Api::all(client.clone());
    let mut stream = Box::pin(
        all.watch(&WatchParams::default().timeout(1).disable_bookmarks(), "0")
            .await
            .unwrap(),
    );
    let mut initial = Vec::new();
    while let Some(event) = stream.try_next().await.unwrap() {
        if let WatchEvent::Added(object) = event {
            initial.push(object.name_any());
        }
    }
    assert_eq!(initial, vec!["early", "watched"]);
}

#[tokio::test]
async fn watch_from_an_expired_version_reports_gone() {
    let (server, client) = start().await;
    let config_maps: Api<ConfigMap> = Api::default_namespaced(client.clone());
    let created = config_maps
        .create(&PostParams::default(), &config_map("x", &[]))
        .await
        .unwrap();
    server.faults().expire_resource_versions();
    let mut stream = Box::pin(
        config_maps
            .watch(
                &WatchParams::default(),
                &created.resource_version().unwrap(),
            )
            .await
            .unwrap(),
    );
    match stream.try_next().await.unwrap() {
        Some(WatchEvent::Error(error)) => assert_eq!(error.code, 410),
        other => panic!("expected a 410 error event, got {other:?}"),
    }
}

#[tokio::test]
async fn streaming_list_watch_sends_initial_events_then_a_bookmark() {
    let (_server, client) = start().await;
    let config_maps: Api<ConfigMap> = Api::default_namespaced(client.clone());
    for name in ["a", "b"] {
        config_maps
            .create(&PostParams::default(), &config_map(name, &[]))
            .await
            .unwrap();
    }
    let mut stream = Box::pin(
        config_maps
            .watch(&WatchParams::streaming_lists().timeout(2), "0")
            .await
            .unwrap(),
    );
    let mut events = Vec::new();
    while let Some(event) = stream.try_next().await.unwrap() {
        match event {
            WatchEvent::Added(object) => events.push(object.name_any()),
            WatchEvent::Bookmark(bookmark) => {
                if bookmark
                    .metadata
                    .annotations
                    .get("k8s.io/initial-events-end")
                    .map(String::as_str)
                    == Some("true")
                {
                    events.push("END".into());
                }
            }
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(events, vec!["a", "b", "END"]);
}

async fn drive_watcher(config: watcher::Config, client: Client, server: &testkube::TestKube) {
    let config_maps: Api<ConfigMap> = Api::default_namespaced(client.clone());
    config_maps
        .create(&PostParams::default(), &config_map("existing", &[]))
        .await
        .unwrap();
    let (sender, mut receiver) = tokio::sync::mpsc::unbounded_channel();
    let watched = config_maps.clone();
    let task = tokio::spawn(async move {
        let mut stream = Box::pin(watcher(watched, config));
        while let Some(event) = stream.next().await {
            let label = match event {
                Ok(watcher::Event::Init) => "Init".to_string(),
                Ok(watcher::Event::InitApply(object)) => format!("InitApply {}", object.name_any()),
                Ok(watcher::Event::InitDone) => "InitDone".to_string(),
                Ok(watcher::Event::Apply(object)) => format!("Apply {}", object.name_any()),
                Ok(watcher::Event::Delete(object)) => format!("Delete {}", object.name_any()),
                Err(error) => format!("Error {error}"),
            };
            if sender.send(label).is_err() {
                break;
            }
        }
    });
    let mut next = async || {
        tokio::time::timeout(Duration::from_secs(10), receiver.recv())
            .await
            .unwrap()
            .unwrap()
    };
    assert_eq!(next().await, "Init");
    assert_eq!(next().await, "InitApply existing");
    assert_eq!(next().await, "InitDone");
    config_maps
        .create(&PostParams::default(), &config_map("later", &[]))
        .await
        .unwrap();
    assert_eq!(next().await, "Apply later");
    config_maps
        .delete("later", &DeleteParams::default())
        .await
        .unwrap();
    assert_eq!(next().await, "Delete later");

    // An API server restart plus compaction: the watcher must relist from scratch.
    wait_until("the watch is open", || async { server.open_watches() == 1 }).await;
    server.faults().expire_resource_versions();
    server.faults().close_watches();
    config_maps
        .create(&PostParams::default(), &config_map("after-restart", &[]))
        .await
        .unwrap();
    let mut after = Vec::new();
    while !after.contains(&"InitDone".to_string()) {
        let event = next().await;
        if !event.starts_with("Error") {
            after.push(event);
        }
    }
    assert_eq!(
        after,
        vec![
            "Init",
            "InitApply after-restart",
            "InitApply existing",
            "InitDone"
        ]
    );
    config_maps
        .create(&PostParams::default(), &config_map("final", &[]))
        .await
        .unwrap();
    assert_eq!(next().await, "Apply final");
    task.abort();
}

#[tokio::test]
async fn runtime_watcher_lists_watches_and_relists_after_gone() {
    let (server, client) = start().await;
    drive_watcher(watcher::Config::default(), client, &server).await;
    assert!(
        server.counters().get("list", "configmaps") >= 2,
        "relisted after 410"
    );
    assert!(server.counters().get("watch", "configmaps") >= 2);
}

#[tokio::test]
async fn runtime_watcher_with_streaming_lists() {
    let (server, client) = start().await;
    drive_watcher(
        watcher::Config::default().streaming_lists(),
        client,
        &server,
    )
    .await;
    assert_eq!(
        server.counters().get("list", "configmaps"),
        0,
        "streaming lists never list"
    );
    assert!(server.counters().get("watch", "configmaps") >= 2);
}

#[tokio::test]
async fn merge_json_and_strategic_patches() {
    let (_server, client) = start().await;
    let deployments: Api<Deployment> = Api::default_namespaced(client.clone());
    deployments
        .create(&PostParams::default(), &deployment("web", "nginx:1"))
        .await
        .unwrap();

    // Strategic merge: containers merge by name, env by name.
    let patched = deployments
        .patch(
            "web",
            &PatchParams::default(),
            &Patch::Strategic(json!({"spec": {"template": {"spec": {"containers": [
                {"name": "main", "image": "nginx:2", "env": [{"name": "B", "value": "2"}]}
            ]}}}})),
        )
        .await
        .unwrap();
    let spec = patched.spec.clone().unwrap().template.spec.unwrap();
    assert_eq!(spec.containers.len(), 2, "sidecar kept");
    assert_eq!(spec.containers[0].image.as_deref(), Some("nginx:2"));
    let env: Vec<String> = spec.containers[0]
        .env
        .clone()
        .unwrap()
        .iter()
        .map(|var| var.name.clone())
        .collect();
    assert_eq!(env, vec!["A", "B"]);
    assert_eq!(patched.metadata.generation, Some(2));

    // Strategic delete directive.
    let patched = deployments
        .patch(
            "web",
            &PatchParams::default(),
            &Patch::Strategic(json!({"spec": {"template": {"spec": {"containers": [
                {"name": "sidecar", "$patch": "delete"}
            ]}}}})),
        )
        .await
        .unwrap();
    assert_eq!(
        patched
            .spec
            .unwrap()
            .template
            .spec
            .unwrap()
            .containers
            .len(),
        1
    );

    // JSON merge patch replaces lists wholesale.
    let config_maps: Api<ConfigMap> = Api::default_namespaced(client.clone());
    config_maps
        .create(&PostParams::default(), &config_map("cm", &[("a", "1")]))
        .await
        .unwrap();
    let merged = config_maps
        .patch(
            "cm",
            &PatchParams::default(),
            &Patch::Merge(
                json!({"metadata": {"labels": {"a": null, "b": "2"}}, "data": {"extra": "x"}}),
            ),
        )
        .await
        .unwrap();
    assert_eq!(merged.labels().get("b").map(String::as_str), Some("2"));
    assert!(!merged.labels().contains_key("a"));
    assert_eq!(merged.data.unwrap().len(), 2);

    // JSON patch, including a failing test operation (422).
    let operations: json_patch::Patch = serde_json::from_value(json!([
        {"op": "replace", "path": "/data/key", "value": "patched"},
        {"op": "add", "path": "/metadata/annotations", "value": {"note": "yes"}}
    ]))
    .unwrap();
    let patched = config_maps
        .patch(
            "cm",
            &PatchParams::default(),
            &Patch::<()>::Json(operations),
        )
        .await
        .unwrap();
    assert_eq!(patched.data.clone().unwrap()["key"], "patched");
    assert_eq!(patched.annotations()["note"], "yes");
    let failing: json_patch::Patch =
        serde_json::from_value(json!([{"op": "test", "path": "/data/key", "value": "nope"}]))
            .unwrap();
    let (code, _, _) = api_error(
        config_maps
            .patch("cm", &PatchParams::default(), &Patch::<()>::Json(failing))
            .await,
    );
    assert_eq!(code, 422);

    // A patch carrying a stale resourceVersion is a conflict.
    let (code, _, _) = api_error(
        config_maps
            .patch(
                "cm",
                &PatchParams::default(),
                &Patch::Merge(json!({"metadata": {"resourceVersion": "1"}})),
            )
            .await,
    );
    assert_eq!(code, 409);

    // Strategic merge is for built-in kinds only; custom resources answer 415 as on a cluster.
    install_crds(&client).await;
    let widgets: Api<Widget> = Api::default_namespaced(client.clone());
    widgets
        .create(
            &PostParams::default(),
            &Widget::new(
                "w",
                WidgetSpec {
                    size: 1,
                    color: None,
                },
            ),
        )
        .await
        .unwrap();
    let (code, _, _) = api_error(
        widgets
            .patch(
                "w",
                &PatchParams::default(),
                &Patch::Strategic(json!({"spec": {"size": 2}})),
            )
            .await,
    );
    assert_eq!(code, 415);
    let (code, _, _) = api_error(
        config_maps
            .patch("missing", &PatchParams::default(), &Patch::Merge(json!({})))
            .await,
    );
    assert_eq!(code, 404);
}

#[tokio::test]
async fn server_side_apply_tracks_field_managers() {
    let (_server, client) = start().await;
    let config_maps: Api<ConfigMap> = Api::default_namespaced(client.clone());
    let apply = |manager: &str, force: bool| {
        let mut params = PatchParams::apply(manager);
        params.force = force;
        params
    };
    // Apply creates.
    let first = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "ssa", "labels": {"owner": "one"}},
        "data": {"a": "1", "b": "2"}});
    let created = config_maps
        .patch("ssa", &apply("one", false), &Patch::Apply(&first))
        .await
        .unwrap();
    assert_eq!(created.data.clone().unwrap().len(), 2);
    let entries = created.metadata.managed_fields.clone().unwrap();
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0].manager.as_deref(), Some("one"));
    assert_eq!(entries[0].operation.as_deref(), Some("Apply"));

    // Another manager owns c.
    let second = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "ssa"}, "data": {"c": "3"}});
    config_maps
        .patch("ssa", &apply("two", false), &Patch::Apply(&second))
        .await
        .unwrap();

    // Manager one stops applying b: b is removed; c (owned by two) stays.
    let first_again = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "ssa", "labels": {"owner": "one"}},
        "data": {"a": "1"}});
    let applied = config_maps
        .patch("ssa", &apply("one", false), &Patch::Apply(&first_again))
        .await
        .unwrap();
    let data = applied.data.unwrap();
    assert_eq!(data.keys().cloned().collect::<Vec<_>>(), vec!["a", "c"]);

    // Two setting a to another value conflicts with one, unless forced.
    let grab = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "ssa"}, "data": {"a": "changed", "c": "3"}});
    let (code, reason, status) = api_error(
        config_maps
            .patch("ssa", &apply("two", false), &Patch::Apply(&grab))
            .await,
    );
    assert_eq!((code, reason.as_str()), (409, "Conflict"));
    let causes = status.details.unwrap().causes;
    assert_eq!(causes[0].field, ".data.a");
    assert_eq!(causes[0].reason, "FieldManagerConflict");
    assert!(
        status.message.contains("conflict with \"one\""),
        "{}",
        status.message
    );
    let forced = config_maps
        .patch("ssa", &apply("two", true), &Patch::Apply(&grab))
        .await
        .unwrap();
    assert_eq!(forced.data.unwrap()["a"], "changed");
    // One lost a: when one stops applying a it stays, two owns it now.
    let first_without_a = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "ssa", "labels": {"owner": "one"}}});
    let applied = config_maps
        .patch("ssa", &apply("one", false), &Patch::Apply(&first_without_a))
        .await
        .unwrap();
    assert_eq!(applied.data.unwrap()["a"], "changed");

    // Applying the same value as another manager is shared ownership, not a conflict.
    let share = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "ssa"}, "data": {"c": "3"}});
    config_maps
        .patch("ssa", &apply("three", false), &Patch::Apply(&share))
        .await
        .unwrap();

    // An Update by another client takes ownership of the fields it changes.
    config_maps
        .patch(
            "ssa",
            &PatchParams {
                field_manager: Some("editor".into()),
                ..PatchParams::default()
            },
            &Patch::Merge(json!({"metadata": {"labels": {"owner": "editor"}}})),
        )
        .await
        .unwrap();
    let (code, _, status) = api_error(
        config_maps
            .patch("ssa", &apply("one", false), &Patch::Apply(&first_without_a))
            .await,
    );
    assert_eq!(code, 409);
    assert!(status.message.contains("\"editor\""), "{}", status.message);

    // Apply without a field manager is rejected.
    let (code, _, _) = api_error(
        config_maps
            .patch("ssa", &PatchParams::default(), &Patch::Apply(&share))
            .await,
    );
    assert_eq!(code, 422);

    // Keyed lists: two managers own different containers of one Deployment.
    let deployments: Api<Deployment> = Api::default_namespaced(client.clone());
    let base = |containers: serde_json::Value| {
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
            "spec": {"selector": {"matchLabels": {"app": "d"}}, "template": {"metadata": {"labels": {"app": "d"}},
            "spec": {"containers": containers}}}})
    };
    deployments
        .patch(
            "d",
            &apply("one", false),
            &Patch::Apply(base(json!([{"name": "a", "image": "a:1"}]))),
        )
        .await
        .unwrap();
    let both = deployments
        .patch(
            "d",
            &apply("two", false),
            &Patch::Apply(base(json!([{"name": "b", "image": "b:1"}]))),
        )
        .await
        .unwrap();
    let names: Vec<String> = both
        .spec
        .unwrap()
        .template
        .spec
        .unwrap()
        .containers
        .iter()
        .map(|c| c.name.clone())
        .collect();
    assert_eq!(names, vec!["a", "b"]);
    let only_b = deployments
        .patch("d", &apply("one", false), &Patch::Apply(base(json!([]))))
        .await
        .unwrap();
    let names: Vec<String> = only_b
        .spec
        .unwrap()
        .template
        .spec
        .unwrap()
        .containers
        .iter()
        .map(|c| c.name.clone())
        .collect();
    assert_eq!(names, vec!["b"]);
}

#[tokio::test]
async fn status_subresource_separates_spec_and_status() {
    let (_server, client) = start().await;
    install_crds(&client).await;
    let widgets: Api<Widget> = Api::default_namespaced(client.clone());
    let mut widget = Widget::new(
        "w",
        WidgetSpec {
            size: 1,
            color: None,
        },
    );
    widget.status = Some(WidgetStatus { ready: true });
    let created = widgets
        .create(&PostParams::default(), &widget)
        .await
        .unwrap();
    assert_eq!(created.status, None, "status is dropped on create");
    assert_eq!(created.metadata.generation, Some(1));

    // Status through the main resource is ignored.
    let ignored = widgets
        .patch(
            "w",
            &PatchParams::default(),
            &Patch::Merge(json!({"status": {"ready": true}})),
        )
        .await
        .unwrap();
    assert_eq!(ignored.status, None);
    assert_eq!(ignored.metadata.generation, Some(1));
    assert_eq!(
        ignored.resource_version(),
        created.resource_version(),
        "a no-op write"
    );

    // Status through /status: generation does not move, spec changes there are ignored.
    let with_status = widgets
        .patch_status(
            "w",
            &PatchParams::default(),
            &Patch::Merge(json!({"status": {"ready": true}, "spec": {"size": 99}})),
        )
        .await
        .unwrap();
    assert_eq!(with_status.status, Some(WidgetStatus { ready: true }));
    assert_eq!(with_status.spec.size, 1);
    assert_eq!(with_status.metadata.generation, Some(1));

    // replace_status, too.
    let mut replaced = with_status.clone();
    replaced.status = Some(WidgetStatus { ready: false });
    let replaced = widgets
        .replace_status("w", &PostParams::default(), &replaced)
        .await
        .unwrap();
    assert_eq!(replaced.status, Some(WidgetStatus { ready: false }));

    // Server-side apply through /status, as controllers report status.
    let applied = widgets
        .patch_status(
            "w",
            &PatchParams::apply("widget-controller").force(),
            &Patch::Apply(json!({"apiVersion": "example.com/v1", "kind": "Widget", "status": {"ready": true}})),
        )
        .await
        .unwrap();
    assert_eq!(applied.status, Some(WidgetStatus { ready: true }));
    let status_manager = applied
        .metadata
        .managed_fields
        .unwrap()
        .into_iter()
        .find(|entry| entry.manager.as_deref() == Some("widget-controller"))
        .unwrap();
    assert_eq!(status_manager.subresource.as_deref(), Some("status"));
    assert_eq!(status_manager.operation.as_deref(), Some("Apply"));
    let mut replaced = widgets.get("w").await.unwrap();
    replaced.status = Some(WidgetStatus { ready: false });
    widgets
        .replace_status("w", &PostParams::default(), &replaced)
        .await
        .unwrap();

    // Spec changes bump generation; label changes do not.
    let resized = widgets
        .patch(
            "w",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"size": 2}})),
        )
        .await
        .unwrap();
    assert_eq!(resized.metadata.generation, Some(2));
    assert_eq!(
        resized.status,
        Some(WidgetStatus { ready: false }),
        "status kept by spec writes"
    );
    let labeled = widgets
        .patch(
            "w",
            &PatchParams::default(),
            &Patch::Merge(json!({"metadata": {"labels": {"x": "y"}}})),
        )
        .await
        .unwrap();
    assert_eq!(labeled.metadata.generation, Some(2));

    // Without a status subresource every non-metadata change bumps generation, status included.
    let gadgets: Api<Gadget> = Api::all(client.clone());
    gadgets
        .create(
            &PostParams::default(),
            &Gadget::new("g", GadgetSpec { power: 1 }),
        )
        .await
        .unwrap();
    let patched = gadgets
        .patch(
            "g",
            &PatchParams::default(),
            &Patch::Merge(json!({"status": {"anything": 1}})),
        )
        .await
        .unwrap();
    assert_eq!(patched.metadata.generation, Some(2));
    let (code, _, _) = api_error(
        gadgets
            .patch_status(
                "g",
                &PatchParams::default(),
                &Patch::Merge(json!({"status": {}})),
            )
            .await,
    );
    assert_eq!(code, 404, "no status subresource");

    // Only get, update and patch exist on /status.
    let request = http::Request::delete("/apis/example.com/v1/namespaces/default/widgets/w/status")
        .body(Vec::new())
        .unwrap();
    let (code, _, _) = api_error(client.request::<Widget>(request).await);
    assert_eq!(code, 405);
    assert!(widgets.get_opt("w").await.unwrap().is_some());

    // Built-in kinds behave alike: Deployment status is written through /status only.
    let deployments: Api<Deployment> = Api::default_namespaced(client.clone());
    deployments
        .create(&PostParams::default(), &deployment("web", "nginx:1"))
        .await
        .unwrap();
    let status = deployments
        .patch_status(
            "web",
            &PatchParams::default(),
            &Patch::Merge(json!({"status": {"readyReplicas": 1}})),
        )
        .await
        .unwrap();
    assert_eq!(status.status.unwrap().ready_replicas, Some(1));
    assert_eq!(status.metadata.generation, Some(1));
}

#[tokio::test]
async fn annotations_over_256_kib_are_invalid_as_on_a_real_server() {
    let (_server, client) = start().await;
    let config_maps: Api<ConfigMap> = Api::default_namespaced(client.clone());
    let annotated = |name: &str, bytes: usize| {
        let mut object = config_map(name, &[]);
        object.metadata.annotations = Some(BTreeMap::from([("big".to_owned(), "x".repeat(bytes))]));
        object
    };
    // Key and value count: 3 + 262141 is exactly at the limit.
    let at_limit = annotated("at-limit", 256 * 1024 - 3);
    config_maps
        .create(&PostParams::default(), &at_limit)
        .await
        .unwrap();
    for (what, result) in [
        (
            "create",
            config_maps
                .create(&PostParams::default(), &annotated("over", 256 * 1024))
                .await,
        ),
        (
            "update",
            config_maps
                .replace(
                    "at-limit",
                    &PostParams::default(),
                    &annotated("at-limit", 256 * 1024),
                )
                .await,
        ),
    ] {
        let (code, reason, status) = api_error(result);
        assert_eq!((code, reason.as_str()), (422, "Invalid"), "{what}");
        assert!(
            status
                .message
                .contains("metadata.annotations: Too long: may not be more than 262144 bytes"),
            "{what}: {}",
            status.message
        );
    }
}

#[tokio::test]
async fn immutable_fields_are_invalid() {
    let (_server, client) = start().await;
    let stateful_sets: Api<StatefulSet> = Api::default_namespaced(client.clone());
    let sts: StatefulSet = serde_json::from_value(json!({
        "apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "db"},
        "spec": {"serviceName": "db", "selector": {"matchLabels": {"app": "db"}},
            "template": {"metadata": {"labels": {"app": "db"}}, "spec": {"containers": [{"name": "db", "image": "db:1"}]}},
            "volumeClaimTemplates": [{"metadata": {"name": "data"}, "spec": {"accessModes": ["ReadWriteOnce"]}}]}
    }))
    .unwrap();
    stateful_sets
        .create(&PostParams::default(), &sts)
        .await
        .unwrap();
    for change in [
        json!({"spec": {"serviceName": "other"}}),
        json!({"spec": {"selector": {"matchLabels": {"app": "other"}}}}),
        json!({"spec": {"volumeClaimTemplates": [{"metadata": {"name": "more"}, "spec": {}}]}}),
    ] {
        let (code, reason, status) = api_error(
            stateful_sets
                .patch("db", &PatchParams::default(), &Patch::Merge(&change))
                .await,
        );
        assert_eq!((code, reason.as_str()), (422, "Invalid"), "{change}");
        assert_eq!(status.details.as_ref().unwrap().kind, "StatefulSet");
        assert_eq!(status.details.unwrap().causes[0].field, "spec");
        assert!(status.message.contains("Forbidden"), "{}", status.message);
    }
    // Allowed changes still go through.
    let scaled = stateful_sets
        .patch(
            "db",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"replicas": 3}})),
        )
        .await
        .unwrap();
    assert_eq!(scaled.spec.unwrap().replicas, Some(3));

    let deployments: Api<Deployment> = Api::default_namespaced(client.clone());
    deployments
        .create(&PostParams::default(), &deployment("web", "nginx:1"))
        .await
        .unwrap();
    let mut replaced = deployments.get("web").await.unwrap();
    replaced.spec.as_mut().unwrap().selector.match_labels =
        Some(BTreeMap::from([("app".into(), "x".into())]));
    let (code, _, status) = api_error(
        deployments
            .replace("web", &PostParams::default(), &replaced)
            .await,
    );
    assert_eq!(code, 422);
    assert_eq!(status.details.unwrap().causes[0].field, "spec.selector");

    let daemon_sets: Api<DaemonSet> = Api::default_namespaced(client.clone());
    let ds: DaemonSet = serde_json::from_value(json!({
        "apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent"},
        "spec": {"selector": {"matchLabels": {"app": "agent"}},
            "template": {"metadata": {"labels": {"app": "agent"}}, "spec": {"containers": [{"name": "a", "image": "a:1"}]}}}
    }))
    .unwrap();
    daemon_sets
        .create(&PostParams::default(), &ds)
        .await
        .unwrap();
    let (code, _, _) = api_error(
        daemon_sets
            .patch(
                "agent",
                &PatchParams::apply("op").force(),
                &Patch::Apply(json!({
                    "apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent"},
                    "spec": {"selector": {"matchLabels": {"app": "changed"}}}
                })),
            )
            .await,
    );
    assert_eq!(code, 422);

    // Immutable Secrets keep their data.
    let secrets: Api<Secret> = Api::default_namespaced(client.clone());
    let secret: Secret = serde_json::from_value(
        json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"},
        "immutable": true, "stringData": {"a": "b"}}),
    )
    .unwrap();
    secrets
        .create(&PostParams::default(), &secret)
        .await
        .unwrap();
    let (code, _, _) = api_error(
        secrets
            .patch(
                "s",
                &PatchParams::default(),
                &Patch::Merge(json!({"stringData": {"a": "c"}})),
            )
            .await,
    );
    assert_eq!(code, 422);
}

#[tokio::test]
async fn finalizers_hold_deletion_until_removed() {
    let (_server, client) = start().await;
    let config_maps: Api<ConfigMap> = Api::default_namespaced(client.clone());
    let mut held = config_map("held", &[]);
    held.metadata.finalizers = Some(vec!["example.com/cleanup".into()]);
    config_maps
        .create(&PostParams::default(), &held)
        .await
        .unwrap();
    let pending = config_maps
        .delete("held", &DeleteParams::default())
        .await
        .unwrap();
    let marked = pending
        .left()
        .expect("still present while finalizers remain");
    assert!(marked.metadata.deletion_timestamp.is_some());
    // Finalizers cannot be added once terminating.
    let (code, _, _) = api_error(
        config_maps
            .patch(
                "held",
                &PatchParams::default(),
                &Patch::Merge(json!({"metadata": {"finalizers": ["example.com/cleanup", "new"]}})),
            )
            .await,
    );
    assert_eq!(code, 422);
    // Clearing the last finalizer removes the object.
    config_maps
        .patch(
            "held",
            &PatchParams::default(),
            &Patch::Merge(json!({"metadata": {"finalizers": null}})),
        )
        .await
        .unwrap();
    assert!(config_maps.get_opt("held").await.unwrap().is_none());

    // Deleting an object without finalizers returns a Success status; preconditions are checked.
    config_maps
        .create(&PostParams::default(), &config_map("plain", &[]))
        .await
        .unwrap();
    let (code, _, _) = api_error(
        config_maps
            .delete(
                "plain",
                &DeleteParams {
                    preconditions: Some(kube::api::Preconditions {
                        uid: Some("wrong".into()),
                        resource_version: None,
                    }),
                    ..DeleteParams::default()
                },
            )
            .await,
    );
    assert_eq!(code, 409);
    let gone = config_maps
        .delete("plain", &DeleteParams::default())
        .await
        .unwrap();
    assert!(gone.is_right());
    let (code, _, _) = api_error(config_maps.delete("plain", &DeleteParams::default()).await);
    assert_eq!(code, 404);
}

#[tokio::test]
async fn kube_runtime_finalizer_helper_round_trip() {
    use kube::runtime::controller::Action;
    use kube::runtime::finalizer::{Event as FinalizerEvent, finalizer};
    use std::sync::Arc;

    let (_server, client) = start().await;
    install_crds(&client).await;
    let widgets: Api<Widget> = Api::default_namespaced(client.clone());
    widgets
        .create(
            &PostParams::default(),
            &Widget::new(
                "w",
                WidgetSpec {
                    size: 1,
                    color: None,
                },
            ),
        )
        .await
        .unwrap();
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let reconcile = |widget: Widget| {
        let seen = seen.clone();
        let api = widgets.clone();
        async move {
            finalizer(
                &api,
                "example.com/cleanup",
                Arc::new(widget),
                |event| async move {
                    seen.lock().unwrap().push(match event {
                        FinalizerEvent::Apply(_) => "apply",
                        FinalizerEvent::Cleanup(_) => "cleanup",
                    });
                    Ok::<_, std::convert::Infallible>(Action::await_change())
                },
            )
            .await
            .unwrap();
        }
    };
    // First pass adds the finalizer (JSON patch: test for null, then add).
    reconcile(widgets.get("w").await.unwrap()).await;
    assert_eq!(
        widgets.get("w").await.unwrap().finalizers(),
        ["example.com/cleanup"]
    );
    reconcile(widgets.get("w").await.unwrap()).await;
    widgets.delete("w", &DeleteParams::default()).await.unwrap();
    // Deletion pending: cleanup runs, then the finalizer is removed and the object goes.
    reconcile(widgets.get("w").await.unwrap()).await;
    assert!(widgets.get_opt("w").await.unwrap().is_none());
    assert_eq!(*seen.lock().unwrap(), vec!["apply", "cleanup"]);
}

#[tokio::test]
async fn garbage_collection_follows_owner_references() {
    let (_server, client) = start().await;
    let config_maps: Api<ConfigMap> = Api::default_namespaced(client.clone());
    let create_owner = async |name: &str| {
        config_maps
            .create(&PostParams::default(), &config_map(name, &[]))
            .await
            .unwrap()
    };
    let create_dependent = async |name: &str, owner: &ConfigMap, block: bool, finalizer: bool| {
        let mut dependent = config_map(name, &[]);
        dependent.metadata.owner_references = Some(vec![owner_reference(owner, block)]);
        if finalizer {
            dependent.metadata.finalizers = Some(vec!["example.com/hold".into()]);
        }
        config_maps
            .create(&PostParams::default(), &dependent)
            .await
            .unwrap()
    };
    let exists = async |name: &str| config_maps.get_opt(name).await.unwrap();

    // Background: the owner goes at once, dependents (and theirs) follow.
    let owner = create_owner("bg-owner").await;
    let child = create_dependent("bg-child", &owner, false, false).await;
    create_dependent("bg-grandchild", &child, false, false).await;
    config_maps
        .delete("bg-owner", &DeleteParams::background())
        .await
        .unwrap();
    assert!(exists("bg-owner").await.is_none());
    assert!(exists("bg-child").await.is_none());
    assert!(exists("bg-grandchild").await.is_none());

    // A dependent with another live owner only loses the reference.
    let first = create_owner("first").await;
    let second = create_owner("second").await;
    let mut shared = config_map("shared", &[]);
    shared.metadata.owner_references = Some(vec![
        owner_reference(&first, false),
        owner_reference(&second, false),
    ]);
    config_maps
        .create(&PostParams::default(), &shared)
        .await
        .unwrap();
    config_maps
        .delete("first", &DeleteParams::default())
        .await
        .unwrap();
    let survivor = exists("shared").await.expect("still owned by second");
    assert_eq!(survivor.owner_references().len(), 1);
    assert_eq!(survivor.owner_references()[0].name, "second");

    // Foreground: the owner waits (deletionTimestamp + foregroundDeletion) for blocking dependents.
    let owner = create_owner("fg-owner").await;
    create_dependent("fg-child", &owner, true, true).await;
    let pending = config_maps
        .delete("fg-owner", &DeleteParams::foreground())
        .await
        .unwrap();
    let marked = pending.left().expect("owner waits for its dependents");
    assert!(
        marked
            .finalizers()
            .contains(&"foregroundDeletion".to_string())
    );
    let child = exists("fg-child").await.expect("held by its finalizer");
    assert!(child.metadata.deletion_timestamp.is_some());
    assert!(exists("fg-owner").await.is_some());
    config_maps
        .patch(
            "fg-child",
            &PatchParams::default(),
            &Patch::Merge(json!({"metadata": {"finalizers": null}})),
        )
        .await
        .unwrap();
    assert!(exists("fg-child").await.is_none());
    assert!(
        exists("fg-owner").await.is_none(),
        "owner goes once its dependents are gone"
    );

    // Orphan: dependents stay, without the reference.
    let owner = create_owner("orphan-owner").await;
    create_dependent("orphan-child", &owner, true, false).await;
    config_maps
        .delete("orphan-owner", &DeleteParams::orphan())
        .await
        .unwrap();
    assert!(exists("orphan-owner").await.is_none());
    let orphan = exists("orphan-child").await.expect("orphans survive");
    assert!(orphan.owner_references().is_empty());

    // Cross-kind: a Deployment owned by a ConfigMap goes with it.
    let owner = create_owner("cross-owner").await;
    let deployments: Api<Deployment> = Api::default_namespaced(client.clone());
    let mut owned = deployment("owned", "nginx:1");
    owned.metadata.owner_references = Some(vec![owner_reference(&owner, true)]);
    deployments
        .create(&PostParams::default(), &owned)
        .await
        .unwrap();
    config_maps
        .delete("cross-owner", &DeleteParams::default())
        .await
        .unwrap();
    assert!(deployments.get_opt("owned").await.unwrap().is_none());

    // Deleting a namespace deletes its content, then the namespace.
    let namespaces: Api<Namespace> = Api::all(client.clone());
    namespaces
        .create(
            &PostParams::default(),
            &Namespace {
                metadata: ObjectMeta {
                    name: Some("doomed".into()),
                    ..ObjectMeta::default()
                },
                ..Namespace::default()
            },
        )
        .await
        .unwrap();
    let doomed: Api<ConfigMap> = Api::namespaced(client.clone(), "doomed");
    doomed
        .create(&PostParams::default(), &config_map("inside", &[]))
        .await
        .unwrap();
    namespaces
        .delete("doomed", &DeleteParams::default())
        .await
        .unwrap();
    assert!(doomed.get_opt("inside").await.unwrap().is_none());
    assert!(namespaces.get_opt("doomed").await.unwrap().is_none());

    // delete_collection with a selector.
    for name in ["x1", "x2", "y1"] {
        let group = &name[..1];
        config_maps
            .create(
                &PostParams::default(),
                &config_map(name, &[("group", group)]),
            )
            .await
            .unwrap();
    }
    config_maps
        .delete_collection(
            &DeleteParams::default(),
            &ListParams::default().labels("group=x"),
        )
        .await
        .unwrap();
    let left: Vec<String> = config_maps
        .list(&ListParams::default().labels("group"))
        .await
        .unwrap()
        .items
        .iter()
        .map(ResourceExt::name_any)
        .collect();
    assert_eq!(left, vec!["y1"]);
}

#[tokio::test]
async fn faults_and_counters() {
    let (server, client) = start().await;
    let config_maps: Api<ConfigMap> = Api::default_namespaced(client.clone());
    let faults = server.faults();
    faults.fail_next(RequestMatch::verb_resource("create", "configmaps"), 2, 500);
    for _ in 0..2 {
        let (code, reason, _) = api_error(
            config_maps
                .create(&PostParams::default(), &config_map("a", &[]))
                .await,
        );
        assert_eq!((code, reason.as_str()), (500, "InternalError"));
    }
    config_maps
        .create(&PostParams::default(), &config_map("a", &[]))
        .await
        .unwrap();

    // kube-rs retries 429 by itself: the injected failure costs one extra request.
    faults.fail_next(RequestMatch::resource("configmaps"), 1, 429);
    config_maps.get("a").await.unwrap();
    assert_eq!(server.counters().get("get", "configmaps"), 2);
    faults.fail_next(RequestMatch::verb("get"), 1, 409);
    let (code, reason, _) = api_error(config_maps.get("a").await);
    assert_eq!((code, reason.as_str()), (409, "Conflict"));

    // Faults only hit what they match.
    faults.fail_next(RequestMatch::verb_resource("delete", "secrets"), 1, 503);
    config_maps.get("a").await.unwrap();
    faults.clear();

    faults.delay(RequestMatch::verb("get"), Duration::from_millis(300));
    let started = std::time::Instant::now();
    config_maps.get("a").await.unwrap();
    assert!(started.elapsed() >= Duration::from_millis(300));
    faults.clear();

    let counters = server.counters();
    assert_eq!(counters.get("create", "configmaps"), 3);
    assert_eq!(counters.get("get", "configmaps"), 5);
    config_maps
        .patch_status("a", &PatchParams::default(), &Patch::Merge(json!({})))
        .await
        .unwrap_err();
    assert_eq!(
        counters.get("patch", "configmaps/status"),
        0,
        "configmaps have no status subresource"
    );
    let deployments: Api<Deployment> = Api::default_namespaced(client.clone());
    deployments
        .create(&PostParams::default(), &deployment("d", "i:1"))
        .await
        .unwrap();
    deployments
        .patch_status(
            "d",
            &PatchParams::default(),
            &Patch::Merge(json!({"status": {"replicas": 1}})),
        )
        .await
        .unwrap();
    assert_eq!(counters.get("patch", "deployments/status"), 1);
    assert_eq!(counters.writes("configmaps"), 3);
    assert_eq!(counters.total_writes(), 5);
    counters.reset();
    assert_eq!(counters.total_writes(), 0);

    // Closing watches ends open streams.
    let mut stream = Box::pin(
        config_maps
            .watch(&WatchParams::default(), "0")
            .await
            .unwrap(),
    );
    assert!(matches!(
        stream.try_next().await.unwrap(),
        Some(WatchEvent::Added(_))
    ));
    faults.close_watches();
    let ended = tokio::time::timeout(Duration::from_secs(5), async {
        while let Some(event) = stream.try_next().await.unwrap() {
            assert!(matches!(event, WatchEvent::Bookmark(_)), "{event:?}");
        }
    })
    .await;
    assert!(ended.is_ok(), "the stream ended after close_watches");
}

#[tokio::test]
async fn holds_many_objects_and_pages_through_them() {
    let (server, client) = start().await;
    let config_maps: Api<ConfigMap> = Api::default_namespaced(client.clone());
    let total = 2_000;
    futures_util::stream::iter(0..total)
        .map(|index| {
            let config_maps = config_maps.clone();
            async move {
                config_maps
                    .create(
                        &PostParams::default(),
                        &config_map(
                            &format!("cm-{index:05}"),
                            &[("parity", if index % 2 == 0 { "even" } else { "odd" })],
                        ),
                    )
                    .await
                    .unwrap()
            }
        })
        .buffer_unordered(16)
        .collect::<Vec<_>>()
        .await;
    assert_eq!(
        server.object_count(),
        total + 4,
        "plus the four initial namespaces"
    );
    let mut seen = 0;
    let mut params = ListParams::default().labels("parity=even").limit(300);
    loop {
        let page = config_maps.list(&params).await.unwrap();
        seen += page.items.len();
        match page.metadata.continue_ {
            Some(token) => params = params.continue_token(&token),
            None => break,
        }
    }
    assert_eq!(seen, total / 2);
    assert_eq!(
        config_maps
            .list(&ListParams::default())
            .await
            .unwrap()
            .items
            .len(),
        total
    );
}

#[tokio::test]
async fn kinds_of_every_group_round_trip() {
    let (_server, client) = start().await;
    let resources = [
        ("", "v1", "Secret", "secrets", true),
        ("", "v1", "Service", "services", true),
        ("", "v1", "Endpoints", "endpoints", true),
        ("", "v1", "Node", "nodes", false),
        ("", "v1", "Pod", "pods", true),
        ("", "v1", "ServiceAccount", "serviceaccounts", true),
        ("", "v1", "Event", "events", true),
        (
            "discovery.k8s.io",
            "v1",
            "EndpointSlice",
            "endpointslices",
            true,
        ),
        ("coordination.k8s.io", "v1", "Lease", "leases", true),
        ("events.k8s.io", "v1", "Event", "events", true),
        ("rbac.authorization.k8s.io", "v1", "Role", "roles", true),
        (
            "rbac.authorization.k8s.io",
            "v1",
            "ClusterRole",
            "clusterroles",
            false,
        ),
        (
            "rbac.authorization.k8s.io",
            "v1",
            "RoleBinding",
            "rolebindings",
            true,
        ),
        (
            "rbac.authorization.k8s.io",
            "v1",
            "ClusterRoleBinding",
            "clusterrolebindings",
            false,
        ),
        ("networking.k8s.io", "v1", "Ingress", "ingresses", true),
    ];
    for (group, version, kind, plural, namespaced) in resources {
        let gvk = kube::core::GroupVersionKind::gvk(group, version, kind);
        let resource = kube::core::ApiResource::from_gvk_with_plural(&gvk, plural);
        let api: Api<kube::core::DynamicObject> = if namespaced {
            Api::namespaced_with(client.clone(), "default", &resource)
        } else {
            Api::all_with(client.clone(), &resource)
        };
        let object = kube::core::DynamicObject::new("sample", &resource);
        let created = api.create(&PostParams::default(), &object).await.unwrap();
        assert_eq!(created.types.as_ref().unwrap().kind, kind);
        assert_eq!(
            api.list(&ListParams::default()).await.unwrap().items.len(),
            1,
            "{plural}"
        );
        api.delete("sample", &DeleteParams::default())
            .await
            .unwrap();
        assert!(api.get_opt("sample").await.unwrap().is_none(), "{plural}");
    }
    // Owner reference kinds resolve through the Resource trait, as controllers build them.
    assert_eq!(ConfigMap::kind(&()), "ConfigMap");
}

#[tokio::test]
async fn secret_string_data_is_stored_as_data() {
    let (_server, client) = start().await;
    let secrets: Api<Secret> = Api::namespaced(client, "default");
    let created = secrets
        .create(
            &PostParams::default(),
            &serde_json::from_value(json!({
                "metadata": {"name": "s"},
                "data": {"kept": "YQ==", "over": "YQ=="},
                "stringData": {"over": "b", "added": "c"},
            }))
            .expect("secret"),
        )
        .await
        .expect("create");
    let data = |s: &Secret| -> BTreeMap<String, Vec<u8>> {
        s.data
            .clone()
            .unwrap_or_default()
            .into_iter()
            .map(|(k, v)| (k, v.0))
            .collect()
    };
    let expected = BTreeMap::from([
        ("added".to_owned(), b"c".to_vec()),
        ("kept".to_owned(), b"a".to_vec()),
        ("over".to_owned(), b"b".to_vec()),
    ]);
    assert_eq!(data(&created), expected);
    assert_eq!(created.string_data, None);

    let patch = json!({"stringData": {"kept": "d"}});
    let patched = secrets
        .patch("s", &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .expect("patch");
    assert_eq!(data(&patched)["kept"], b"d");
    assert_eq!(patched.string_data, None);
}

/// What a request with `accept` returns, parsed: the status code and each JSON document of
/// the body (one per line for a watch).
async fn raw_get(client: &Client, path: &str, accept: &str) -> (u16, Vec<serde_json::Value>) {
    let request = http::Request::get(path)
        .header(http::header::ACCEPT, accept)
        .body(Vec::new())
        .expect("request");
    let response = client.send(request.map(Into::into)).await.expect("send");
    let status = response.status().as_u16();
    let body = http_body_util::BodyExt::collect(response.into_body())
        .await
        .expect("body")
        .to_bytes();
    let documents = serde_json::Deserializer::from_slice(&body)
        .into_iter::<serde_json::Value>()
        .collect::<Result<_, _>>()
        .expect("JSON documents");
    (status, documents)
}

#[tokio::test]
async fn metadata_only_requests_never_carry_values() {
    const ONE: &str = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1";
    const LIST: &str = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1";
    let (_server, client) = start().await;
    let secrets: Api<Secret> = Api::namespaced(client.clone(), "default");
    let secret = serde_json::from_value(json!({
        "metadata": {"name": "token", "labels": {"app": "web"}},
        "data": {"password": "aHVudGVyMg=="},
    }))
    .expect("secret");
    secrets
        .create(&PostParams::default(), &secret)
        .await
        .expect("create");
    let is_partial = |object: &serde_json::Value| {
        object["kind"] == "PartialObjectMetadata"
            && object["apiVersion"] == "meta.k8s.io/v1"
            && object["metadata"]["labels"]["app"] == "web"
            && object.get("data").is_none()
    };

    let (status, list) = raw_get(&client, "/api/v1/namespaces/default/secrets", LIST).await;
    assert_eq!(status, 200);
    assert_eq!(list[0]["kind"], "PartialObjectMetadataList");
    assert!(list[0]["metadata"]["resourceVersion"].is_string());
    let items = list[0]["items"].as_array().expect("items");
    assert_eq!(items.len(), 1);
    assert!(is_partial(&items[0]), "{}", items[0]);

    let (status, one) = raw_get(&client, "/api/v1/namespaces/default/secrets/token", ONE).await;
    assert_eq!(status, 200);
    assert!(is_partial(&one[0]), "{}", one[0]);

    let path = "/api/v1/namespaces/default/secrets?watch=true&timeoutSeconds=1";
    let (status, events) = raw_get(&client, path, ONE).await;
    assert_eq!(status, 200);
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0]["type"], "ADDED");
    assert!(is_partial(&events[0]["object"]), "{}", events[0]);

    // As on a real server, a list answers only the list media type, a get only the single one.
    let (status, _) = raw_get(&client, "/api/v1/namespaces/default/secrets", ONE).await;
    assert_eq!(status, 406);
    let (status, _) = raw_get(&client, "/api/v1/namespaces/default/secrets/token", LIST).await;
    assert_eq!(status, 406);

    // kube-rs' metadata calls read the same.
    let listed = secrets
        .list_metadata(&ListParams::default())
        .await
        .expect("list_metadata");
    assert_eq!(listed.items[0].metadata.name.as_deref(), Some("token"));
    let got = secrets.get_metadata("token").await.expect("get_metadata");
    assert_eq!(got.metadata.labels.unwrap_or_default()["app"], "web");
}
