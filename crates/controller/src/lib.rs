//! The controller behind `agent-operator run`: it watches the cluster and keeps every
//! GrafanaAgent's objects equal to what `render::plan` produces for the same inputs.
//!
//! This crate, the CLI and testkube are the only ones that depend on tokio and the kube client;
//! everything it decides is computed by the pure `render` crate.

pub mod http;
pub mod kubelet;
pub mod leader;
pub mod logging;
pub mod runtime;
