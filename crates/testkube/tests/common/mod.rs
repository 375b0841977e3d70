//! Shared helpers for the integration tests.
#![allow(dead_code)] // Each test binary uses a different subset.

use std::path::PathBuf;
use std::time::Duration;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, PostParams};
use kube::{Client, CustomResource};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use testkube::{Options, ServerConfig, TestKube};

pub fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("fixtures")
        .join(name)
}

pub fn fixture_text(name: &str) -> String {
    std::fs::read_to_string(fixture(name)).unwrap()
}

/// A server with fast bookmarks, so that tests see them within a second.
pub async fn start() -> (TestKube, Client) {
    let server = TestKube::start_with(Options {
        config: ServerConfig {
            bookmark_interval: Duration::from_millis(300),
            ..ServerConfig::default()
        },
        ..Options::default()
    })
    .await
    .unwrap();
    let client = server.client().unwrap();
    (server, client)
}

#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema, PartialEq)]
#[kube(
    group = "example.com",
    version = "v1",
    kind = "Widget",
    namespaced,
    status = "WidgetStatus"
)]
pub struct WidgetSpec {
    pub size: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub color: Option<String>,
}

#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema, PartialEq, Default)]
pub struct WidgetStatus {
    pub ready: bool,
}

#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema, PartialEq)]
#[kube(group = "example.com", version = "v1", kind = "Gadget")]
pub struct GadgetSpec {
    pub power: i64,
}

/// Registers the fixture CRDs (widgets: namespaced with status; gadgets: cluster, no status).
pub async fn install_crds(client: &Client) {
    let crds: Api<CustomResourceDefinition> = Api::all(client.clone());
    for file in ["widgets-crd.yaml", "gadgets-crd.yaml"] {
        let crd: CustomResourceDefinition = serde_saphyr::from_str(&fixture_text(file)).unwrap();
        crds.create(&PostParams::default(), &crd).await.unwrap();
    }
}

/// The HTTP code and reason of a failed call.
pub fn api_error<T: std::fmt::Debug>(
    result: Result<T, kube::Error>,
) -> (u16, String, kube::core::Status) {
    match result {
        Err(kube::Error::Api(status)) => (status.code, status.reason.clone(), *status),
        other => panic!("expected an API error, got {other:?}"),
    }
}
