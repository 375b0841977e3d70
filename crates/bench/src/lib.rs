//! Benchmarks at scale (issues "Render at scale" and "Controller at scale"):
//!
//! * [`generate`]: deterministic synthetic inputs (the `generate` binary writes them);
//! * [`measure`]: process-level and in-process measurements of `render` (the `bench` binary
//!   prints them, `scripts/bench.sh render` runs it);
//! * [`controller`]: the `agent-operator run` process against an API server (the
//!   `controller-bench` binary, `scripts/bench.sh controller`).

pub mod controller;
pub mod generate;
pub mod measure;
