//! The pure core of agent-operator: no Kubernetes client, no async runtime.
//!
//! ```text
//! InputStore ──discover──> Hierarchy (+ Dependencies) ──plan──> desired objects (+ rejections, status)
//! ```
//!
//! * [`store`]: every input object, maintained from watch events or filled from files;
//! * [`discover`]: one GrafanaAgent's hierarchy (spec 2), with what it depends on
//!   ([`dependencies`]);
//! * [`index`]: which agents an input change affects, from the recorded dependencies;
//! * [`config`]: the agent.yml documents (spec 4);
//! * [`workloads`]: Service, StatefulSets, DaemonSets, Deployment (spec 3);
//! * [`desired`]: the objects, names, labels and options every later phase shares;
//! * [`plan`]: all of it for one agent, as the controller applies it and `render` prints it;
//! * [`status`]: the status a plan implies for the agent and for each instance it selects;
//! * [`manifest`]: parsing user YAML into a store, with diagnostics that name the file,
//!   document, object and field.

pub mod admission;
pub mod alloy;
pub mod alloy_native;
pub mod alloy_syntax;
pub mod asset_key;
pub mod assets;
pub mod config;
pub mod config_text;
pub mod dependencies;
pub mod desired;
pub mod discover;
pub mod expansion;
pub mod explain;
pub mod gzip;
pub mod index;
pub mod input_ref;
pub mod journal;
pub mod loader_variables;
pub mod manifest;
pub mod output;
pub mod plan;
pub mod rediscover;
pub mod references;
pub mod rejection;
pub mod relabel;
pub mod render_cache;
pub mod segments;
pub mod selector;
pub mod sharding;
pub mod status;
pub mod store;
mod text_chunks;
pub mod workloads;
pub mod yaml;

pub use desired::PlanOptions;
pub use discover::{Discovery, Hierarchy, discover};
pub use plan::{Plan, plan};
pub use rediscover::rediscover;
pub use rejection::Rejection;
pub use store::{InputStore, InputView};
