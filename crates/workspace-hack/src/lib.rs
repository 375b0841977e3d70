//! No code. This crate exists for its Cargo.toml: every workspace crate depends on it, so any
//! `-p` set resolves the same features for shared dependencies (see Cargo.toml for why).
