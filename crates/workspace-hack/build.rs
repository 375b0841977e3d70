// Empty: its presence makes Cargo resolve this crate's [build-dependencies] (see Cargo.toml).
fn main() {}
