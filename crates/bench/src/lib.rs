//! Benchmarks of the render path at scale (issue "Render at scale"):
//!
//! * [`generate`]: deterministic synthetic inputs (the `generate` binary writes them);
//! * [`measure`]: process-level and in-process measurements (the `bench` binary prints them,
//!   `scripts/bench.sh` runs it).

pub mod generate;
pub mod measure;
