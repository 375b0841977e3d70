//! The "snapshot" step of the pipeline: a `render::InputStore` of every input, taken from the
//! reflector stores, with the values of the Secrets and ConfigMaps the agent refers to.
//!
//! Secrets and ConfigMaps are watched metadata-only; discovery lists in `to_load` the
//! referenced ones whose values are not held at their current resourceVersion, which are
//! then read (GET, keeping only the referenced keys) and discovery runs again. Values are held
//! per agent only while it refers to them; in the steady state discovery runs once.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use k8s_openapi::api::core::v1::{ConfigMap, Secret};
use kube::api::Api;
use render::Discovery;
use render::assets::AssetSource;
use render::input_ref::{InputRef, Kind};
use render::store::{InputStore, KeyValues};

use crate::error::Error;
use crate::watches::Stores;

/// What was read of one Secret or ConfigMap: resourceVersion, every key name, wanted values.
type Content = (Option<String>, BTreeSet<String>, KeyValues);

/// The referenced values one agent holds.
#[derive(Debug, Default)]
pub(crate) struct Values {
    held: HashMap<InputRef, Content>,
}

/// Rounds of discovery before giving up on a stable set of values: each round can only add
/// the references of objects the previous one could not resolve yet.
const MAX_ROUNDS: usize = 8;

/// Discovers `agent`'s hierarchy from the stores, reading the referenced values it lacks.
pub(crate) async fn discover(
    client: &kube::Client,
    stores: &Stores,
    agent: &Arc<api::GrafanaAgent>,
    values: &mut Values,
) -> Result<Discovery, Error> {
    let mut inputs = objects(stores);
    for _ in 0..MAX_ROUNDS {
        for (object, (version, key_names, data)) in &values.held {
            inputs.set_content(
                source(object.kind),
                &object.namespace,
                &object.name,
                version.clone(),
                key_names.clone(),
                data.clone(),
            );
        }
        let discovery = tokio::task::block_in_place(|| render::discover(agent, &inputs));
        if discovery.to_load.is_empty() {
            let references = &discovery.dependencies.references;
            values
                .held
                .retain(|object, _| references.contains_key(object));
            return Ok(discovery);
        }
        for (object, keys) in &discovery.to_load {
            read(client, object, keys, values).await?;
        }
    }
    Err(Error::Render {
        agent: format!(
            "{}/{}",
            agent.metadata.namespace.as_deref().unwrap_or_default(),
            agent.metadata.name.as_deref().unwrap_or_default()
        ),
        message: "referenced Secrets or ConfigMaps kept changing while being read".to_owned(),
    })
}

fn source(kind: Kind) -> AssetSource {
    match kind {
        Kind::ConfigMap => AssetSource::ConfigMap,
        _ => AssetSource::Secret,
    }
}

/// Every input object, Secrets and ConfigMaps by metadata only.
fn objects(stores: &Stores) -> InputStore {
    let mut inputs = InputStore::new();
    inputs.reset(stores.agents.state());
    inputs.reset(stores.metrics_instances.state());
    inputs.reset(stores.logs_instances.state());
    inputs.reset(stores.pod_logs.state());
    inputs.reset(stores.integrations.state());
    inputs.reset(stores.service_monitors.state());
    inputs.reset(stores.pod_monitors.state());
    inputs.reset(stores.probes.state());
    inputs.reset_namespaces(stores.namespaces.state().iter().map(|ns| {
        (
            ns.metadata.name.clone().unwrap_or_default(),
            ns.metadata.labels.clone().unwrap_or_default(),
        )
    }));
    let meta = |m: &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta| {
        (
            (
                m.namespace.clone().unwrap_or_default(),
                m.name.clone().unwrap_or_default(),
            ),
            m.resource_version.clone(),
        )
    };
    inputs.reset_meta(
        AssetSource::Secret,
        stores.secrets.state().iter().map(|o| meta(&o.metadata)),
    );
    inputs.reset_meta(
        AssetSource::ConfigMap,
        stores.config_maps.state().iter().map(|o| meta(&o.metadata)),
    );
    inputs
}

/// Reads one Secret or ConfigMap, keeping the values of `keys` only; a missing one is not
/// held.
async fn read(
    client: &kube::Client,
    object: &InputRef,
    keys: &BTreeSet<String>,
    values: &mut Values,
) -> Result<(), Error> {
    let action = || format!("reading {object}");
    let (namespace, name) = (&object.namespace, &object.name);
    let read: Option<(Option<String>, KeyValues)> = match object.kind {
        Kind::ConfigMap => Api::<ConfigMap>::namespaced(client.clone(), namespace)
            .get_opt(name)
            .await
            .map_err(Error::api(action()))?
            .map(|c| {
                let mut data: KeyValues = c
                    .binary_data
                    .unwrap_or_default()
                    .into_iter()
                    .map(|(k, v)| (k, v.0))
                    .collect();
                // `data` wins over `binaryData`, as the file loader does.
                data.extend(
                    c.data
                        .unwrap_or_default()
                        .into_iter()
                        .map(|(k, v)| (k, v.into_bytes())),
                );
                (c.metadata.resource_version, data)
            }),
        _ => Api::<Secret>::namespaced(client.clone(), namespace)
            .get_opt(name)
            .await
            .map_err(Error::api(action()))?
            .map(|s| {
                let data = s
                    .data
                    .unwrap_or_default()
                    .into_iter()
                    .map(|(k, v)| (k, v.0))
                    .collect();
                (s.metadata.resource_version, data)
            }),
    };
    match read {
        Some((version, mut data)) => {
            let key_names = data.keys().cloned().collect();
            data.retain(|k, _| keys.contains(k));
            values
                .held
                .insert(object.clone(), (version, key_names, data));
        }
        None => {
            values.held.remove(object);
        }
    }
    Ok(())
}
