//! The pure core of agent-operator: no Kubernetes client, no async runtime.
//!
//! ```text
//! Snapshot ──discover──> Hierarchy ──plan──> desired objects (+ rejections, status)
//! ```
//!
//! * [`snapshot`]: every input object at one moment;
//! * [`discover`]: one GrafanaAgent's hierarchy (spec 2), with the selectors it depends on;
//! * [`config`]: the agent.yml documents (spec 4);
//! * [`workloads`]: Service, StatefulSets, DaemonSets, Deployment (spec 3);
//! * [`plan`]: all of it for one agent, as the controller applies it and `render` prints it;
//! * [`manifest`]: parsing user YAML into a snapshot, with diagnostics that name the file,
//!   document, object and field.

pub mod admission;
pub mod assets;
pub mod config;
pub mod discover;
pub mod gzip;
pub mod input_ref;
pub mod manifest;
pub mod output;
pub mod plan;
pub mod references;
pub mod rejection;
pub mod render_cache;
pub mod selector;
pub mod sharding;
pub mod snapshot;
pub mod workloads;
pub mod yaml;

pub use discover::{Discovery, Hierarchy, discover};
pub use plan::{Plan, PlanOptions, plan};
pub use rejection::Rejection;
pub use snapshot::Snapshot;
