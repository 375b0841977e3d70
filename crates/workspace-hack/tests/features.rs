//! Every build the scripts and tests run (`cargo build -p agent-operator -p testkube` in
//! scripts/demo, `cargo build -p testkube` when the demo test runs it, `cargo test --workspace` in
//! scripts/test.sh, `cargo build --release -p agent-operator -p agent-operator-bench` in
//! scripts/bench.sh, and anyone's `cargo test -p <crate>`) resolves each shared dependency with
//! the features `cargo test --workspace` resolves, so no build compiles a second copy of it.
//!
//! `cargo tree` prints the features Cargo's resolver picks for a given `-p` set and edge kinds
//! (`dev` edges: what `cargo test` builds; without: what `cargo build` builds). A union of `-p`
//! sets resolves the union of their features, so checking each member alone covers every set.
//!
//! The pure core (api, render) depends on workspace-hack without its `runtime` feature, so that
//! its graph stays free of tokio and the kube client (ARCHITECTURE.md): built alone, only the
//! `kube` facade (a re-export crate) differs, and with it api and render themselves.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn cargo(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO"))
        .args(args)
        .current_dir(workspace_root())
        .output()
        .expect("run cargo");
    assert!(
        out.status.success(),
        "cargo {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("cargo prints UTF-8")
}

/// How a workspace member depends on workspace-hack.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Hack {
    Missing,
    Core,
    Runtime,
}

/// The workspace members, and how each depends on workspace-hack.
fn members() -> Vec<(String, Hack)> {
    let metadata: serde_json::Value = serde_json::from_str(&cargo(&[
        "metadata",
        "--no-deps",
        "--locked",
        "--format-version",
        "1",
    ]))
    .expect("cargo metadata prints JSON");
    metadata["packages"]
        .as_array()
        .expect("packages")
        .iter()
        .map(|package| {
            let name = package["name"].as_str().expect("name").to_owned();
            let hack = package["dependencies"]
                .as_array()
                .expect("dependencies")
                .iter()
                .find(|dep| dep["name"] == "workspace-hack" && dep["kind"].is_null())
                .map_or(Hack::Missing, |dep| {
                    let features = dep["features"].as_array().expect("features");
                    if features.iter().any(|f| f == "runtime") {
                        Hack::Runtime
                    } else {
                        Hack::Core
                    }
                });
            (name, hack)
        })
        .collect()
}

/// `name vX.Y.Z feature,feature` for every third-party package the build resolves (host and
/// target builds of one package are separate lines when their features differ).
fn resolved(members: &[(String, Hack)], args: &[&str]) -> BTreeSet<String> {
    let mut command = vec![
        "tree", "--locked", "--prefix", "none", "--format", "{p} {f}",
    ];
    command.extend_from_slice(args);
    cargo(&command)
        .lines()
        .map(|line| line.trim_end_matches(" (*)").trim_end())
        .filter(|line| !line.is_empty())
        .filter(|line| {
            let name = line.split(' ').next().unwrap_or_default();
            !members.iter().any(|(member, _)| member == name)
        })
        .map(str::to_owned)
        .collect()
}

/// The crates the pure core must not depend on.
const RUNTIME_CRATES: [&str; 4] = ["tokio", "hyper", "kube-client", "kube-runtime"];
/// The pure core, which does not ask for workspace-hack's `runtime` feature.
const CORE: [&str; 2] = ["agent-operator-api", "agent-operator-render"];

#[test]
fn every_package_set_resolves_the_features_of_the_workspace_test_build() {
    let members = members();
    let mut problems = Vec::new();
    for (member, hack) in &members {
        let wanted = match member.as_str() {
            "workspace-hack" => continue,
            m if CORE.contains(&m) => Hack::Core,
            _ => Hack::Runtime,
        };
        if *hack != wanted {
            problems.push(format!(
                "{member} depends on workspace-hack as {hack:?}, not {wanted:?}: its \
                 [dependencies] want `workspace-hack = {{ path = \"../workspace-hack\"{} }}`",
                if wanted == Hack::Runtime {
                    ", features = [\"runtime\"]"
                } else {
                    ""
                }
            ));
        }
    }
    let workspace = resolved(&members, &["--workspace", "-e", "normal,build,dev"]);
    for (member, _) in &members {
        for (edges, build) in [("normal,build", "build"), ("normal,build,dev", "test")] {
            for line in resolved(&members, &["-p", member, "-e", edges]).difference(&workspace) {
                let package = line.split(' ').take(2).collect::<Vec<_>>().join(" ");
                if CORE.contains(&member.as_str()) && package.starts_with("kube v") {
                    continue;
                }
                let in_workspace: Vec<&str> = workspace
                    .iter()
                    .filter(|l| l.starts_with(&format!("{package} ")) || **l == package)
                    .map(String::as_str)
                    .collect();
                problems.push(format!(
                    "`cargo {build} -p {member}` resolves `{line}`; `cargo test --workspace` \
                     resolves {in_workspace:?}: list that package with the workspace's features \
                     in crates/workspace-hack/Cargo.toml"
                ));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "builds that would compile their own copy of a dependency:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_pure_core_has_no_kube_client_and_no_tokio() {
    let members = members();
    for core in CORE {
        let graph = resolved(&members, &["-p", core, "-e", "normal,build"]);
        let runtime: Vec<&String> = graph
            .iter()
            .filter(|line| {
                RUNTIME_CRATES
                    .iter()
                    .any(|c| line.starts_with(&format!("{c} v")))
            })
            .collect();
        assert!(runtime.is_empty(), "{core} depends on {runtime:?}");
    }
}
